"""Type-checked, never run: mypy must find every ``assert_type`` here true.

``tests/typing/test_types.py`` runs mypy on this file; an error in it fails that test.
"""

from __future__ import annotations

from typing import Literal, assert_never, assert_type, cast

from handoff_sim import Trace
from handoff_sim._context import Frame, RunEnvironment
from handoff_sim.events import (
    DENIAL_REASONS,
    AnyEvent,
    ConfirmationDecisionEvent,
    ConfirmationRequestEvent,
    DenialReason,
    Event,
    EventStamp,
    HandoffAttemptEndEvent,
    HandoffAttemptStartEvent,
    HandoffEndEvent,
    HandoffStartEvent,
    HandoffStatus,
    ModelRequestEvent,
    ModelResponseEvent,
    RunEndEvent,
    RunStartEvent,
    ToolEndEvent,
    ToolStartEvent,
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
    assert_type(env.stamp(frame, 2)[3], int)
    env.publish(ToolEndEvent(*env.stamp(frame), call_id="c1", tool="t", status="ok", output=None))


def handoff_ends(trace: Trace, depth: int) -> None:
    """A handoff end with every field by name, as a test or an importer builds one."""
    end = HandoffEndEvent(
        handoff_id="handoff:c1",
        parent_handoff_id=None,
        call_id="c1",
        tool="subagent_w",
        subagent="w",
        session_mode="new_session",
        session_id="session-1",
        status="completed",
        reason=None,
        attempts=1,
        duration_ms=2.0,
        output="done",
        error=None,
        seq=1,
        t=0.0,
        agent="boss",
        depth=depth,
        run_id="run-1",
    )
    assert_type(end.type, Literal["handoff_end"])
    assert_type(HandoffEndEvent.type, Literal["handoff_end"])
    assert_type(end.status, HandoffStatus)


def describe(event: AnyEvent) -> str:
    """``match`` over every event type is exhaustive: ``assert_never`` takes what is left."""
    match event:
        case RunStartEvent() | RunEndEvent():
            return f"run {event.run_id}"
        case ModelRequestEvent(step=step) | ModelResponseEvent(step=step):
            return f"model step {step}"
        case ToolStartEvent() | ToolEndEvent():
            return f"tool {event.tool}"
        case HandoffStartEvent() | HandoffEndEvent():
            return f"handoff {event.handoff_id}"
        case HandoffAttemptStartEvent() | HandoffAttemptEndEvent():
            return f"attempt {event.attempt}"
        case ConfirmationRequestEvent():
            return f"confirm {len(event.call_ids)} calls"
        case ConfirmationDecisionEvent():
            return f"decided {event.decision}"
        case _:
            assert_never(event)


def describe_by_type(event: AnyEvent) -> str:
    """The ``type`` tag narrows the union too."""
    if event.type == "handoff_end":
        assert_type(event, HandoffEndEvent)
        return event.status
    return event.type


def describe_trace(trace: Trace) -> list[str]:
    """A trace's events are all of the union's types."""
    return [describe(cast(AnyEvent, event)) for event in trace]


def denial_reasons() -> None:
    """The one list of denial reasons is typed by its Literal."""
    assert_type(DENIAL_REASONS, tuple[DenialReason, ...])
