"""The spans of a trace, paired in one pass: runs, their model and tool calls, handoffs, attempts.

Every query that pairs a start with its end (the trace's handoff records and tree, the
balance checks, the invariants, the report, the OpenTelemetry export) reads this model,
so one rule decides what ends what. A span keeps its events and their positions (index in
the trace); a span that never ended has no end (position -1); an end with no start is a span of its
own, with no start (position -1).

The pairing rules: a start opens a span under its key (``run_id`` plus the handoff, call
or run id; a repeated start takes the key over and is marked ``again``); an end closes the
open span of its key, else it stands alone (``again`` when its key had already ended). An
attempt belongs to the handoff last started under its key; a model call is answered only
by the next event of its run. A child run belongs to the open attempt of its caller run
for its agent (one not yet holding a run first, the same session first), the only link a
run has to the handoff that started it.
"""

from __future__ import annotations

import gc
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from handoff_sim.events import (
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

__all__ = [
    "AttemptSpan",
    "HandoffSpan",
    "ModelCallSpan",
    "RunSpan",
    "Span",
    "Spans",
    "ToolCallSpan",
    "build_spans",
]

_Key = tuple[str, str]
KeyT = TypeVar("KeyT")


@dataclass(eq=False, slots=True)
class RunSpan:
    """One run: ``start`` is None for a ``run_end`` nothing opened; ``end`` None while open."""

    run_id: str
    start: RunStartEvent | None
    start_at: int
    end: RunEndEvent | None = None
    end_at: int = -1
    caller: RunSpan | None = None
    """The caller's run while it was open at this run's start."""
    attempt: AttemptSpan | None = None
    """The attempt of the caller's handoff this run ran for (filled by ``Spans.link_runs``)."""
    again: bool = False


@dataclass(eq=False, slots=True)
class ModelCallSpan:
    """A model request and its response; ``cut_at`` is where an unanswered call stopped."""

    run_id: str
    request: ModelRequestEvent | None
    request_at: int
    response: ModelResponseEvent | None = None
    response_at: int = -1
    cut_at: int = -1
    run: RunSpan | None = None
    """Its run, when that was open at its first event."""


@dataclass(eq=False, slots=True)
class ToolCallSpan:
    """One tool call (a plain tool, or the call a handoff runs in)."""

    run_id: str
    call_id: str
    start: ToolStartEvent | None
    start_at: int
    end: ToolEndEvent | None = None
    end_at: int = -1
    handoff: HandoffSpan | None = None
    again: bool = False
    """A start while a call of the same id was open in its run."""
    run: RunSpan | None = None
    """Its run, when that was open at its first event."""


@dataclass(eq=False, slots=True)
class AttemptSpan:
    """One attempt of a handoff; ``inside`` is False when its handoff was not open at its start."""

    number: int
    start: HandoffAttemptStartEvent | None
    start_at: int
    end: HandoffAttemptEndEvent | None = None
    end_at: int = -1
    handoff: HandoffSpan | None = None
    inside: bool = True
    ordinal: int = 0
    """How many attempts its handoff had started with this one."""
    runs: list[RunSpan] = field(default_factory=list)

    @property
    def first(self) -> HandoffAttemptStartEvent | HandoffAttemptEndEvent:
        """The start event, or the end when there was no start."""
        found = self.start or self.end
        assert found is not None
        return found


@dataclass(eq=False, slots=True)
class HandoffSpan:
    """One handoff: its events, attempts, the tool call it ran in and the handoffs inside it."""

    run_id: str
    handoff_id: str
    start: HandoffStartEvent | None
    start_at: int
    end: HandoffEndEvent | None = None
    end_at: int = -1
    parent: HandoffSpan | None = None
    """The handoff whose sub-agent made this one (it started earlier)."""
    children: list[HandoffSpan] = field(default_factory=list)
    attempts: list[AttemptSpan] = field(default_factory=list)
    tool_call: ToolCallSpan | None = None
    again: bool = False
    """A start whose key had started before, or an end whose key had ended before."""
    started_attempts: int = 0
    run: RunSpan | None = None
    """Its run, when that was open at its first event."""

    @property
    def first(self) -> HandoffStartEvent | HandoffEndEvent:
        """The start event, or the end when there was no start."""
        found = self.start or self.end
        assert found is not None
        return found

    @property
    def key(self) -> _Key:
        """``(run_id, handoff_id)``: a handoff id repeats across runs."""
        return (self.run_id, self.handoff_id)


Span = RunSpan | ModelCallSpan | ToolCallSpan | HandoffSpan | AttemptSpan


@dataclass(eq=False, slots=True)
class Spans:
    """Every span of a trace in the order its first event came, and each event's span."""

    runs: list[RunSpan] = field(default_factory=list)
    model_calls: list[ModelCallSpan] = field(default_factory=list)
    tool_calls: list[ToolCallSpan] = field(default_factory=list)
    handoffs: list[HandoffSpan] = field(default_factory=list)
    attempts: list[AttemptSpan] = field(default_factory=list)
    at: list[Span | None] = field(default_factory=list)
    """The span of the event at each index; for an event no span holds (a confirmation),
    the run it happened in while that was open; else None."""
    last_run: dict[str, RunSpan] = field(default_factory=dict)
    """Each run id's last started run."""
    linked: bool = False

    def link_runs(self) -> Spans:
        """Fill each child run's ``attempt`` (and the attempts' ``runs``), once.

        Apart from the pairing because only the OpenTelemetry export needs it.
        """
        if not self.linked:
            self.linked = True
            _RunLinker().replay(self)
        return self

    def caller_run_id(self, run_id: str) -> str | None:
        """The ``parent_run_id`` the last start of ``run_id`` gave, if any."""
        run = self.last_run.get(run_id)
        return run.start.parent_run_id if run is not None and run.start is not None else None


class _Builder:
    """The state of the one pass: what is open under which key."""

    def __init__(self) -> None:
        self.spans = spans = Spans()
        self.runs, self.model_calls, self.tool_calls = (
            spans.runs,
            spans.model_calls,
            spans.tool_calls,
        )
        self.handoffs, self.attempts, self.last_run = spans.handoffs, spans.attempts, spans.last_run
        self.open_runs: dict[str, RunSpan] = {}
        self.pending: dict[str, ModelCallSpan] = {}
        self.open_tools: dict[_Key, ToolCallSpan] = {}
        self.open_handoffs: dict[_Key, HandoffSpan] = {}
        self.last_handoff: dict[_Key, HandoffSpan] = {}
        self.open_attempts: dict[tuple[str, str, int], AttemptSpan] = {}

    def answer(self, index: int, e: Event) -> ModelCallSpan | None:
        """Close the run's unanswered model call: by ``e`` when it is the response."""
        pending = self.pending.pop(e.run_id, None)
        if pending is not None:
            if isinstance(e, ModelResponseEvent):
                pending.response, pending.response_at = e, index
                return pending
            pending.cut_at = index
        return None

    # -- runs and model calls ---------------------------------------------------------------

    def run_start(self, index: int, e: RunStartEvent) -> RunSpan:
        run = RunSpan(e.run_id, e, index, again=e.run_id in self.last_run)
        if e.parent_run_id is not None:
            run.caller = self.open_runs.get(e.parent_run_id)
        self.open_runs[e.run_id] = self.last_run[e.run_id] = run
        self.runs.append(run)
        return run

    def run_end(self, index: int, e: RunEndEvent) -> RunSpan:
        run = self.open_runs.pop(e.run_id, None)
        if run is None:
            run = RunSpan(e.run_id, None, -1)
            self.runs.append(run)
        run.end, run.end_at = e, index
        return run

    def model_call(self, index: int, e: ModelRequestEvent | ModelResponseEvent) -> ModelCallSpan:
        if isinstance(e, ModelRequestEvent):
            call = self.pending[e.run_id] = ModelCallSpan(e.run_id, e, index)
        else:
            call = ModelCallSpan(e.run_id, None, -1, e, index)
        call.run = self.open_runs.get(e.run_id)
        self.model_calls.append(call)
        return call

    # -- tool calls and handoffs --------------------------------------------------------------

    def tool_start(self, index: int, e: ToolStartEvent) -> ToolCallSpan:
        key = (e.run_id, e.call_id)
        call = ToolCallSpan(e.run_id, e.call_id, e, index, again=key in self.open_tools)
        call.run = self.open_runs.get(e.run_id)
        self.open_tools[key] = call
        self.tool_calls.append(call)
        return call

    def tool_end(self, index: int, e: ToolEndEvent) -> ToolCallSpan:
        call = self.open_tools.pop((e.run_id, e.call_id), None)
        if call is None:
            call = ToolCallSpan(e.run_id, e.call_id, None, -1, run=self.open_runs.get(e.run_id))
            self.tool_calls.append(call)
        call.end, call.end_at = e, index
        return call

    def handoff_start(self, index: int, e: HandoffStartEvent) -> HandoffSpan:
        key = (e.run_id, e.handoff_id)
        span = HandoffSpan(e.run_id, e.handoff_id, e, index, again=key in self.last_handoff)
        span.run = self.open_runs.get(e.run_id)
        call = self.open_tools.get((e.run_id, e.call_id))
        if call is not None and call.handoff is None and call.start and call.start.tool == e.tool:
            span.tool_call, call.handoff = call, span
        self.nest(span, e.parent_handoff_id)
        self.open_handoffs[key] = self.last_handoff[key] = span
        self.handoffs.append(span)
        return span

    def handoff_end(self, index: int, e: HandoffEndEvent) -> HandoffSpan:
        key = (e.run_id, e.handoff_id)
        span = self.open_handoffs.pop(key, None)
        if span is None:
            # its key started before and every start of it has ended: a second end
            span = HandoffSpan(e.run_id, e.handoff_id, None, -1, again=key in self.last_handoff)
            span.run = self.open_runs.get(e.run_id)
            self.nest(span, e.parent_handoff_id)
            self.handoffs.append(span)
        span.end, span.end_at = e, index
        return span

    def nest(self, span: HandoffSpan, parent_handoff_id: str | None) -> None:
        if parent_handoff_id is None:
            return
        caller = self.spans.caller_run_id(span.run_id)
        if caller is None:
            return
        span.parent = self.last_handoff.get((caller, parent_handoff_id))
        if span.parent is not None:
            span.parent.children.append(span)

    # -- attempts -----------------------------------------------------------------------------

    def attempt_start(self, index: int, e: HandoffAttemptStartEvent) -> AttemptSpan:
        key = (e.run_id, e.handoff_id)
        handoff = self.last_handoff.get(key)
        attempt = AttemptSpan(e.attempt, e, index, handoff=handoff)
        attempt.inside = key in self.open_handoffs
        if handoff is not None:
            handoff.attempts.append(attempt)
            handoff.started_attempts += 1
            attempt.ordinal = handoff.started_attempts
        self.open_attempts[(e.run_id, e.handoff_id, e.attempt)] = attempt
        self.attempts.append(attempt)
        return attempt

    def attempt_end(self, index: int, e: HandoffAttemptEndEvent) -> AttemptSpan:
        attempt = self.open_attempts.pop((e.run_id, e.handoff_id, e.attempt), None)
        if attempt is None:
            handoff = self.last_handoff.get((e.run_id, e.handoff_id))
            attempt = AttemptSpan(e.attempt, None, -1, handoff=handoff, inside=False)
            if handoff is not None:
                handoff.attempts.append(attempt)
            self.attempts.append(attempt)
        attempt.end, attempt.end_at = e, index
        return attempt


class _RunLinker:
    """Which attempt each child run ran for, replayed over the event positions."""

    def __init__(self) -> None:
        self.by_agent: dict[tuple[str, str], OrderedDict[int, AttemptSpan]] = {}
        self.fresh: dict[tuple[str, str], OrderedDict[int, AttemptSpan]] = {}
        self.fresh_session: dict[tuple[str, str, str | None], OrderedDict[int, AttemptSpan]] = {}
        self.homes: dict[int, tuple[OrderedDict[int, AttemptSpan], ...]] = {}

    def link(self, run: RunSpan) -> None:
        """Link a child run to the attempt it ran for, when one matches."""
        if run.start is not None and run.start.parent_run_id is not None:
            run.attempt = self.attempt_for(run.start)
            if run.attempt is not None:
                run.attempt.runs.append(run)

    def replay(self, spans: Spans) -> None:
        """Walk the positions: attempts open and close, child runs take one."""
        for index, span in enumerate(spans.at):
            if isinstance(span, AttemptSpan):
                handoff = span.handoff
                if span.start_at == index and span.inside and handoff and handoff.start:
                    self.index(span, handoff.run_id, handoff.start)
                elif span.end_at == index:
                    self.unindex(span, every=True)
            elif isinstance(span, RunSpan) and span.start_at == index:
                self.link(span)

    def attempt_for(self, e: RunStartEvent) -> AttemptSpan | None:
        """The open attempt a child run belongs to: not yet holding a run, same session first."""
        agent = (e.parent_run_id or "", e.agent)
        for table in (self.fresh_session.get((*agent, e.session_id)), self.fresh.get(agent)):
            if table:
                attempt = next(iter(table.values()))
                self.unindex(attempt, every=False)
                return attempt
        table = self.by_agent.get(agent)
        return next(iter(table.values())) if table else None

    def index(self, attempt: AttemptSpan, run_id: str, start: HandoffStartEvent) -> None:
        """File an open attempt for :meth:`attempt_for`, in start order."""
        agent = (run_id, start.subagent)
        tables = (
            _table(self.fresh_session, (*agent, start.session_id)),
            _table(self.fresh, agent),
            _table(self.by_agent, agent),
        )
        ident = id(attempt)
        for table in tables:
            table[ident] = attempt
        self.homes[ident] = tables

    def unindex(self, attempt: AttemptSpan, *, every: bool) -> None:
        """Take an attempt out of the fresh tables (a run took it), or out of all (it ended)."""
        ident = id(attempt)
        tables = self.homes.pop(ident, None) if every else self.homes.get(ident)
        if tables is not None:
            for table in tables if every else tables[:2]:
                table.pop(ident, None)


def _table(
    tables: dict[KeyT, OrderedDict[int, AttemptSpan]], key: KeyT
) -> OrderedDict[int, AttemptSpan]:
    table = tables.get(key)
    if table is None:
        table = tables[key] = OrderedDict()
    return table


_HANDLERS: dict[type[Event], Callable[[_Builder, int, Any], Span]] = {
    RunStartEvent: _Builder.run_start,
    RunEndEvent: _Builder.run_end,
    ModelRequestEvent: _Builder.model_call,
    ModelResponseEvent: _Builder.model_call,
    ToolStartEvent: _Builder.tool_start,
    ToolEndEvent: _Builder.tool_end,
    HandoffStartEvent: _Builder.handoff_start,
    HandoffEndEvent: _Builder.handoff_end,
    HandoffAttemptStartEvent: _Builder.attempt_start,
    HandoffAttemptEndEvent: _Builder.attempt_end,
}
"""The reader of each event type that opens or closes a span."""
_PAUSE_FROM = 10_000  # events: below, pausing the collector costs more than it saves


def build_spans(events: Sequence[Event]) -> Spans:
    """The spans of ``events`` in one pass, linear in their number."""
    builder = _Builder()
    if len(events) < _PAUSE_FROM:
        _read_all(events, builder)
    else:
        with _collector_paused():
            _read_all(events, builder)
    return builder.spans


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Many small objects and no garbage: the cyclic collector only slows the pass down."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _read_all(events: Sequence[Event], builder: _Builder) -> None:
    at = builder.spans.at
    pending = builder.pending
    handlers = _HANDLERS
    for index, event in enumerate(events):
        if event.run_id in pending and (answered := builder.answer(index, event)) is not None:
            at.append(answered)
            continue
        handler = handlers.get(type(event))
        at.append(
            handler(builder, index, event)
            if handler is not None
            else builder.open_runs.get(event.run_id)
        )
