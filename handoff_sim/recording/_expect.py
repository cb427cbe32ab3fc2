"""The ``expect:`` block of a recording, generated from the recorded trace.

Outputs, the run's error, each handoff's tool, status, reason and attempts, and the
handoff tree as trace patterns matched ``per_branch`` (each branch in order, parallel
branches free to interleave), so that a person can loosen any of it with the usual
matchers. Times are left to ``elapsed``: a real run's handoff times include work a
replay in virtual time does not redo.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from handoff_sim import Trace
from handoff_sim.events import Event, HandoffEndEvent, HandoffStartEvent, RunEndEvent, RunStartEvent
from handoff_sim.recording._graph import duration_text

__all__ = ["MAX_TREE_HANDOFFS", "elapsed_of", "expect_block", "top_level_runs"]

Scrub = Callable[[str], str]

MAX_TREE_HANDOFFS = 200
"""Past this many handoffs the tree is not written as trace patterns (matching them costs
the square of their number); ``handoffs:`` still lists every one."""


def top_level_runs(trace: Trace) -> list[tuple[RunStartEvent, RunEndEvent | None]]:
    """The turns of the trace: each top-level run's start and end (None if it never ended)."""
    starts: dict[tuple[int, str], RunStartEvent] = {}
    ends: dict[tuple[int, str], RunEndEvent] = {}
    for segment, event in _segmented(trace):
        if isinstance(event, RunStartEvent) and event.parent_run_id is None:
            starts[(segment, event.run_id)] = event
        elif isinstance(event, RunEndEvent) and event.depth == 0:
            ends[(segment, event.run_id)] = event
    return [(start, ends.get(key)) for key, start in starts.items()]


def _segmented(trace: Trace) -> list[tuple[int, Event]]:
    """Each event with the number of the run environment it came from (``seq`` restarts)."""
    out, segment, last = [], 0, 0
    for event in trace:
        if event.seq <= last:
            segment += 1
        last = event.seq
        out.append((segment, event))
    return out


def elapsed_of(trace: Trace) -> float:
    """The time the trace's runs took, back to back: each environment's last event time."""
    total: dict[int, float] = {}
    for segment, event in _segmented(trace):
        total[segment] = max(total.get(segment, 0.0), event.t)
    return round(sum(total.values()), 6)


def expect_block(
    trace: Trace, scrub: Scrub, *, elapsed: float | None, error: str | None = None
) -> dict[str, Any]:
    """What the recorded run did, as a scenario's ``expect:`` block; ``error`` names the
    error a run that ended unfinished raised, when the trace cannot say it (a deadline)."""
    block: dict[str, Any] = {}
    runs = top_level_runs(trace)
    last = runs[-1][1] if runs else None
    if last is not None and last.status == "completed":
        block["output"] = None if last.output is None else scrub(last.output)
    elif error is not None:
        block["error"] = {"type": error}
    elif last is not None and last.error:
        kind = last.error.partition(":")[0].strip()
        if kind.isidentifier():
            block["error"] = {"type": kind}
    if elapsed is not None:
        block["elapsed"] = _seconds(elapsed)
    handoffs = [_handoff(record.summary()) for record in trace.handoffs()]
    if handoffs:
        block["handoffs"] = handoffs
    events = _tree_patterns(trace.events)
    if events and len(events) <= 2 * MAX_TREE_HANDOFFS:
        block["trace"] = {
            "match": "per_branch",
            "types": ["handoff_start", "handoff_end"],
            "events": events,
        }
    return block


def _seconds(value: float) -> str | float:
    """A duration as a file writes it: ``2.034s`` when whole milliseconds, else seconds."""
    if abs(value * 1000 - round(value * 1000)) < 1e-6:
        return duration_text(value)
    return round(value, 6)


def _handoff(summary: dict[str, Any]) -> dict[str, Any]:
    out = {"tool": summary["tool"], "status": summary["status"]}
    if summary.get("reason") is not None:
        out["reason"] = summary["reason"]
    out["attempts"] = summary["attempts"]
    return out


def _tree_patterns(events: Sequence[Event]) -> list[dict[str, Any]]:
    """``handoff_start`` / ``handoff_end`` of every handoff, in trace order: the tree."""
    out: list[dict[str, Any]] = []
    for event in events:
        if isinstance(event, HandoffStartEvent):
            out.append(
                {
                    "type": "handoff_start",
                    "agent": event.agent,
                    "depth": event.depth,
                    "tool": event.tool,
                    "subagent": event.subagent,
                }
            )
        elif isinstance(event, HandoffEndEvent):
            end: dict[str, Any] = {
                "type": "handoff_end",
                "agent": event.agent,
                "tool": event.tool,
                "status": event.status,
                "attempts": event.attempts,
            }
            if event.reason is not None:
                end["reason"] = event.reason
            out.append(end)
    return out
