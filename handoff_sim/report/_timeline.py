"""Lay a trace out as timeline rows: one row per top-level run and one per handoff.

A handoff's row is the lane of its sub-agent: a bar from the handoff's start to its end,
each attempt a segment on it (and a fallback's tail after the last attempt). Rows nest
under the run or handoff that made them; siblings whose events interleave ran in
parallel and form a numbered group. Positions are virtual seconds, or event positions
when no virtual time passed at all (every bar would be a point otherwise).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from handoff_sim.events import Event
from handoff_sim.report._axis import format_duration, order_ticks, time_ticks
from handoff_sim.report._spans import HandoffSpan, Mark, RunSpan, Spans, collect_spans
from handoff_sim.report._text import one_line

__all__ = ["SYMBOLS", "Row", "Segment", "Timeline", "build_timeline", "handoff_outcome"]

SYMBOLS: dict[str, str] = {
    "completed": "✓",
    "ok": "✓",
    "failed": "✗",
    "error": "✗",
    "timeout": "◷",
    "denied": "⊘",
    "fallback": "↩",
    "unavailable": "∅",
    "cancelled": "■",
    "open": "⚠",
}
"""A symbol beside every status word, so the timeline reads without colour."""

_NAME = 80
_Position = Callable[[Mark, bool], float]


@dataclass(frozen=True, slots=True)
class Segment:
    """A part of a bar: one attempt (``attempt`` >= 1) or a fallback's tail (``attempt`` 0)."""

    start: float
    end: float
    status: str
    label: str
    attempt: int


