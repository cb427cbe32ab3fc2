"""The export plan of handoffs that have no tool call, or no start: no crash, one span each."""

from __future__ import annotations

from typing import Any

import pytest

from handoff_sim.events import Event, HandoffEndEvent, HandoffStartEvent
from tests._helpers import skip_reason

pytest.importorskip("opentelemetry.sdk", reason=skip_reason("otel"))

from handoff_sim.otel._plan import plan_spans

_AT: dict[str, Any] = {"t": 0.5, "agent": "boss", "depth": 1, "run_id": "r"}
_IDS: dict[str, Any] = {
    "handoff_id": "handoff:c1",
    "parent_handoff_id": None,
    "call_id": "c1",
    "tool": "delegate_w",
    "subagent": "w",
    "session_mode": "new_session",
    "session_id": None,
}


def _end(seq: int) -> HandoffEndEvent:
    return HandoffEndEvent(
        seq=seq,
        status="completed",
        reason=None,
        attempts=0,
        duration_ms=0.0,
        output="ok",
        error=None,
        **_IDS,
        **_AT,
    )


def test_a_handoff_without_a_tool_call_is_exported_as_its_own_span() -> None:
    events: list[Event] = [HandoffStartEvent(seq=1, **_IDS, **_AT), _end(2)]
    [span] = plan_spans(events)
    assert (span.name, span.start_at, span.end_at) == ("execute_tool delegate_w", 0, 1)
    assert [e.attributes["handoff_sim.seq"] for e in span.events] == [1, 2]


def test_a_handoff_end_without_its_start_is_exported_at_its_end() -> None:
    [span] = plan_spans([_end(7)])
    assert (span.start_at, span.end_at) == (0, 0)
    assert span.attributes["handoff_sim.handoff.status"] == "completed"
