"""Type-checked, never run: mypy must find every ``assert_type`` here true.

``tests/typing/test_types.py`` runs mypy on this file; an error in it fails that test.
"""

from __future__ import annotations

from typing import assert_type

from handoff_sim import Trace
from handoff_sim._context import Frame, RunEnvironment
from handoff_sim.events import (
    DENIAL_REASONS,
    DenialReason,
    Event,
    EventStamp,
    HandoffEndEvent,
    HandoffStartEvent,
    ToolEndEvent,
    ToolStatus,
)
from pytest_handoff._builders import EventRecorder


def trace_queries(trace: Trace) -> None:
    """``Trace.of_type`` keeps the classes it is given."""
    assert_type(trace.of_type(HandoffEndEvent), list[HandoffEndEvent])
    assert_type(
        trace.of_type(HandoffStartEvent, HandoffEndEvent),
        list[HandoffStartEvent | HandoffEndEvent],
    )
    assert_type(trace.of_type("handoff_end"), list[Event])
    assert_type(trace.of_type("handoff_start", HandoffEndEvent), list[Event])
    assert_type(trace.of_type(ToolEndEvent)[0].status, ToolStatus)


def recorder_queries(recorder: EventRecorder) -> None:
    """The ``event_recorder`` fixture's ``of_type`` is typed the same way."""
    assert_type(recorder.of_type(HandoffEndEvent), list[HandoffEndEvent])
    assert_type(recorder.of_type("handoff_end"), list[Event])


def emitting(env: RunEnvironment, frame: Frame) -> None:
    """Events are built by their own constructors, the stamp included."""
    assert_type(env.stamp(frame), EventStamp)
    assert_type(env.stamp(frame, 2)["depth"], int)
    env.publish(ToolEndEvent(call_id="c1", tool="t", status="ok", output=None, **env.stamp(frame)))


def denial_reasons() -> None:
    """The one list of denial reasons is typed by its Literal."""
    assert_type(DENIAL_REASONS, tuple[DenialReason, ...])
