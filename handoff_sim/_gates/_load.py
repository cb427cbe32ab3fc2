"""Gates from a YAML file (problems at ``file:line:col``), from ``KEY=VALUE`` options and
from keyword arguments, all through one validation of :class:`Gates`."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from handoff_sim._gates._errors import GateSpecError
from handoff_sim._gates._spec import Gates, LatencyGates, Thresholds
from handoff_sim.scenarios import Problem
from handoff_sim.scenarios._load import FieldPath, ParsedYaml, dotted, parse_yaml

__all__ = ["SHORT_NAMES", "gates_from", "load_gates", "parse_gate_options"]

SHORT_NAMES: dict[str, tuple[str, ...]] = {
    "p50": ("handoff_latency", "p50"),
    "p95": ("handoff_latency", "p95"),
    "p99": ("handoff_latency", "p99"),
    "max_latency": ("handoff_latency", "max"),
    "forbidden": ("forbidden_tools",),
}
"""Option and keyword names that stand for a longer path of the gate file."""


def load_gates(path: str | Path) -> Gates:
    """The gates of a YAML gate file; :class:`GateSpecError` naming each problem's place."""
    from handoff_sim._files import UnreadableFile, read_regular
    from handoff_sim._limits import MAX_SCENARIO_FILE_BYTES

    label = str(path)
    try:
        text = read_regular(Path(path), MAX_SCENARIO_FILE_BYTES).decode("utf-8")
    except UnreadableFile as exc:
        raise GateSpecError([Problem(label, 1, 1, "<file>", exc.reason)]) from None
    except UnicodeDecodeError:
        raise GateSpecError([Problem(label, 1, 1, "<file>", "not valid UTF-8")]) from None
    parsed = parse_yaml(text, label)
    if isinstance(parsed, Problem):
        raise GateSpecError([parsed])
    if parsed.problems:
        raise GateSpecError(parsed.problems)
    data = {} if parsed.data is None else parsed.data
    return _validated(data, parsed, label)


def _validated(
    data: object, parsed: ParsedYaml | None, label: str | Callable[[FieldPath], str]
) -> Gates:
    if not isinstance(data, Mapping):
        raise GateSpecError([Problem(str(label), 1, 1, "<root>", "must be a mapping of gates")])
    try:
        return Gates.model_validate(data)
    except ValidationError as exc:
        raise GateSpecError(_problems(exc, parsed, label)) from None


def _problems(
    exc: ValidationError, parsed: ParsedYaml | None, label: str | Callable[[FieldPath], str]
) -> list[Problem]:
    """A problem per error: at its line and column in a file, else (line 0) at no place."""
    found = []
    for err in exc.errors(include_url=False):
        loc = tuple(err["loc"])
        line, column = parsed.source.position(loc) if parsed is not None else (0, 0)
        message = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            message = _unknown(loc)
        where = label(loc) if callable(label) else label
        found.append(Problem(where, line, column, dotted(loc), message))
    return found


def _fields_at(loc: Sequence[str | int]) -> list[str]:
    """The keys a gate file takes where ``loc`` ends (for "did you mean")."""
    model: type[BaseModel] = Gates
    if loc[:1] == ("handoff_latency",):
        model = LatencyGates if len(loc) == 2 else Thresholds
    return list(model.model_fields)


def _unknown(loc: Sequence[str | int]) -> str:
    names = _fields_at(loc)
    key = str(loc[-1])
    near = difflib.get_close_matches(key, [*names, *SHORT_NAMES] if len(loc) == 1 else names, 1)
    hint = f"; did you mean {near[0]!r}?" if near else f" (known: {', '.join(names)})"
    return f"unknown gate {key!r}{hint}"


def gates_from(gates: Gates | str | Path | Mapping[str, Any] | None, **thresholds: Any) -> Gates:
    """``gates`` (a :class:`Gates`, a gate file or a mapping of its form) with ``thresholds``
    set over it; keywords take the file's keys or the short names (``p95``, ``forbidden``)."""
    if isinstance(gates, Gates):
        base: dict[str, Any] = gates.model_dump(exclude_unset=True)
    elif isinstance(gates, str | Path):
        base = load_gates(gates).model_dump(exclude_unset=True)
    else:
        base = dict(gates or {})
    for key, value in thresholds.items():
        path = SHORT_NAMES.get(key, (key,))
        if path == ("forbidden_tools",) and isinstance(value, str):
            value = _forbidden(value)
        _set(base, path, value)
    return _validated(base, None, lambda loc: f"gate {loc[0]}" if loc else "gates")


def parse_gate_options(options: Iterable[str], base: Gates | None = None) -> Gates:
    """``--gate KEY=VALUE`` options over ``base``; KEY is a short name or a dotted path of
    the gate file (``handoff_latency.per_tool.delegate_billing.p95``); VALUE is read as YAML."""
    data: dict[str, Any] = base.model_dump(exclude_unset=True) if base is not None else {}
    problems = []
    given: dict[tuple[str, ...], str] = {}
    for option in options:
        key, sep, raw = option.partition("=")
        key = key.strip()
        where = f"--gate {option}"
        if not sep or not key:
            problems.append(Problem(where, 0, 0, "<option>", "expected KEY=VALUE, like p95=30s"))
            continue
        path = SHORT_NAMES.get(key) or tuple(key.split("."))
        if path[0] not in Gates.model_fields:
            problems.append(Problem(where, 0, 0, key, _unknown((path[0],))))
            continue
        given[path] = option
        value = _forbidden(raw) if path == ("forbidden_tools",) else _scalar(raw)
        _set(data, path, value, merge=path == ("forbidden_tools",))
    try:
        gates = _validated(data, None, lambda loc: _option_of(given, loc))
    except GateSpecError as exc:
        problems.extend(exc.problems)
    if problems:
        raise GateSpecError(problems)
    return gates


def _option_of(given: Mapping[tuple[str, ...], str], loc: FieldPath) -> str:
    """The ``--gate`` option that set the field at ``loc`` (``--gate`` when none did)."""
    for path, option in given.items():
        if tuple(str(p) for p in loc[: len(path)]) == path:
            return f"--gate {option}"
    return "--gate"


def _scalar(raw: str) -> Any:
    try:
        return yaml.safe_load(raw)
    except yaml.YAMLError:
        return raw


def _forbidden(raw: str) -> dict[str, list[str]]:
    """``AGENT:TOOL[,TOOL...]`` as ``{agent: [tools]}``."""
    agent, _, tools = raw.partition(":")
    return {agent.strip(): [t.strip() for t in tools.split(",") if t.strip()] or [""]}


def _set(data: dict[str, Any], path: Sequence[str], value: Any, *, merge: bool = False) -> None:
    """Put ``value`` at ``path``; with ``merge`` a mapping's lists grow rather than replace."""
    *parents, last = path
    node = data
    for part in parents:
        child = node.get(part)
        if not isinstance(child, dict):
            child = node[part] = {}
        node = child
    held = node.get(last)
    if merge and isinstance(held, dict) and isinstance(value, dict):
        for key, items in value.items():
            held.setdefault(key, [])
            held[key] = [*held[key], *items]
        return
    node[last] = value
