"""``assert_trajectory``: the tool calls of a run, in a scope, against call patterns."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from handoff_sim.testing import TrajectoryResult, check_trajectory
from pytest_handoff._records import _fail, _trace

__all__ = ["assert_trajectory"]


def assert_trajectory(
    source: object,
    calls: Sequence[object],
    *,
    mode: str = "exact",
    scope: Mapping[str, object] | None = None,
    args: str = "exact",
    tool_args: Mapping[str, str] | None = None,
) -> TrajectoryResult:
    """Assert the tool calls of ``source`` (a trace or a run result) fit ``calls``.

    ``calls``: tool names or patterns ``{tool, args, args_mode, agent, count | min, max}``;
    ``mode``: exact | subsequence | per_branch | unordered | superset | subset; ``scope``:
    ``{agent, handoff, depth, branch}``; ``args``: the argument mode (exact | ignore |
    subset | superset), ``tool_args`` per tool. Returns the result; a failure raises
    :class:`HandoffAssertionError` naming each call missing, extra or out of order, in
    which scope, with the nearest candidate.
    """
    __tracebackhide__ = True
    result = check_trajectory(
        _trace(source, "assert_trajectory"),
        calls,
        mode=mode,
        scope=scope,
        args_mode=args,
        tool_args_modes=tool_args,
    )
    if not result.passed:
        _fail(result.message)
    return result
