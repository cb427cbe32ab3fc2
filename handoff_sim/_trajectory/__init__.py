"""Trajectory expectations: the tool calls of a trace, in a scope, against call patterns.

Modes as agentevals names them (``exact`` is its ``strict``) plus the trace engine's
``subsequence`` and ``per_branch``; argument modes per call and per tool; call-count
bounds; scopes by agent, handoff subtree, depth and branch of the delegation tree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from handoff_sim._trajectory._calls import Call, calls_of
from handoff_sim._trajectory._fit import in_scope
from handoff_sim._trajectory._modes import Problem, problems
from handoff_sim._trajectory._report import describe_scope, render
from handoff_sim._trajectory._spec import (
    ARGS_MODES,
    MODES,
    ArgsMode,
    CallPattern,
    Mode,
    Scope,
    TrajectorySpec,
    TrajectorySpecError,
    trajectory_spec,
)
from handoff_sim.events import Event
from handoff_sim.trace import Trace

__all__ = [
    "ARGS_MODES",
    "MODES",
    "ArgsMode",
    "Call",
    "CallPattern",
    "Mode",
    "Problem",
    "Scope",
    "TrajectoryResult",
    "TrajectorySpec",
    "TrajectorySpecError",
    "calls_of",
    "check_spec",
    "check_trajectory",
    "describe_scope",
    "trajectory_spec",
]


@dataclass(frozen=True, slots=True)
class TrajectoryResult:
    """The outcome of one trajectory check: ``passed``, the problems and the message."""

    spec: TrajectorySpec
    calls: tuple[Call, ...]
    """The calls of the scope, in the order they started."""
    problems: tuple[Problem, ...]
    message: str
    """Empty when it passed; else the failure in words."""

    @property
    def passed(self) -> bool:
        """Whether the calls hold the expectation."""
        return not self.problems


def check_spec(trace: Trace, spec: TrajectorySpec) -> TrajectoryResult:
    """Check ``trace``'s calls in ``spec``'s scope against ``spec``."""
    every = calls_of(trace)
    scoped = [c for c in every if in_scope(spec.scope, c)]
    others = [c for c in every if not in_scope(spec.scope, c)]
    found = problems(spec, scoped)
    message = render(spec, found, scoped, others) if found else ""
    return TrajectoryResult(spec, tuple(scoped), tuple(found), message)


def check_trajectory(
    source: Trace | Sequence[Event],
    calls: Sequence[object],
    *,
    mode: str = "exact",
    scope: Mapping[str, object] | None = None,
    args_mode: str = "exact",
    tool_args_modes: Mapping[str, str] | None = None,
) -> TrajectoryResult:
    """Check the tool calls of ``source`` against ``calls`` (tool names or patterns).

    ``mode``: exact | subsequence | per_branch | unordered | superset | subset; ``scope``:
    ``{agent, handoff, depth, branch}``; ``args_mode``: exact | ignore | subset | superset,
    overridden per tool by ``tool_args_modes`` and per pattern by its own ``args_mode``.
    A wrong expectation raises :class:`TrajectorySpecError`.
    """
    spec = trajectory_spec(
        calls, mode=mode, scope=scope, args_mode=args_mode, tool_args_modes=tool_args_modes
    )
    trace = source if isinstance(source, Trace) else Trace(source)
    return check_spec(trace, spec)
