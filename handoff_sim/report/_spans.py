"""The spans of a trace as the report draws them: top-level runs, their handoff trees, attempts.

A view of the trace's span model (not of ``Trace.handoffs()``), so that a handoff or an
attempt that never ended is shown as open rather than left out, and so that each span
knows the position of its events in the trace (parallel branches are those whose events
interleave). Times are clamped to what an axis can hold.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from handoff_sim import _spans as model
from handoff_sim.events import (
    ConfirmationDecisionEvent,
    Event,
    HandoffEndEvent,
    RunEndEvent,
)
from handoff_sim.trace import Trace

__all__ = ["AttemptSpan", "HandoffSpan", "Mark", "RunSpan", "Spans", "collect_spans"]

_Key = tuple[str, str]


@dataclass(frozen=True, slots=True)
class Mark:
    """Where an event is: its index in the trace and its virtual time in seconds."""

    index: int
    t: float


@dataclass(slots=True)
class AttemptSpan:
    """One attempt of a handoff; ``end`` is ``None`` when it never ended."""

    number: int
    start: Mark
    end: Mark | None = None
    outcome: str = "open"
    duration_ms: float | None = None
    error: str | None = None


@dataclass(slots=True)
class HandoffSpan:
    """One handoff: who delegated to whom, its attempts, and the handoffs made inside it."""

    handoff_id: str
    run_id: str
    parent_handoff_id: str | None
    agent: str
    subagent: str
    tool: str
    call_id: str
    start: Mark
    end: Mark | None = None
    end_event: HandoffEndEvent | None = None
    attempts: list[AttemptSpan] = field(default_factory=list)
    children: list[HandoffSpan] = field(default_factory=list)
    problem: str | None = None
    confirmation: ConfirmationDecisionEvent | None = None

    @property
    def status(self) -> str:
        """The ``handoff_end`` status, or ``open`` when the handoff never ended."""
        return self.end_event.status if self.end_event is not None else "open"


@dataclass(slots=True)
class RunSpan:
    """A top-level run of the top agent (one per turn) and the handoffs it made."""

    run_id: str
    agent: str
    turn: int
    start: Mark
    end: Mark | None = None
    end_event: RunEndEvent | None = None
    children: list[HandoffSpan] = field(default_factory=list)


@dataclass(slots=True)
class Spans:
    """Every top-level run with its handoff tree, plus handoffs no run could take."""

    runs: list[RunSpan]
    orphans: list[HandoffSpan]
    count: int
    end: Mark

    @property
    def handoffs(self) -> int:
        """How many handoffs the tree holds."""
        return _count(self.orphans) + sum(_count(r.children) for r in self.runs)


def _count(spans: Sequence[HandoffSpan]) -> int:
    return sum(1 + _count(s.children) for s in spans)


def _mark(index: int, t: float) -> Mark:
    # a trace read from elsewhere may carry a time no axis can hold: draw it at 0
    return Mark(index, t if math.isfinite(t) and t >= 0 else 0.0)


def _attempt(span: model.AttemptSpan) -> AttemptSpan:
    first = span.start or span.end
    assert first is not None
    shown = AttemptSpan(span.number, _mark(span.start_at if span.start else span.end_at, first.t))
    if span.end is not None:
        shown.end, shown.outcome = _mark(span.end_at, span.end.t), span.end.outcome
        shown.duration_ms, shown.error = span.end.duration_ms, span.end.error
    return shown


def _handoff(
    span: model.HandoffSpan, decisions: dict[_Key, ConfirmationDecisionEvent]
) -> HandoffSpan:
    first = span.first
    shown = HandoffSpan(
        handoff_id=span.handoff_id,
        run_id=span.run_id,
        parent_handoff_id=first.parent_handoff_id,
        agent=first.agent,
        subagent=first.subagent,
        tool=first.tool,
        call_id=first.call_id,
        start=_mark(span.start_at if span.start else span.end_at, first.t),
        attempts=[_attempt(a) for a in span.attempts],
        confirmation=decisions.get((span.run_id, first.call_id)),
    )
    if span.end is not None:
        shown.end, shown.end_event = _mark(span.end_at, span.end.t), span.end
    if span.start is None:
        shown.problem = "handoff_end without its handoff_start"
    elif span.end is None:
        shown.problem = "handoff_start without handoff_end"
    return shown


def _root_run(spans: model.Spans, runs: dict[str, RunSpan], run_id: str) -> RunSpan | None:
    seen: set[str] = set()
    current: str | None = run_id
    while current is not None and current not in seen:
        seen.add(current)
        if current in runs:
            return runs[current]
        current = spans.caller_run_id(current)
    return None


def _top_runs(spans: model.Spans) -> dict[str, RunSpan]:
    runs: dict[str, RunSpan] = {}
    for run in spans.runs:
        start = run.start
        if start is not None and start.parent_run_id is None and run.run_id not in runs:
            shown = runs[run.run_id] = RunSpan(
                run.run_id, start.agent, len(runs) + 1, _mark(run.start_at, start.t)
            )
            if run.end is not None:
                shown.end, shown.end_event = _mark(run.end_at, run.end.t), run.end
    return runs


def collect_spans(events: Sequence[Event], spans: model.Spans | None = None) -> Spans:
    """The runs and handoff tree of ``events``, in start order (``spans``: their model).

    Given a :class:`Trace`, the trace's own span model is read (built once per trace).
    """
    if spans is None:
        spans = events.spans() if isinstance(events, Trace) else model.build_spans(events)
    decisions = {
        (e.run_id, e.call_id): e for e in events if isinstance(e, ConfirmationDecisionEvent)
    }
    runs = _top_runs(spans)
    shown: dict[int, HandoffSpan] = {}
    roots: dict[str, RunSpan | None] = {}  # the top-level run of each run id, found once
    orphans: list[HandoffSpan] = []
    for span in spans.handoffs:
        view = shown[id(span)] = _handoff(span, decisions)
        parent = shown.get(id(span.parent)) if span.parent is not None else None
        if parent is not None:
            parent.children.append(view)
            continue
        if span.run_id not in roots:
            roots[span.run_id] = _root_run(spans, runs, span.run_id)
        run = roots[span.run_id]
        (run.children if run is not None else orphans).append(view)
    times = [e.t for e in events if math.isfinite(e.t) and e.t >= 0]
    end = Mark(len(events), max(times, default=0.0))
    return Spans(list(runs.values()), orphans, len(events), end)
