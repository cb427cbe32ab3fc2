"""``expect.trajectory``: checked against a run's trace, and its value patterns at load
(no captures in them).

Names (agents, tools) are not checked against the file: the same expectations are held to
recorded traces (``handoff-sim check --expect``), whose agents the file does not define; a
misspelt name fails with the nearest name the trace holds instead.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager

from handoff_sim._trajectory import check_spec, trajectory_spec
from handoff_sim.scenarios._expect._places import Finding, RelPath
from handoff_sim.scenarios._schema import (
    MATCHERS,
    CallExpect,
    ExpectSpec,
    Place,
    is_matcher,
    matcher_nodes,
    pattern_problems,
)
from handoff_sim.trace import Trace

__all__ = ["check_trajectories", "trajectory_findings"]

Add = Callable[[str, str, str, object, object], None]
"""``add(kind, message, field, expected, actual)`` records a mismatch."""

_NO_CAPTURE = (
    "a trajectory's calls are matched in no fixed order: its patterns cannot capture or "
    "refer to values"
)


def _value(value: object, place: Place, at: RelPath) -> Iterator[Finding]:
    if value is None or isinstance(value, str):
        return
    for path, message in pattern_problems(value, place):
        yield (*at, *path), message
    for path, node in matcher_nodes(value, place):
        if "capture" in node or "ref" in node:
            yield (*at, *path, "capture" if "capture" in node else "ref"), _NO_CAPTURE


def _call(call: CallExpect, at: RelPath) -> Iterator[Finding]:
    yield from _value(call.tool, "text", (*at, "tool"))
    yield from _value(call.agent, "text", (*at, "agent"))
    if "args" not in call.model_fields_set:
        return
    args = call.args
    if isinstance(args, dict) and not is_matcher(args) and not any(k in MATCHERS for k in args):
        # argument by argument, as the argument modes compare them: each value may be a matcher
        for key, value in args.items():
            yield from _value(value, "any", (*at, "args", key))
    else:
        yield from _value(args, "any", (*at, "args"))


def trajectory_findings(expect: ExpectSpec, at: RelPath) -> Iterator[Finding]:
    """Every problem of the value patterns of ``expect``'s trajectories."""
    many = isinstance(expect.trajectory, list)
    for index, wanted in enumerate(expect.trajectories()):
        base: RelPath = (*at, "trajectory", index) if many else (*at, "trajectory")
        for number, call in enumerate(wanted.calls):
            if isinstance(call, CallExpect):
                yield from _call(call, (*base, "calls", number))
        if wanted.scope is not None:
            yield from _value(wanted.scope.agent, "text", (*base, "scope", "agent"))
            yield from _value(wanted.scope.handoff, "text", (*base, "scope", "handoff"))


def check_trajectories(
    add: Add,
    patterns: Callable[[str], AbstractContextManager[None]],
    expect: ExpectSpec,
    trace: Trace,
) -> None:
    """Each trajectory: the calls of its scope against its patterns, in its mode.

    A mismatch's message is the head line; its ``expected`` holds the lines below it (one
    per problem, then the calls of the scope). ``patterns(field)`` bounds its regexes.
    """
    many = isinstance(expect.trajectory, list)
    for index, wanted in enumerate(expect.trajectories()):
        field = f"expect.trajectory.{index}" if many else "expect.trajectory"
        with patterns(field):
            result = check_spec(trace, trajectory_spec(**wanted.engine_args()))
            if not result.passed:
                head, *details = result.message.split("\n")
                add("trajectory", head, field, details, None)