@dataclass(frozen=True, slots=True)
class Row:
    """One lane: a top-level run (``kind`` run) or a handoff's sub-agent (``kind`` handoff).

    ``key`` is the run id or the tool call id; ``brackets`` are the parallel groups whose
    bracket passes this row, as (depth, ``f`` first / ``m`` member / ``l`` last / ``p`` passing).
    """

    kind: str
    depth: int
    name: str
    detail: str
    start: float
    end: float
    status: str
    outcome: str
    segments: tuple[Segment, ...] = ()
    key: str = ""
    group: int = 0
    group_size: int = 0
    brackets: tuple[tuple[int, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Timeline:
    """Rows plus the axis they are drawn on (``mode`` is ``time`` or ``order``)."""

    mode: str
    end: float
    ticks: tuple[tuple[float, str], ...]
    rows: tuple[Row, ...]
    groups: int
    handoffs: int


def _positions(spans: Spans) -> tuple[str, float, _Position]:
    if spans.end.t > 0:
        return "time", spans.end.t, lambda mark, _closing: mark.t
    return "order", float(max(spans.count, 1)), lambda mark, closing: mark.index + int(closing)


def _times(count: int) -> str:
    return "1 attempt" if count == 1 else f"{count} attempts"


def _attempt_list(outcomes: Sequence[str]) -> str:
    """``timeout ×2, ok``: the outcomes in order, repeats folded."""
    parts: list[str] = []
    index = 0
    while index < len(outcomes):
        same = index
        while same < len(outcomes) and outcomes[same] == outcomes[index]:
            same += 1
        run = same - index
        word = outcomes[index]
        parts.append(f"{SYMBOLS.get(word, '?')} {word}" + (f" ×{run}" if run > 1 else ""))
        index = same
    return ", ".join(parts)


def handoff_outcome(span: HandoffSpan) -> str:
    """The words beside a handoff's bar: status and reason, duration, attempts (most telling
    first, since a narrow column cuts the end)."""
    end = span.end_event
    status = span.status
    head = f"{SYMBOLS.get(status, '?')} {status}"
    if end is not None and end.reason:
        head += f": {end.reason}"
    parts = [head]
    if span.confirmation is not None:
        parts.append(f"{span.confirmation.risk} call {span.confirmation.decision}")
    if end is not None:
        parts.append(format_duration(end.duration_ms / 1000))
    outcomes = [a.outcome for a in span.attempts]
    if outcomes and outcomes != ["ok"]:
        parts.append(f"{_times(len(outcomes))}: {_attempt_list(outcomes)}")
    if span.problem:
        parts.append(span.problem)
    return " · ".join(parts)


def _segments(span: HandoffSpan, place: _Position, last: Mark) -> list[Segment]:
    out: list[Segment] = []
    for attempt in span.attempts:
        end = attempt.end or last
        took = "never ended"
        if attempt.duration_ms is not None:
            took = format_duration(attempt.duration_ms / 1000)
        label = f"#{attempt.number} {SYMBOLS.get(attempt.outcome, '?')} {attempt.outcome} {took}"
        out.append(
            Segment(
                place(attempt.start, False),
                place(end, True),
                attempt.outcome,
                label,
                attempt.number,
            )
        )
    if span.status in ("fallback", "unavailable") and span.end is not None:
        after = span.attempts[-1].end if span.attempts and span.attempts[-1].end else span.start
        label = f"{SYMBOLS[span.status]} {span.status}"
        out.append(Segment(place(after, False), place(span.end, True), span.status, label, 0))
    return out


def _handoff_row(span: HandoffSpan, depth: int, place: _Position, last: Mark) -> Row:
    end = span.end or last
    return Row(
        kind="handoff",
        depth=depth,
        name=one_line(span.subagent, _NAME),
        detail=one_line(f"{span.agent} → {span.subagent} via {span.tool} [{span.handoff_id}]", 200),
        start=place(span.start, False),
        end=place(end, True),
        status=span.status,
        outcome=one_line(handoff_outcome(span), 200),
        segments=tuple(_segments(span, place, last)),
        key=one_line(span.call_id, _NAME),
    )


def _run_row(run: RunSpan, turns: int, place: _Position, last: Mark) -> Row:
    end = run.end_event
    status = end.status if end is not None else "open"
    parts = [f"{SYMBOLS.get(status, '?')} {status}"]
    parts.append(format_duration((run.end or last).t - run.start.t))
    if end is not None:
        parts.append(f"{end.steps} step" + ("" if end.steps == 1 else "s"))
        if end.error:
            parts.append(end.error)
    turn = f"turn {run.turn}" if turns > 1 else "top agent"
    return Row(
        kind="run",
        depth=0,
        name=one_line(run.agent, _NAME),
        detail=one_line(f"{run.agent}, {turn} [{run.run_id}]", 200),
        start=place(run.start, False),
        end=place(run.end or last, True),
        status=status,
        outcome=one_line(" · ".join(parts), 200),
        key=one_line(run.run_id, _NAME),
    )


def _parallel_groups(children: Sequence[HandoffSpan], last: Mark) -> list[list[HandoffSpan]]:
    """Siblings whose event ranges overlap, in start order; only groups of two or more."""
    groups: list[list[HandoffSpan]] = []
    current: list[HandoffSpan] = []
    reach = -1
    for child in sorted(children, key=lambda s: s.start.index):
        closing = (child.end or last).index
        if current and child.start.index < reach:
            current.append(child)
        else:
            if len(current) > 1:
                groups.append(current)
            current = [child]
        reach = max(reach, closing) if len(current) > 1 else closing
    if len(current) > 1:
        groups.append(current)
    return groups


class _Layout:
    def __init__(self, spans: Spans, place: _Position) -> None:
        self.place = place
        self.last = spans.end
        self.rows: list[Row] = []
        self.members: dict[int, tuple[int, int]] = {}  # id(span) -> (group, size)
        self.groups: list[tuple[int, list[int]]] = []  # (depth, row indices of members)

    def add_children(self, children: Sequence[HandoffSpan], depth: int) -> None:
        for group in _parallel_groups(children, self.last):
            number = len(self.groups) + 1
            self.groups.append((depth, []))
            for span in group:
                self.members[id(span)] = (number, len(group))
        for span in children:
            self.add_handoff(span, depth)

    def add_handoff(self, span: HandoffSpan, depth: int) -> None:
        row = _handoff_row(span, depth, self.place, self.last)
        group, size = self.members.get(id(span), (0, 0))
        if group:
            self.groups[group - 1][1].append(len(self.rows))
            row = replace(row, group=group, group_size=size)
        self.rows.append(row)
        self.add_children(span.children, depth + 1)

    def brackets(self) -> list[Row]:
        marks: list[list[tuple[int, str]]] = [[] for _ in self.rows]
        for depth, members in self.groups:
            first, final = members[0], members[-1]
            chosen = set(members)
            for index in range(first, final + 1):
                kind = "f" if index == first else "l" if index == final else "m"
                marks[index].append((depth, kind if index in chosen else "p"))
        return [
            replace(row, brackets=tuple(m)) if m else row
            for row, m in zip(self.rows, marks, strict=True)
        ]


def build_timeline(events: Sequence[Event]) -> Timeline:
    """The rows and axis of ``events``: runs in order, each followed by its handoff tree."""
    spans = collect_spans(events)
    mode, end, place = _positions(spans)
    layout = _Layout(spans, place)
    for run in spans.runs:
        layout.rows.append(_run_row(run, len(spans.runs), place, spans.end))
        layout.add_children(run.children, 1)
    layout.add_children(spans.orphans, 1 if spans.runs else 0)
    ticks = time_ticks(end) if mode == "time" else order_ticks(spans.count)
    return Timeline(
        mode=mode,
        end=end,
        ticks=tuple(ticks),
        rows=tuple(layout.brackets()),
        groups=len(layout.groups),
        handoffs=spans.handoffs,
    )
