"""Type-checked, never run: mypy must report an error on every line marked ``# wrong``.

``tests/typing/test_types.py`` checks that it does: the typing checks can fail.
"""

from __future__ import annotations

from typing import assert_type

from handoff_sim import Trace
from handoff_sim._context import Frame, RunEnvironment
from handoff_sim.events import Event, HandoffEndEvent, ToolEndEvent


def wrong(trace: Trace, env: RunEnvironment, frame: Frame) -> None:
    """Each marked line is a mistake mypy catches."""
    assert_type(trace.of_type(HandoffEndEvent), list[Event])  # wrong
    s = env.stamp(frame)
    env.publish(ToolEndEvent(call_id="c", tool="t", status="done", output=None, **s))  # wrong
    env.publish(ToolEndEvent(call_id=1, tool="t", status="ok", output=None, **s))  # wrong
    env.publish(ToolEndEvent(tool="t", status="ok", output=None, **s))  # wrong
    env.publish(ToolEndEvent(call_id="c", tool="t", status="ok", output="", seq=1, **s))  # wrong
