"""Load scenario files: YAML with line numbers, validation, checks, matrix expansion."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from handoff_sim._errors._families import ConfigurationError
from handoff_sim._files import UnreadableFile, read_regular
from handoff_sim._limits import MAX_SCENARIO_FILE_BYTES, MAX_YAML_DEPTH, MAX_YAML_NODES
from handoff_sim.scenarios._errors import Problem, ScenarioError, ScenarioFileError
from handoff_sim.scenarios._load._agent_types import AgentTypes, LoadFailure, load_agent_types
from handoff_sim.scenarios._load._checks import check_scenario, locate
from handoff_sim.scenarios._load._discovery import discover
from handoff_sim.scenarios._load._input_types import InputTypes, input_type_places
from handoff_sim.scenarios._load._style_checks import Finding
from handoff_sim.scenarios._load._validate import validation_problems
from handoff_sim.scenarios._load._yaml import FieldPath, ParsedYaml, SourceMap, dotted, parse_yaml
from handoff_sim.scenarios._schema import ExpectSpec, ScenarioListSpec, ScenarioSpec, VariantSpec

__all__ = ["LoadedScenario", "load_dict", "load_file", "load_path", "load_text"]

SUFFIXES = (".yaml", ".yml")
_PATH = type(Path())  # PosixPath or WindowsPath: what Path(...) makes


@dataclass(frozen=True, eq=False)
class LoadedScenario:
    """One runnable scenario, after matrix expansion, with the way back to its source lines.

    ``agent_types`` are the agent types the scenario refers to, loaded; ``input_types``
    its Flink input types by import path, imported only when the scenario is built (so
    loading runs no code the file names). ``load_error`` is an error raised while loading
    the agent types (a malformed agent definition file, say) that the scenario expects:
    running it yields that error. ``load_error_field`` is the key naming that material
    (``agent_types_dir``).
    """

    name: str
    variant: str | None
    path: Path
    line: int
    tags: tuple[str, ...]
    seed: int
    spec: ScenarioSpec
    source: SourceMap = field(repr=False)
    prefix: FieldPath = field(default=(), repr=False)
    variant_index: int | None = field(default=None, repr=False)
    variant_spec: VariantSpec | None = field(default=None, repr=False)
    agent_types: AgentTypes = field(default_factory=dict, repr=False)
    input_types: Mapping[str, object] = field(default_factory=dict, repr=False)
    load_error: ConfigurationError | None = field(default=None, repr=False)
    load_error_field: str = field(default="", repr=False)

    @property
    def id(self) -> str:
        """``name``, or ``name[variant]`` for a matrix variant."""
        return self.name if self.variant is None else f"{self.name}[{self.variant}]"

    def document_path(self, field_path: str) -> FieldPath:
        """Where ``field_path`` (relative to the scenario) is written in the file.

        A variant's overridden expectations and policies point into its ``matrix`` entry.
        """
        parts: FieldPath = tuple(int(p) if p.isdigit() else p for p in field_path.split(".") if p)
        return (*self.prefix, *self._variant_path(parts))

    def _variant_path(self, parts: FieldPath) -> FieldPath:
        variant, index = self.variant_spec, self.variant_index
        if variant is None or index is None:
            return parts
        matrix: FieldPath = ("matrix", index)
        overridden = variant.expect.model_fields_set if variant.expect is not None else set()
        if parts[:1] == ("expect",) and len(parts) > 1 and parts[1] in overridden:
            return (*matrix, *parts)
        if len(parts) > 2 and parts[0] == "agents" and parts[2] == "policy":
            patch = variant.policies.get(str(parts[1]))
            if patch is not None and (len(parts) == 3 or parts[3] in patch.model_fields_set):
                return (*matrix, "policies", parts[1], *parts[3:])
        return parts

    def location(self, field_path: str) -> int:
        """The 1-based line of a field of this scenario (``expect.handoffs.0``), for reports."""
        return self.source.position(self.document_path(field_path))[0]

    def field_name(self, field_path: str) -> str:
        """``field_path`` as written in the file (with ``scenarios.N.`` / ``matrix.N.``)."""
        return dotted(self.document_path(field_path))


def load_file(path: str | Path) -> list[LoadedScenario]:
    """Every scenario of one YAML file; raise ScenarioFileError listing every problem."""
    path = _as_path(path)
    return load_text(_read(path), path)


def _as_path(path: str | Path) -> Path:
    """``path`` as a ``Path``; a plain one is kept (a collected item's scenarios share it)."""
    return path if type(path) is _PATH else Path(path)


def _read(path: Path) -> str:
    """The file's text; a directory, a device, a FIFO, an unreadable file, a file over
    ``MAX_SCENARIO_FILE_BYTES`` or bad UTF-8 is a Problem at 1:1 (bad UTF-8: at its byte)."""
    try:
        raw = read_regular(path, MAX_SCENARIO_FILE_BYTES)
    except UnreadableFile as exc:
        raise ScenarioFileError(path, [Problem(str(path), 1, 1, "<file>", exc.reason)]) from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = raw[: exc.start].decode("utf-8", errors="replace")
        line = before.count("\n") + 1
        column = len(before) - (before.rfind("\n") + 1) + 1
        message = f"cannot read: not valid UTF-8 (byte 0x{raw[exc.start]:02x}: {exc.reason})"
        problem = Problem(str(path), line, column, "<file>", message)
        raise ScenarioFileError(path, [problem]) from None


def load_text(text: str, path: str | Path = "<string>") -> list[LoadedScenario]:
    """Every scenario of YAML ``text``; ``path`` names it in messages."""
    parsed = parse_yaml(text, str(path))
    if isinstance(parsed, Problem):
        raise ScenarioFileError(path, [parsed])
    return _load(parsed, _as_path(path))


def load_dict(mapping: Mapping[str, Any], *, source: str = "<dict>") -> list[LoadedScenario]:
    """Every scenario of a mapping shaped like a scenario file (lines refer to its YAML dump)."""
    too_big = _shape_problem(mapping)
    if too_big is not None:
        raise ScenarioFileError(source, [Problem(source, 1, 1, "<root>", too_big)])
    try:
        text = yaml.safe_dump(_plain(mapping), sort_keys=False, allow_unicode=True)
    except (yaml.YAMLError, ValueError) as exc:  # ValueError: an int too long to write
        problem = Problem(source, 1, 1, "<root>", f"not plain data: {exc}")
        raise ScenarioFileError(source, [problem]) from None
    parsed = parse_yaml(text, source)
    if isinstance(parsed, Problem):  # text no file may hold (a lone surrogate), or too much
        raise ScenarioFileError(source, [parsed])
    return _load(ParsedYaml(_plain(mapping), parsed.source, []), Path(source))


def load_path(path: str | Path) -> list[LoadedScenario]:
    """Scenarios of a file, or of every ``*.yaml``/``*.yml`` under a directory (sorted)."""
    path = Path(path)
    if path.is_dir():
        found = discover([path])  # each file once; a broken link or a link loop is an error
        if found.problems:
            raise ScenarioFileError(path, found.problems)
        return [scenario for file in found.files for scenario in load_file(file)]
    if not path.exists():
        raise ScenarioError(f"{path}: no such file or directory")
    return load_file(path)


def _shape_problem(value: Any) -> str | None:
    """Why plain data is too deep or too large to load (a cycle is too deep), or None."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    count = 0
    while stack:
        item, depth = stack.pop()
        count += 1
        if depth > MAX_YAML_DEPTH:
            return f"nested deeper than {MAX_YAML_DEPTH} levels (or it contains itself)"
        if count > MAX_YAML_NODES:
            return f"more than {MAX_YAML_NODES} values"
        if isinstance(item, Mapping):
            stack.extend((v, depth + 1) for pair in item.items() for v in pair)
        elif isinstance(item, list | tuple):
            stack.extend((v, depth + 1) for v in item)
    return None


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _load(parsed: ParsedYaml, path: Path) -> list[LoadedScenario]:
    label = str(path)
    data, source = parsed.data, parsed.source
    problems = list(parsed.problems)
    if not isinstance(data, dict):
        what = "empty" if data is None else f"a {type(data).__name__}"
        line, column = source.position(())
        message = f"a scenario file must be a mapping with 'scenario' (or 'scenarios'), got {what}"
        raise ScenarioFileError(path, [*problems, Problem(label, line, column, "<root>", message)])
    items: list[tuple[FieldPath, Any]] = [((), data)]
    if "scenarios" in data and "scenario" not in data:
        try:
            ScenarioListSpec.model_validate(data)
        except ValidationError as exc:
            problems += validation_problems(exc, ScenarioListSpec, source, (), label)
            raise ScenarioFileError(path, problems) from None
        items = [(("scenarios", i), item) for i, item in enumerate(data["scenarios"])]
    specs = _validate_all(items, source, label, problems)
    _check_unique_names(specs, source, label, problems)
    loaded: list[LoadedScenario] = []
    for prefix, spec in specs:
        found, findings, failures = load_agent_types(spec, path.parent)
        input_types = _input_types(spec, path, source, prefix)  # recorded, not imported
        scenarios = _expand(spec, path, source, prefix, found, input_types)
        deferred, unexpected = _defer(scenarios, failures)
        problems += locate([*findings, *unexpected], source, prefix, label)
        loaded += deferred
    if problems:
        raise ScenarioFileError(path, problems)
    return loaded


def _input_types(
    spec: ScenarioSpec, path: Path, source: SourceMap, prefix: FieldPath
) -> InputTypes:
    """The scenario's Flink input types, each imported when the scenario is built; one that
    does not resolve then names ``path:line:col`` and its key."""
    places = {}
    for reference, at in input_type_places(spec).items():
        where = (*prefix, *at)
        line, column = source.position(where)
        places[reference] = f"{path}:{line}:{column}: {dotted(where)}"
    return InputTypes(places, path)


def _defer(
    scenarios: list[LoadedScenario], failures: list[LoadFailure]
) -> tuple[list[LoadedScenario], list[Finding]]:
    """The scenarios carrying their load failures as the error they expect, or the
    failures as load problems when a scenario (or one matrix variant) expects no error."""
    if not failures:
        return scenarios, []
    unexpected = [s for s in scenarios if not _expects_error(s.spec)]
    if unexpected:
        note = ""
        if len(unexpected) < len(scenarios):
            ids = ", ".join(f"'{s.variant}'" for s in unexpected)
            note = f"; matrix variant {ids} expects no error"
        return [], [(at, message + note) for at, message in (f.finding() for f in failures)]
    error, where = _load_error(failures), ".".join(map(str, failures[0].at))
    return [replace(s, load_error=error, load_error_field=where) for s in scenarios], []


def _expects_error(spec: ScenarioSpec) -> bool:
    """Whether the scenario expects its run to raise before the first turn's output."""
    first = spec.turns()[0].expect
    return spec.expect.error is not None or (first is not None and first.error is not None)


def _load_error(failures: list[LoadFailure]) -> ConfigurationError:
    """The error of the failures: the only one, or one error naming them all."""
    if len(failures) == 1:
        return failures[0].error
    kinds = {type(f.error) for f in failures}
    kind = kinds.pop() if len(kinds) == 1 else ConfigurationError
    return kind("; ".join(str(f.error) for f in failures))


def _validate_all(
    items: list[tuple[FieldPath, Any]], source: SourceMap, label: str, problems: list[Problem]
) -> list[tuple[FieldPath, ScenarioSpec]]:
    specs = []
    for prefix, item in items:
        try:
            spec = ScenarioSpec.model_validate(item)
        except ValidationError as exc:
            problems += validation_problems(exc, ScenarioSpec, source, prefix, label)
            continue
        problems += check_scenario(spec, source, prefix, label)
        specs.append((prefix, spec))
    return specs


def _check_unique_names(
    specs: list[tuple[FieldPath, ScenarioSpec]],
    source: SourceMap,
    label: str,
    problems: list[Problem],
) -> None:
    first: dict[str, int] = {}
    for prefix, spec in specs:
        at = (*prefix, "scenario")
        line, column = source.position(at)
        if spec.scenario in first:
            message = (
                f"duplicate scenario name '{spec.scenario}' (first at line {first[spec.scenario]})"
            )
            problems.append(Problem(label, line, column, dotted(at), message))
        else:
            first[spec.scenario] = line


def _expand(
    spec: ScenarioSpec,
    path: Path,
    source: SourceMap,
    prefix: FieldPath,
    types: AgentTypes,
    input_types: InputTypes,
) -> list[LoadedScenario]:
    line = source.position((*prefix, "scenario"))[0]
    variants: list[tuple[int | None, VariantSpec | None]] = list(enumerate(spec.matrix or ()))
    if not variants:
        variants = [(None, None)]
    return [
        LoadedScenario(
            name=spec.scenario,
            variant=variant.id if variant is not None else None,
            path=path,
            line=line,
            tags=tuple(spec.tags),
            seed=spec.seed,
            spec=_apply(spec, variant) if variant is not None else spec,
            source=source,
            prefix=prefix,
            variant_index=index,
            variant_spec=variant,
            agent_types=types,
            input_types=input_types,
        )
        for index, variant in variants
    ]


def _apply(spec: ScenarioSpec, variant: VariantSpec) -> ScenarioSpec:
    """The scenario with a variant's policy and expectation overrides and removals applied."""
    agents = dict(spec.agents)
    for name, patch in variant.policies.items():
        agent = agents.get(name)
        if agent is None:  # an undefined agent: reported by the checks
            continue
        base = agent.policy
        update = {k: getattr(patch, k) for k in patch.model_fields_set}
        policy = base.model_copy(update=update) if base is not None else patch
        agents[name] = agent.model_copy(update={"policy": policy})
    expect = spec.expect
    if variant.expect is not None:
        overrides = {k: getattr(variant.expect, k) for k in variant.expect.model_fields_set}
        expect = expect.model_copy(update=overrides)
    if variant.unset:
        removed = {key.removeprefix("expect.") for key in variant.unset}
        kept = {k: getattr(expect, k) for k in expect.model_fields_set - removed}
        expect = ExpectSpec.model_construct(_fields_set=set(kept), **kept)  # already validated
    return spec.model_copy(update={"agents": agents, "expect": expect, "matrix": None})
