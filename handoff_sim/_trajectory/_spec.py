"""What a trajectory expectation says, read from plain data: modes, call patterns, a scope.

The scenario loader checks the written form with file:line; Python callers hand the same
shapes to :func:`trajectory_spec`, which raises :class:`TrajectorySpecError` naming the
offending key (with a did-you-mean) instead.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, cast, get_args

from handoff_sim._errors._families import ConfigurationError
from handoff_sim._matchers import is_matcher

__all__ = [
    "ARGS_MODES",
    "MODES",
    "UNSET",
    "ArgsMode",
    "CallPattern",
    "Mode",
    "Scope",
    "TrajectorySpec",
    "TrajectorySpecError",
    "trajectory_spec",
]

Mode = Literal["exact", "subsequence", "per_branch", "unordered", "superset", "subset"]
ArgsMode = Literal["exact", "ignore", "subset", "superset"]
MODES: tuple[str, ...] = get_args(Mode)
ARGS_MODES: tuple[str, ...] = get_args(ArgsMode)
PATTERN_KEYS = ("tool", "args", "args_mode", "agent", "count", "min", "max")
SCOPE_KEYS = ("agent", "handoff", "depth", "branch")


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


UNSET = _Unset()
"""A pattern's ``args`` when none were given: any arguments fit."""


class TrajectorySpecError(ConfigurationError):
    """A trajectory expectation written wrong: names the key and what it must be."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CallPattern:
    """One expected call: ``tool`` and ``agent`` are text or matchers, ``args`` any value."""

    tool: object = None
    args: object = UNSET
    args_mode: ArgsMode | None = None
    agent: object = None
    minimum: int = 1
    maximum: int | None = 1
    bounded: bool = False
    """Given ``count``, ``min`` or ``max``: every call of the scope that fits counts."""
    written: Mapping[str, object] = field(default_factory=dict)

    def bound_text(self) -> str:
        """``count 2``, ``min 1``, ``1 to 3``: the bound as written."""
        if self.minimum == self.maximum:
            return f"count {self.minimum}"
        if self.maximum is None:
            return f"min {self.minimum}"
        return f"max {self.maximum}" if self.minimum == 0 else f"{self.minimum} to {self.maximum}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Scope:
    """Which calls a trajectory looks at; every key given must hold (none: all calls)."""

    agent: object = None
    handoff: object = None
    depth: int | None = None
    branch: tuple[str, ...] | None = None
    written: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class TrajectorySpec:
    """A whole trajectory expectation."""

    calls: tuple[CallPattern, ...]
    mode: Mode = "exact"
    scope: Scope = Scope()
    args_mode: ArgsMode = "exact"
    tool_args_modes: Mapping[str, ArgsMode] = field(default_factory=dict)

    def args_mode_of(self, pattern: CallPattern, tool: str) -> ArgsMode:
        """The pattern's own mode, else the tool's override, else the trajectory's."""
        if pattern.args_mode is not None:
            return pattern.args_mode
        return self.tool_args_modes.get(tool, self.args_mode)


def _fail(where: str, message: str) -> TrajectorySpecError:
    return TrajectorySpecError(f"{where}: {message}")


