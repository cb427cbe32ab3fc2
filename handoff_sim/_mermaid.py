"""Mermaid sequence-diagram export of a trace's handoffs."""

from __future__ import annotations

from collections.abc import Sequence

from handoff_sim.events import (
    ConfirmationDecisionEvent,
    Event,
    HandoffAttemptEndEvent,
    HandoffEndEvent,
    HandoffStartEvent,
    RunStartEvent,
)

__all__ = ["render_mermaid"]


def _label(text: str) -> str:
    return text.replace(";", ",").replace("#", "").replace("\n", " ")


def render_mermaid(events: Sequence[Event]) -> str:
    """``sequenceDiagram``: top agents and sub-agents (by mount name) as participants."""
    aliases: dict[str, str] = {}
    lines = ["sequenceDiagram"]

    def alias(agent: str) -> str:
        if agent not in aliases:
            aliases[agent] = f"A{len(aliases) + 1}"
            lines.append(f"    participant {aliases[agent]} as {_label(agent)}")
        return aliases[agent]

    for event in events:
        if isinstance(event, RunStartEvent) and event.depth == 0:
            alias(event.agent)
        elif isinstance(event, HandoffStartEvent):
            src, dst = alias(event.agent), alias(event.subagent)
            lines.append(f"    {src}->>{dst}: {_label(event.tool)} ({event.handoff_id})")
        elif isinstance(event, HandoffAttemptEndEvent) and event.outcome != "ok":
            src = alias(event.agent)
            lines.append(
                f"    Note over {src}: attempt {event.attempt} {event.outcome} "
                f"after {event.duration_ms:g} ms"
            )
        elif isinstance(event, ConfirmationDecisionEvent) and event.decision != "approved":
            src = alias(event.agent)
            lines.append(
                f"    Note over {src}: confirmation {event.decision}: "
                f"{_label(event.tool)} ({event.risk})"
            )
        elif isinstance(event, HandoffEndEvent):
            src, dst = alias(event.agent), alias(event.subagent)
            reason = f" ({event.reason})" if event.reason else ""
            arrow = "-->>" if event.status == "completed" else "--x"
            lines.append(f"    {dst}{arrow}{src}: {event.status}{reason}")
    return "\n".join(lines) + "\n"
