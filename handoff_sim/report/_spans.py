"""The spans of a trace: top-level runs, the handoffs under them, each with its attempts.

Built from the events directly (not from ``Trace.handoffs()``) so that a handoff or an
attempt that never ended is shown as open rather than left out, and so that each span
knows the position of its events in the trace (parallel branches are those whose events
interleave).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from handoff_sim.events import (
    ConfirmationDecisionEvent,
    Event,
    HandoffAttemptEndEvent,
    HandoffAttemptStartEvent,
    HandoffEndEvent,
    HandoffStartEvent,
    RunEndEvent,
    RunStartEvent,
)

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


class _Reader:
    """One pass over the events, remembering the spans by key."""

    def __init__(self) -> None:
        self.parent_run: dict[str, str | None] = {}
        self.runs: dict[str, RunSpan] = {}
        self.handoffs: dict[_Key, HandoffSpan] = {}
        self.order: list[HandoffSpan] = []
        self.decisions: dict[_Key, ConfirmationDecisionEvent] = {}

    def read(self, index: int, event: Event) -> None:
        # a trace read from elsewhere may carry a time no axis can hold: draw it at 0
        mark = Mark(index, event.t if math.isfinite(event.t) and event.t >= 0 else 0.0)
        if isinstance(event, RunStartEvent):
            self._run_start(mark, event)
        elif isinstance(event, RunEndEvent):
            run = self.runs.get(event.run_id)
            if run is not None and run.end is None:
                run.end, run.end_event = mark, event
        elif isinstance(event, HandoffStartEvent):
            self._handoff_start(mark, event)
        elif isinstance(event, HandoffAttemptStartEvent | HandoffAttemptEndEvent):
            self._attempt(mark, event)
        elif isinstance(event, HandoffEndEvent):
            self._handoff_end(mark, event)
        elif isinstance(event, ConfirmationDecisionEvent):  # the SoPhi gate on a delegation
            self.decisions[(event.run_id, event.call_id)] = event

    def _run_start(self, mark: Mark, event: RunStartEvent) -> None:
        self.parent_run[event.run_id] = event.parent_run_id
        if event.parent_run_id is None and event.run_id not in self.runs:
            self.runs[event.run_id] = RunSpan(event.run_id, event.agent, len(self.runs) + 1, mark)

    def _handoff_start(self, mark: Mark, event: HandoffStartEvent) -> None:
        span = HandoffSpan(
            handoff_id=event.handoff_id,
            run_id=event.run_id,
            parent_handoff_id=event.parent_handoff_id,
            agent=event.agent,
            subagent=event.subagent,
            tool=event.tool,
            call_id=event.call_id,
            start=mark,
        )
        self.handoffs[(event.run_id, event.handoff_id)] = span
        self.order.append(span)

    def _attempt(
        self, mark: Mark, event: HandoffAttemptStartEvent | HandoffAttemptEndEvent
    ) -> None:
        span = self.handoffs.get((event.run_id, event.handoff_id))
        if span is None:
            return  # an attempt of a handoff that never started: its end shows the problem
        if isinstance(event, HandoffAttemptStartEvent):
            span.attempts.append(AttemptSpan(event.attempt, mark))
            return
        attempt = next(
            (a for a in span.attempts if a.number == event.attempt and a.end is None), None
        )
        if attempt is None:
            attempt = AttemptSpan(event.attempt, mark)
            span.attempts.append(attempt)
        attempt.end, attempt.outcome = mark, event.outcome
        attempt.duration_ms, attempt.error = event.duration_ms, event.error

    def _handoff_end(self, mark: Mark, event: HandoffEndEvent) -> None:
        span = self.handoffs.get((event.run_id, event.handoff_id))
        if span is None or span.end is not None:
            span = HandoffSpan(
                handoff_id=event.handoff_id,
                run_id=event.run_id,
                parent_handoff_id=event.parent_handoff_id,
                agent=event.agent,
                subagent=event.subagent,
                tool=event.tool,
                call_id=event.call_id,
                start=mark,
                problem="handoff_end without its handoff_start",
            )
            self.order.append(span)
        span.end, span.end_event = mark, event

    def root_run(self, run_id: str) -> RunSpan | None:
        seen: set[str] = set()
        current: str | None = run_id
        while current is not None and current not in seen:
            seen.add(current)
            if current in self.runs:
                return self.runs[current]
            current = self.parent_run.get(current)
        return None

    def parent_of(self, span: HandoffSpan) -> HandoffSpan | None:
        caller_run = self.parent_run.get(span.run_id)
        if span.parent_handoff_id is None or caller_run is None:
            return None
        parent = self.handoffs.get((caller_run, span.parent_handoff_id))
        # a parent starts first; anything else (a malformed trace) must not make a cycle
        return parent if parent is not None and parent.start.index < span.start.index else None


def collect_spans(events: Sequence[Event]) -> Spans:
    """The runs and handoff tree of ``events``, in start order."""
    reader = _Reader()
    for index, event in enumerate(events):
        reader.read(index, event)
    orphans: list[HandoffSpan] = []
    for span in reader.order:
        span.confirmation = reader.decisions.get((span.run_id, span.call_id))
        if span.end is None:
            span.problem = "handoff_start without handoff_end"
        parent = reader.parent_of(span)
        if parent is not None:
            parent.children.append(span)
            continue
        run = reader.root_run(span.run_id)
        (run.children if run is not None else orphans).append(span)
    times = [e.t for e in events if math.isfinite(e.t) and e.t >= 0]
    end = Mark(len(events), max(times, default=0.0))
    return Spans(list(reader.runs.values()), orphans, len(events), end)
