"""Pairing a huge fan-out stays linear: every consumer of the span model, at 30,000 handoffs.

The OpenTelemetry plan used to look through every open attempt for each child run: with
all 30,000 attempts open at once that is 9e8 steps (10,000 took 110 s here, so about a
quarter of an hour). The span model files open attempts by caller run and agent instead.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from handoff_sim import Trace, check_invariants
from handoff_sim.events import (
    Event,
    HandoffAttemptEndEvent,
    HandoffAttemptStartEvent,
    HandoffEndEvent,
    HandoffStartEvent,
    RunEndEvent,
    RunStartEvent,
)
from handoff_sim.report._spans import collect_spans
from tests._helpers import NEEDS_OTEL

FAN_OUT = 30_000
OUTER_LIMIT_S = 120.0  # generous: the pass takes a few seconds here


def _fan_out(count: int) -> list[Event]:
    """One run starts ``count`` handoffs and their attempts, then every child run, then ends."""
    boss: dict[str, Any] = {"agent": "boss", "depth": 0, "run_id": "boss"}
    events: list[Event] = [RunStartEvent(seq=0, t=0.0, input="go", session_id="s", **boss)]
    handoff: dict[str, Any] = {"tool": "delegate_w", **boss, "depth": 1}
    for i in range(count):
        ids: dict[str, Any] = {"handoff_id": f"handoff:c{i}", "call_id": f"c{i}"}
        events.append(
            HandoffStartEvent(
                seq=len(events), t=0.0, parent_handoff_id=None, subagent="w",
                session_mode="new_session", session_id=f"w{i}", **ids, **handoff,
            )
        )  # fmt: skip
        events.append(HandoffAttemptStartEvent(seq=len(events), t=0.0, attempt=1, **ids, **handoff))
    for i in range(count):
        child: dict[str, Any] = {"agent": "w", "depth": 1, "run_id": f"w-run{i}"}
        events.append(
            RunStartEvent(seq=len(events), t=0.0, input="x", session_id=f"w{i}",
                          parent_run_id="boss", **child)
        )  # fmt: skip
        events.append(RunEndEvent(seq=len(events), t=1.0, status="completed", output="ok",
                                  steps=1, **child))  # fmt: skip
    for i in range(count):
        ids = {"handoff_id": f"handoff:c{i}", "call_id": f"c{i}"}
        events.append(
            HandoffAttemptEndEvent(seq=len(events), t=1.0, attempt=1, outcome="ok",
                                   duration_ms=1000.0, **ids, **handoff)
        )  # fmt: skip
        events.append(
            HandoffEndEvent(
                seq=len(events), t=1.0, parent_handoff_id=None, subagent="w",
                session_mode="new_session", session_id=f"w{i}", status="completed",
                reason=None, attempts=1, duration_ms=1000.0, output="ok", error=None,
                **ids, **handoff,
            )
        )  # fmt: skip
    events.append(RunEndEvent(seq=len(events), t=1.0, status="completed", output="done",
                              steps=1, **boss))  # fmt: skip
    return events


def _within_limit(work: Callable[[], object]) -> Any:
    """Run ``work`` in a thread; fail (instead of hanging the suite) past the outer limit."""
    result: list[object] = []
    thread = threading.Thread(target=lambda: result.append(work()), daemon=True)
    thread.start()
    thread.join(OUTER_LIMIT_S)
    assert not thread.is_alive(), f"still pairing after {OUTER_LIMIT_S:g} s"
    return result[0]


@pytest.mark.slow
@NEEDS_OTEL
def test_thirty_thousand_open_attempts_each_get_their_own_child_run_span() -> None:
    from handoff_sim.otel._plan import plan_spans

    events = _fan_out(FAN_OUT)
    planned = _within_limit(lambda: plan_spans(events))
    runs = {s.attributes["handoff_sim.run_id"]: s for s in planned if s.key.startswith("run:")}
    for i in (0, FAN_OUT // 2, FAN_OUT - 1):
        parent = runs[f"w-run{i}"].parent
        assert parent is not None
        assert parent.key == f"attempt:boss:handoff:c{i}:1"


@pytest.mark.slow
def test_thirty_thousand_parallel_handoffs_pair_in_every_consumer() -> None:
    trace = Trace(_fan_out(FAN_OUT))
    records = _within_limit(trace.handoffs)
    assert len(records) == FAN_OUT
    assert trace.unbalanced() == []
    assert len(trace.tree()) == FAN_OUT
    assert _within_limit(lambda: check_invariants(trace)) == []
    spans = _within_limit(lambda: collect_spans(trace.events, trace.spans()))
    assert spans.handoffs == FAN_OUT
