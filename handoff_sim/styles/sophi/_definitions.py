"""Agent definitions: Markdown files with YAML front matter.

The front matter holds ``name``, ``description``, ``allowed_tools`` and
``model``; the body is the system prompt. A malformed file is reported (in the
returned problems and as a warning) and skipped; the other files still load.
Whatever a file holds (binary bytes, invalid UTF-8, front matter nested
thousands deep, megabytes of text) or whatever it is (a directory, a FIFO, a
dangling link), it is one problem naming the file, never a crash.
"""

from __future__ import annotations

import os
import re
import stat
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from handoff_sim._errors._families import ConfigurationError

if TYPE_CHECKING:
    import yaml

__all__ = [
    "MAX_DEFINITION_BYTES",
    "MAX_FRONT_MATTER_DEPTH",
    "AgentDefinition",
    "AgentDefinitionError",
    "AgentDefinitionWarning",
    "DefinitionLoad",
    "load_agent_definition",
    "load_agent_definitions",
    "parse_agent_definition",
]

MAX_DEFINITION_BYTES = 1_000_000
"""A definition file larger than this (1 MB) is skipped unread: a prompt, not a data file."""

MAX_FRONT_MATTER_DEPTH = 50
"""Front matter nested deeper than this is refused before the YAML parser recurses."""

_DEEP_FLOW = re.compile(rf"[\[{{](?:[\s,]*[\[{{]){{{MAX_FRONT_MATTER_DEPTH}}}")
"""More opening brackets in a row than the depth bound: refused without parsing."""
_KEYS = {"name", "description", "allowed_tools", "allowedTools", "model"}


class AgentDefinitionError(ConfigurationError):
    """An agent definition file cannot be used; ``path`` names it."""

    def __init__(self, message: str, path: Path | str | None = None) -> None:
        super().__init__(message)
        self.path = path


class AgentDefinitionWarning(UserWarning):
    """An agent definition file was skipped because it is malformed."""


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentDefinition:
    """An agent type the dispatcher can delegate to."""

    name: str
    description: str
    system_prompt: str
    allowed_tools: tuple[str, ...] = ()
    model: str | None = None
    source: Path | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ConfigurationError("agent definition name is required")
        if isinstance(self.allowed_tools, str):
            raise ConfigurationError(
                f"agent definition {self.name!r}: allowed_tools must be a list of tool names"
            )
        object.__setattr__(self, "allowed_tools", tuple(self.allowed_tools))


class DefinitionLoad(NamedTuple):
    """What a directory held: the definitions (sorted by name) and the skipped files."""

    definitions: list[AgentDefinition]
    problems: list[AgentDefinitionError]


def parse_agent_definition(text: str, source: Path | str = "<string>") -> AgentDefinition:
    """One definition from Markdown text; AgentDefinitionError naming ``source`` otherwise."""
    if "\0" in text:
        raise AgentDefinitionError(
            f"Agent definition file holds a NUL byte (not a text file): {source}", source
        )
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    if not text.startswith("---\n"):
        raise AgentDefinitionError(
            f"Agent definition file is missing YAML frontmatter: {source}", source
        )
    lines = text.split("\n")
    close = next((i for i in range(1, len(lines)) if lines[i].rstrip() == "---"), None)
    if close is None:
        raise AgentDefinitionError(
            f"Agent definition file is missing closing '---' delimiter: {source}", source
        )
    body = "\n".join(lines[close + 1 :]).strip()
    if not body:
        raise AgentDefinitionError(
            f"Agent definition file has no system prompt body: {source}", source
        )
    meta = _front_matter("\n".join(lines[1:close]), source)
    return AgentDefinition(
        name=meta["name"],
        description=meta["description"],
        system_prompt=body,
        allowed_tools=meta["allowed_tools"],
        model=meta["model"],
        source=Path(source) if isinstance(source, Path) else None,
    )


def _front_matter(raw: str, source: Path | str) -> dict[str, Any]:
    def bad(problem: str) -> AgentDefinitionError:
        return AgentDefinitionError(
            f"Agent definition file has invalid frontmatter: {source}: {problem}", source
        )

    data = _parse_yaml(raw, bad)
    if not isinstance(data, Mapping):
        raise bad("expected a mapping of keys")
    unknown = sorted(str(k) for k in data if k not in _KEYS)
    if unknown:
        raise bad(f"unknown key(s) {unknown}")
    if "allowed_tools" in data and "allowedTools" in data:
        raise bad("give allowed_tools once (allowed_tools or allowedTools)")
    out: dict[str, Any] = {}
    for key in ("name", "description"):
        value = data.get(key)
        if not isinstance(value, str) or not value.strip():
            raise bad(f"'{key}' is required and must be a non-blank string")
        out[key] = value.strip()
    tools = data.get("allowed_tools", data.get("allowedTools")) or []
    if not isinstance(tools, list) or not all(isinstance(t, str) for t in tools):
        raise bad("'allowed_tools' must be a list of tool names")
    out["allowed_tools"] = tuple(tools)
    model = data.get("model")
    if model is not None and not isinstance(model, str):
        raise bad("'model' must be a string")
    out["model"] = model
    return out


