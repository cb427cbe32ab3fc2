"""Shared pieces of the assertion helpers: picking handoffs and describing them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NoReturn

from handoff_sim.errors import CheckFailedError

if TYPE_CHECKING:
    from handoff_sim.trace import HandoffRecord, Trace

__all__ = [
    "HandoffAssertionError",
    "_fail",
    "_label",
    "_listing",
    "_outcome",
    "_select",
    "_short",
    "_shown",
    "_trace",
]


class HandoffAssertionError(CheckFailedError, AssertionError):
    """A handoff assertion helper found the trace (or construction) not as expected."""

    __module__ = "pytest_handoff"


def _fail(message: str) -> NoReturn:
    __tracebackhide__ = True
    from handoff_sim._terminal import escape_text

    raise HandoffAssertionError(escape_text(message))  # no control character reaches a terminal


def _trace(source: object, helper: str) -> Trace:
    from handoff_sim import Trace

    if isinstance(source, Trace):
        return source
    trace = getattr(source, "trace", None)
    if isinstance(trace, Trace):
        return trace
    raise TypeError(
        f"{helper}() takes a Trace or an object with a .trace (RunResult, ScenarioResult, "
        f"Simulation), got {type(source).__name__}"
    )


def _shown(value: object) -> str:
    """``value`` for a place in a message line: its control characters (line breaks too)
    shown as escapes, so a name from a trace cannot start a line or move the cursor."""
    from handoff_sim._terminal import escape_value

    return escape_value(value)


def _label(r: HandoffRecord) -> str:
    return _shown(f"{r.handoff_id} ({r.agent} → {r.subagent} via {r.tool})")


def _outcome(r: HandoffRecord) -> str:
    text = f"ended status={r.status}"
    if r.reason:
        text += f" reason={r.reason}"
    text += f" attempts={r.attempts} at depth {r.depth}"
    if r.error:
        text += f" ({r.error})"
    return _shown(text)


def _listing(records: Sequence[HandoffRecord]) -> str:
    if not records:
        return "\n  (no handoffs in the trace)"
    return "".join(f"\n  - {_label(r)} {_outcome(r)}" for r in records)


def _select(
    trace: Trace, tool: str | None, handoff_id: str | None, helper: str
) -> list[HandoffRecord]:
    __tracebackhide__ = True
    every = trace.handoffs()
    chosen = [
        r
        for r in every
        if (tool is None or r.tool == tool) and (handoff_id is None or r.handoff_id == handoff_id)
    ]
    if not chosen:
        wanted = " and ".join(
            part
            for part in (
                f"via {tool}" if tool else "",
                f"with id {handoff_id}" if handoff_id else "",
            )
            if part
        )
        _fail(f"{helper}: no handoff {wanted or 'at all'} in the trace; handoffs:{_listing(every)}")
    return chosen


def _short(value: object, limit: int = 60) -> str:
    """A deterministic, bounded repr: no memory addresses, long reprs cut."""
    if isinstance(value, list | tuple):
        items = [_short(v, 40) for v in value[:4]] + (["…"] if len(value) > 4 else [])
        inner = ", ".join(items)
        return f"[{inner}]" if isinstance(value, list) else f"({inner})"
    text = repr(value)
    if " at 0x" in text:
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 1] + "…"