def _unknown(where: str, key: object, known: Sequence[str]) -> TrajectorySpecError:
    close = difflib.get_close_matches(str(key), known, n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else f"; known: {', '.join(known)}"
    return _fail(where, f"unknown key '{key}'{hint}")


def _choice(where: str, value: object, allowed: Sequence[str]) -> str:
    if isinstance(value, str) and value in allowed:
        return value
    close = difflib.get_close_matches(str(value), allowed, n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    raise _fail(where, f"must be one of {', '.join(allowed)}, not {value!r}{hint}")


def _args_mode(where: str, value: object) -> ArgsMode:
    return cast("ArgsMode", _choice(where, value, ARGS_MODES))


def _no_captures(where: str, value: object) -> None:
    """Trajectories compare calls in no fixed order, so a capture or a ref has no meaning."""
    if isinstance(value, Mapping):
        if is_matcher(value) and ("capture" in value or "ref" in value):
            raise _fail(where, "a trajectory pattern cannot capture or refer to a value")
        for key, item in value.items():
            _no_captures(f"{where}.{key}", item)
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            _no_captures(f"{where}.{index}", item)


def _count(where: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _fail(where, f"must be an integer >= 0, not {value!r}")
    return value


def _text(where: str, value: object) -> object:
    if value is None or isinstance(value, str) or is_matcher(value):
        return value
    raise _fail(where, "must be text or a matcher such as {match: regex}")


def _bounds(where: str, item: Mapping[str, object]) -> tuple[int, int | None, bool]:
    if "count" in item and ("min" in item or "max" in item):
        raise _fail(f"{where}.count", "give either 'count' or 'min'/'max', not both")
    if "count" in item:
        count = _count(f"{where}.count", item["count"])
        return count, count, True
    if "min" not in item and "max" not in item:
        return 1, 1, False
    low = _count(f"{where}.min", item.get("min", 0))
    high = None if item.get("max") is None else _count(f"{where}.max", item["max"])
    if high is not None and high < low:
        raise _fail(f"{where}.max", f"must be >= min ({low}), not {high}")
    return low, high, True


def call_pattern(item: object, where: str = "calls.0") -> CallPattern:
    """One call pattern: a tool name, or a mapping of :data:`PATTERN_KEYS`."""
    if isinstance(item, str):
        return CallPattern(tool=item, written={"tool": item})
    if not isinstance(item, Mapping):
        raise _fail(where, "must be a tool name or a mapping such as {tool: sql, args: {...}}")
    for key in item:
        if key not in PATTERN_KEYS:
            raise _unknown(where, key, PATTERN_KEYS)
    mode = item.get("args_mode")
    _no_captures(where, {k: v for k, v in item.items() if k in ("tool", "args", "agent")})
    low, high, bounded = _bounds(where, item)
    return CallPattern(
        tool=_text(f"{where}.tool", item.get("tool")),
        args=item.get("args", UNSET),
        args_mode=None if mode is None else _args_mode(f"{where}.args_mode", mode),
        agent=_text(f"{where}.agent", item.get("agent")),
        minimum=low,
        maximum=high,
        bounded=bounded,
        written=dict(item),
    )


def scope_of(value: object, where: str = "scope") -> Scope:
    """A scope: a mapping of :data:`SCOPE_KEYS` (None or empty: every call)."""
    if value is None:
        return Scope()
    if not isinstance(value, Mapping):
        raise _fail(where, "must be a mapping such as {agent: billing} or {handoff: delegate_x}")
    for key in value:
        if key not in SCOPE_KEYS:
            raise _unknown(where, key, SCOPE_KEYS)
    branch = value.get("branch")
    if branch is not None and (
        isinstance(branch, str)
        or not isinstance(branch, Sequence)
        or not branch
        or not all(isinstance(a, str) for a in branch)
    ):
        raise _fail(f"{where}.branch", "must be a list of agent names, the top-level agent first")
    depth = value.get("depth")
    return Scope(
        agent=_text(f"{where}.agent", value.get("agent")),
        handoff=_text(f"{where}.handoff", value.get("handoff")),
        depth=None if depth is None else _count(f"{where}.depth", depth),
        branch=None if branch is None else tuple(branch),
        written=dict(value),
    )


def trajectory_spec(
    calls: Sequence[object],
    *,
    mode: str = "exact",
    scope: Mapping[str, object] | None = None,
    args_mode: str = "exact",
    tool_args_modes: Mapping[str, str] | None = None,
) -> TrajectorySpec:
    """A :class:`TrajectorySpec` from plain values; :class:`TrajectorySpecError` if wrong."""
    if isinstance(calls, str | bytes) or not isinstance(calls, Sequence):
        raise _fail("calls", "must be a list of call patterns")
    overrides = {
        str(tool): _args_mode(f"tool_args_modes.{tool}", m)
        for tool, m in (tool_args_modes or {}).items()
    }
    return TrajectorySpec(
        calls=tuple(call_pattern(item, f"calls.{i}") for i, item in enumerate(calls)),
        mode=cast("Mode", _choice("mode", mode, MODES)),
        scope=scope_of(scope),
        args_mode=_args_mode("args_mode", args_mode),
        tool_args_modes=overrides,
    )
