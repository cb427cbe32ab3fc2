"""A trajectory over ten thousand calls checks in well under a second per mode: a bounded
pattern's copies share one row of fits and each scan walks a pattern's calls once (the
first engine built a row per copy, a hundred million fits here: it did not end in an hour)."""

from __future__ import annotations

import json
import threading

import pytest

from handoff_sim import Trace
from handoff_sim.events import Event, RunEndEvent, RunStartEvent, ToolEndEvent, ToolStartEvent
from handoff_sim.testing import TrajectoryResult, check_trajectory

CALLS = 10_000


def _trace() -> Trace:
    events: list[Event] = [RunStartEvent(0, 0.0, "main", 0, "run-1", input="go", session_id="s")]
    for i in range(CALLS):
        tool = "sql" if i % 2 else "lookup"
        arguments = json.dumps({"i": i})
        events.append(
            ToolStartEvent(
                2 * i + 1, 0.0, "main", 0, "run-1", call_id=f"c{i}", tool=tool, arguments=arguments
            )
        )
        events.append(
            ToolEndEvent(
                2 * i + 2,
                0.0,
                "main",
                0,
                "run-1",
                call_id=f"c{i}",
                tool=tool,
                status="ok",
                output="x",
            )
        )
    events.append(
        RunEndEvent(2 * CALLS + 1, 0.0, "main", 0, "run-1", status="completed", output="d", steps=1)
    )
    return Trace(events)


TRACE = _trace()


def _within(seconds: float, mode: str, calls: list[object]) -> TrajectoryResult:
    """The check, or a failure once ``seconds`` of real time pass (a generous outer limit)."""
    done: list[TrajectoryResult] = []
    worker = threading.Thread(target=lambda: done.append(check_trajectory(TRACE, calls, mode=mode)))
    worker.start()
    worker.join(seconds)
    assert done, f"{mode}: no answer within {seconds}s"
    return done[0]


@pytest.mark.slow  # ten thousand calls in each mode
@pytest.mark.parametrize(
    "mode", ["exact", "subsequence", "per_branch", "unordered", "superset", "subset"]
)
def test_ten_thousand_calls_against_bounded_patterns_check_in_linear_time(mode: str) -> None:
    holds = _within(60, mode, [{"tool": {"match": "."}, "min": 0}])
    assert holds.passed, holds.message
    fails = _within(60, mode, [{"tool": "sql", "max": 10}, "nothing"])
    assert not fails.passed
    assert fails.message.count("\n  - ") <= 21  # at most 20 problems written out, then a count
