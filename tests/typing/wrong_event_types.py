"""Type-checked, never run: mypy must report an error on every line marked ``# wrong``.

``tests/typing/test_types.py`` checks that it does: the typing checks can fail.
"""

from __future__ import annotations

from typing import Literal, assert_never, assert_type

from handoff_sim import Trace
from handoff_sim._context import Frame, RunEnvironment
from handoff_sim.events import AnyEvent, Event, HandoffEndEvent, HandoffStartEvent, ToolEndEvent


def wrong(trace: Trace, env: RunEnvironment, frame: Frame) -> None:
    """Each marked line is a mistake mypy catches."""
    assert_type(trace.of_type(HandoffEndEvent), list[Event])  # wrong
    s = env.stamp(frame)
    env.publish(ToolEndEvent(*s, call_id="c", tool="t", status="done", output=None))  # wrong
    env.publish(ToolEndEvent(*s, call_id=1, tool="t", status="ok", output=None))  # wrong
    env.publish(ToolEndEvent(*s, tool="t", status="ok", output=None))  # wrong
    env.publish(ToolEndEvent(*s, call_id="c", tool="t", status="ok", output="", seq=1))  # wrong
    env.publish(ToolEndEvent(*s, "c", "t", "ok", None))  # wrong
    env.publish(ToolEndEvent(*s[:4], call_id="c", tool="t", status="ok", output=None))  # wrong


def wrong_handoff_ends(env: RunEnvironment, frame: Frame, now: int, started: int) -> None:
    """A handoff end built as the executor builds one, each time with one mistake."""
    stamp = env.stamp(frame, frame.depth + 1, now)
    env.publish(
        HandoffEndEvent(  # wrong
            *stamp,
            handof_id="handoff:c1",
            parent_handoff_id=None,
            call_id="c1",
            tool="t",
            subagent="w",
            session_mode="new_session",
            session_id=None,
            status="completed",
            reason=None,
            attempts=1,
            duration_ms=(now - started) / 1000,
            output=None,
            error=None,
        )
    )
    env.publish(
        HandoffEndEvent(
            *stamp,
            handoff_id="handoff:c1",
            parent_handoff_id=None,
            call_id="c1",
            tool="t",
            subagent="w",
            session_mode="new_session",
            session_id=None,
            status="completed",
            reason=None,
            attempts="1",  # wrong
            duration_ms=(now - started) / 1000,
            output=None,
            error=None,
        )
    )
    env.publish(
        HandoffEndEvent(  # wrong
            *stamp,
            handoff_id="handoff:c1",
            parent_handoff_id=None,
            call_id="c1",
            tool="t",
            subagent="w",
            session_mode="new_session",
            session_id=None,
            status="completed",
            reason=None,
            duration_ms=(now - started) / 1000,
            output=None,
            error=None,
        )
    )
    env.publish(HandoffEndEvent(*stamp, "handoff:c1"))  # wrong


def wrong_types(event: AnyEvent, start: HandoffStartEvent) -> Literal["handoff_end"]:
    """A type tag is one literal per event type; a match that forgets one is refused."""
    match event:
        case HandoffStartEvent() | HandoffEndEvent():
            pass
        case _:
            assert_never(event)  # wrong
    return start.type  # wrong


def wrong_imports() -> None:
    """A misspelt top-level name, and a name 0.2 exported from a module it has left."""
    from handoff_sim import HandofPolicy  # noqa: F401  # wrong
    from handoff_sim.subagents import SubAgent  # noqa: F401  # wrong
