"""The stable one-line text forms of an event and of a handoff (``Trace.render`` and its tree).

Every value is placed with its control characters shown as escapes, so a line of these
forms can neither start another line nor move the terminal's cursor.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from handoff_sim._terminal import escape_value
from handoff_sim.events import (
    ConfirmationDecisionEvent,
    ConfirmationRequestEvent,
    Event,
    HandoffAttemptEndEvent,
    HandoffAttemptStartEvent,
    HandoffEndEvent,
    HandoffStartEvent,
    ModelRequestEvent,
    ModelResponseEvent,
    RunEndEvent,
    RunStartEvent,
    ToolEndEvent,
    ToolStartEvent,
)

if TYPE_CHECKING:
    from handoff_sim.trace import HandoffRecord

__all__ = ["describe_handoff", "render_event"]


def _ms(seconds: float) -> str:
    ms = round(seconds * 1000, 3)
    return f"{ms:g}ms"


def _short(text: str | None, limit: int = 60) -> str:
    if text is None:
        return "None"
    flat = text.replace("\n", "\\n")
    return json.dumps(flat if len(flat) <= limit else flat[: limit - 1] + "…", ensure_ascii=False)


def describe_handoff(r: HandoffRecord) -> str:
    """One handoff on one line; a control character in any value is shown as an escape."""
    parts = [f"{r.agent} → {r.subagent} via {r.tool} [{r.handoff_id}]", f"status={r.status}"]
    if r.reason:
        parts.append(f"reason={r.reason}")
    parts.append(f"attempts={r.attempts}")
    parts.append(f"depth={r.depth}")
    parts.append(f"{_ms(r.duration_ms / 1000)}")
    if r.error:
        parts.append(f"error={_short(r.error)}")
    return escape_value(" ".join(parts))


def _fields(e: Event) -> str:  # noqa: C901 - one branch per event type reads best
    if isinstance(e, RunStartEvent):
        return f"input={_short(e.input)}"
    if isinstance(e, RunEndEvent):
        extra = f" error={_short(e.error)}" if e.error else ""
        return f"{e.status} steps={e.steps} output={_short(e.output)}{extra}"
    if isinstance(e, ModelRequestEvent):
        return f"step={e.step} messages={e.messages} tools={','.join(e.tools)}"
    if isinstance(e, ModelResponseEvent):
        return f"step={e.step} text={_short(e.text)} calls=[{','.join(e.tool_calls)}]"
    if isinstance(e, ToolStartEvent):
        return f"{e.tool} [{e.call_id}] args={_short(e.arguments)}"
    if isinstance(e, ToolEndEvent):
        return f"{e.tool} [{e.call_id}] {e.status} output={_short(e.output)}"
    if isinstance(e, HandoffStartEvent):
        return f"{e.tool} → {e.subagent} [{e.handoff_id}] {e.session_mode}"
    if isinstance(e, HandoffAttemptStartEvent):
        return f"{e.tool} [{e.handoff_id}] attempt={e.attempt}"
    if isinstance(e, HandoffAttemptEndEvent):
        err = f" error={_short(e.error)}" if e.error else ""
        return (
            f"{e.tool} [{e.handoff_id}] attempt={e.attempt} "
            f"{e.outcome} {_ms(e.duration_ms / 1000)}{err}"
        )
    if isinstance(e, HandoffEndEvent):
        return _handoff_end_fields(e)
    if isinstance(e, ConfirmationRequestEvent | ConfirmationDecisionEvent):
        return _confirmation_fields(e)
    return ""


def _confirmation_fields(e: ConfirmationRequestEvent | ConfirmationDecisionEvent) -> str:
    if isinstance(e, ConfirmationRequestEvent):
        asked = zip(e.call_ids, e.tools, e.risks, strict=False)
        return f"[{e.batch_id}] " + ", ".join(f"{t} [{c}] {r}" for c, t, r in asked)
    err = f" error={_short(e.error)}" if e.error else ""
    return f"{e.tool} [{e.call_id}] {e.risk} {e.decision} [{e.batch_id}]{err}"


def _handoff_end_fields(e: HandoffEndEvent) -> str:
    text = (
        f"{e.tool} [{e.handoff_id}] {e.status}"
        f"{' reason=' + e.reason if e.reason else ''} attempts={e.attempts} "
        f"{_ms(e.duration_ms / 1000)}"
    )
    if e.output is not None:
        text += f" output={_short(e.output)}"
    if e.error:
        text += f" error={_short(e.error)}"
    return text


def render_event(e: Event) -> str:
    """One event on one line; a control character in any value is shown as an escape."""
    indent = "  " * e.depth
    line = f"{e.seq:>4} {_ms(e.t):>10} {indent}{e.type:<21} {e.agent}: {_fields(e)}"
    return escape_value(line.rstrip())
