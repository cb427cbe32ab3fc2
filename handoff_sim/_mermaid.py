"""Mermaid sequence-diagram export of a trace's handoffs.

Every name, id and reason is a label that no input can turn into syntax: the participants
get ids of our own (``A1``, ``A2``...), and in each label control characters are escaped
(``repr``-style, so a line break or ``\\r`` cannot end the statement) and each character
Mermaid reads as syntax is written as its entity code (``#35;`` for ``#``, ``#59;`` for
``;``: both would end the statement; ``%``, quotes and angle brackets likewise).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from handoff_sim._terminal import escape_value
from handoff_sim.events import (
    ConfirmationDecisionEvent,
    Event,
    HandoffAttemptEndEvent,
    HandoffEndEvent,
    HandoffStartEvent,
    RunStartEvent,
)

__all__ = ["render_mermaid"]

# "#" starts a comment and ";" ends a statement; "%%" is a comment or a directive; quotes
# and angle brackets are markup in a label; "&" would start an HTML entity of its own.
_ENTITIES = str.maketrans({char: f"#{ord(char)};" for char in '#;%"<>&'})
_SYNTAX = re.compile('[#;%"<>&]')


def _label(text: object) -> str:
    """``text`` as the text of one statement: escaped, entity-coded, never empty."""
    shown = escape_value(text)
    return (shown.translate(_ENTITIES) if _SYNTAX.search(shown) else shown) or " "


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
            lines.append(f"    {src}->>{dst}: {_label(event.tool)} ({_label(event.handoff_id)})")
        elif isinstance(event, HandoffAttemptEndEvent) and event.outcome != "ok":
            src = alias(event.agent)
            lines.append(
                f"    Note over {src}: attempt {event.attempt} {_label(event.outcome)} "
                f"after {event.duration_ms:g} ms"
            )
        elif isinstance(event, ConfirmationDecisionEvent) and event.decision != "approved":
            src = alias(event.agent)
            lines.append(
                f"    Note over {src}: confirmation {_label(event.decision)}: "
                f"{_label(event.tool)} ({_label(event.risk)})"
            )
        elif isinstance(event, HandoffEndEvent):
            src, dst = alias(event.agent), alias(event.subagent)
            reason = f" ({_label(event.reason)})" if event.reason else ""
            arrow = "-->>" if event.status == "completed" else "--x"
            lines.append(f"    {dst}{arrow}{src}: {_label(event.status)}{reason}")
    return "\n".join(lines) + "\n"