def _parse_yaml(raw: str, bad: Callable[[str], AgentDefinitionError]) -> Any:
    """The front matter's data; ``bad(problem)`` for anything a parser refuses or chokes on."""
    import yaml  # only loaders need it; keeps `import handoff_sim` light

    deep = _DEEP_FLOW.search(raw)  # the parser would scan ahead ~1 s before refusing it
    if deep is not None:
        line = raw.count("\n", 0, deep.start()) + 2  # after the '---' line
        raise bad(
            f"not valid YAML at line {line} (nested deeper than {MAX_FRONT_MATTER_DEPTH} levels)"
        )
    try:
        return yaml.load(raw, Loader=_shallow_loader())  # a SafeLoader subclass
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f" at line {mark.line + 2}" if mark is not None else ""  # after the '---' line
        problem = exc.problem or exc.context or "unknown problem"
        raise bad(f"not valid YAML{where} ({problem})") from None
    except yaml.YAMLError as exc:
        raise bad(f"not valid YAML ({str(exc).splitlines()[0]})") from None
    except (RecursionError, ValueError) as exc:  # a huge integer, or recursion all the same
        reason = str(exc).splitlines()[0].split(";")[0]
        raise bad(f"not usable YAML ({type(exc).__name__}: {reason})") from None


@cache
def _shallow_loader() -> type[yaml.SafeLoader]:
    """A SafeLoader that refuses nodes nested deeper than MAX_FRONT_MATTER_DEPTH."""
    import yaml
    from yaml.composer import ComposerError

    class ShallowLoader(yaml.SafeLoader):
        depth = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            self.depth += 1
            try:
                if self.depth > MAX_FRONT_MATTER_DEPTH:
                    mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
                    problem = f"nested deeper than {MAX_FRONT_MATTER_DEPTH} levels"
                    raise ComposerError(None, None, problem, mark)
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

    return ShallowLoader


def load_agent_definition(path: str | os.PathLike[str]) -> AgentDefinition:
    """Parse one definition file; AgentDefinitionError if it cannot be used."""
    file = Path(path)
    return parse_agent_definition(_read(file), file)


def _read(file: Path) -> str:
    """The text of a regular UTF-8 file of at most MAX_DEFINITION_BYTES."""

    def unusable(problem: str) -> AgentDefinitionError:
        return AgentDefinitionError(f"Agent definition file {problem}: {file}", file)

    try:
        mode = file.stat().st_mode
        if not stat.S_ISREG(mode):
            kind = "a directory" if stat.S_ISDIR(mode) else "a special file"
            raise unusable(f"is not a regular file ({kind})")
        with file.open("rb") as handle:
            data = handle.read(MAX_DEFINITION_BYTES + 1)
    except OSError as exc:
        raise unusable(f"cannot be read ({exc.strerror or exc})") from None
    if len(data) > MAX_DEFINITION_BYTES:
        raise unusable(f"is larger than {MAX_DEFINITION_BYTES} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise unusable(f"is not valid UTF-8 (byte offset {exc.start})") from None


def load_agent_definitions(
    directory: str | os.PathLike[str], *, warn: bool = True
) -> DefinitionLoad:
    """Every ``*.md`` definition in ``directory``, sorted by name; bad files are skipped.

    Each skipped file is one problem (and one :class:`AgentDefinitionWarning`
    unless ``warn=False``). A missing directory holds nothing; a path that is
    not a directory raises ConfigurationError.
    """
    folder = Path(directory)
    if not folder.exists():
        return DefinitionLoad([], [])
    if not folder.is_dir():
        raise ConfigurationError(f"Not a directory: {folder}")
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".md"))
    except OSError as exc:
        raise ConfigurationError(
            f"Cannot list agent definition folder {folder}: {exc.strerror or exc}"
        ) from None
    found: dict[str, AgentDefinition] = {}
    problems: list[AgentDefinitionError] = []
    for file in (folder / n for n in names):
        try:
            definition = load_agent_definition(file)
            first = found.get(definition.name)
            if first is not None:
                raise AgentDefinitionError(
                    f"Agent definition name '{definition.name}' in {file} is already defined "
                    f"in {first.source}",
                    file,
                )
        except AgentDefinitionError as exc:
            problems.append(exc)
            if warn:
                warnings.warn(str(exc), AgentDefinitionWarning, stacklevel=2)
            continue
        found[definition.name] = definition
    return DefinitionLoad(sorted(found.values(), key=lambda d: d.name), problems)
