"""Agent definitions: Markdown files with YAML front matter (K6).

The front matter holds ``name``, ``description``, ``allowed_tools`` and
``model``; the body is the system prompt. A malformed file is reported (in the
returned problems and as a warning) and skipped; the other files still load.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from handoff_sim.errors import ConfigurationError

__all__ = [
    "AgentDefinition",
    "AgentDefinitionError",
    "AgentDefinitionWarning",
    "DefinitionLoad",
    "load_agent_definition",
    "load_agent_definitions",
    "parse_agent_definition",
]

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
    """An agent type the dispatcher can delegate to (K1, K2)."""

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

    import yaml  # only loaders need it; keeps `import handoff_sim` light

    try:
        data = yaml.safe_load(raw)
    except yaml.YAMLError as exc:
        raise bad(f"not valid YAML ({str(exc).splitlines()[0]})") from None
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


def load_agent_definition(path: str | os.PathLike[str]) -> AgentDefinition:
    """Parse one definition file; AgentDefinitionError if it cannot be used."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise AgentDefinitionError(
            f"Agent definition file cannot be read: {file}: {exc}", file
        ) from None
    return parse_agent_definition(text, file)


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
    found: dict[str, AgentDefinition] = {}
    problems: list[AgentDefinitionError] = []
    for file in sorted(p for p in folder.glob("*.md") if p.is_file()):
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
