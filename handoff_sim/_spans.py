"""The spans of a trace, paired in one pass: runs, their model and tool calls, handoffs, attempts.

Every query that pairs a start with its end (the trace's handoff records and tree, the
balance checks, the invariants, the report, the OpenTelemetry export) reads this model,
so one rule decides what ends what. A span keeps its events and their positions (index in
the trace); a span that never ended has no end; an end with no start is a span of its own.

The pairing rules: a start opens a span under its key (``run_id`` plus the handoff, call
or run id; a repeated start takes the key over and is marked ``again``); an end closes the
open span of its key, else it stands alone (``again`` when its key had already ended). An
attempt belongs to the handoff last started under its key; a model call is answered only
by the next event of its run. A child run belongs to the open attempt of its caller run
for its agent (one not yet holding a run first, the same session first), the only link a
run has to the handoff that started it.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

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
    """The attempt of the caller's handoff this run ran for, when one matches."""
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
    """The span of the event at each index (None for events no span holds)."""
    last_run: dict[str, RunSpan] = field(default_factory=dict)
    """Each run id's last started run."""

    def caller_run_id(self, run_id: str) -> str | None:
        """The ``parent_run_id`` the last start of ``run_id`` gave, if any."""
        run = self.last_run.get(run_id)
        return run.start.parent_run_id if run is not None and run.start is not None else None


class _Builder:
    """The state of the one pass: what is open under which key."""

    def __init__(self) -> None:
        self.spans = Spans()
        self.open_runs: dict[str, RunSpan] = {}
        self.pending: dict[str, ModelCallSpan] = {}
        self.open_tools: dict[_Key, ToolCallSpan] = {}
        self.open_handoffs: dict[_Key, HandoffSpan] = {}
        self.last_handoff: dict[_Key, HandoffSpan] = {}
        self.ended: set[_Key] = set()
        self.open_attempts: dict[tuple[str, str, int], AttemptSpan] = {}
        self.by_agent: dict[tuple[str, str], OrderedDict[int, AttemptSpan]] = {}
        self.fresh: dict[tuple[str, str], OrderedDict[int, AttemptSpan]] = {}
        self.fresh_session: dict[tuple[str, str, str | None], OrderedDict[int, AttemptSpan]] = {}

    def read(self, index: int, e: Event) -> Span | None:  # noqa: C901 - one branch a type
        pending = self.pending.pop(e.run_id, None)
        if pending is not None:
            if isinstance(e, ModelResponseEvent):
                pending.response, pending.response_at = e, index
                return pending
            pending.cut_at = index
        if isinstance(e, RunStartEvent):
            return self.run_start(index, e)
        if isinstance(e, RunEndEvent):
            return self.run_end(index, e)
        if isinstance(e, ModelRequestEvent | ModelResponseEvent):
            return self.model_call(index, e)
        if isinstance(e, ToolStartEvent):
            return self.tool_start(index, e)
        if isinstance(e, ToolEndEvent):
            return self.tool_end(index, e)
        if isinstance(e, HandoffStartEvent):
            return self.handoff_start(index, e)
        if isinstance(e, HandoffEndEvent):
            return self.handoff_end(index, e)
        if isinstance(e, HandoffAttemptStartEvent):
            return self.attempt_start(index, e)
        if isinstance(e, HandoffAttemptEndEvent):
            return self.attempt_end(index, e)
        return None

    # -- runs and model calls ---------------------------------------------------------------

    def run_start(self, index: int, e: RunStartEvent) -> RunSpan:
        run = RunSpan(e.run_id, e, index, again=e.run_id in self.spans.last_run)
        if e.parent_run_id is not None:
            run.caller = self.open_runs.get(e.parent_run_id)
            run.attempt = self.attempt_for(e)
            if run.attempt is not None:
                run.attempt.runs.append(run)
        self.open_runs[e.run_id] = self.spans.last_run[e.run_id] = run
        self.spans.runs.append(run)
        return run

    def run_end(self, index: int, e: RunEndEvent) -> RunSpan:
        run = self.open_runs.pop(e.run_id, None)
        if run is None:
            run = RunSpan(e.run_id, None, index)
            self.spans.runs.append(run)
        run.end, run.end_at = e, index
        return run

    def model_call(self, index: int, e: ModelRequestEvent | ModelResponseEvent) -> ModelCallSpan:
        if isinstance(e, ModelRequestEvent):
            call = self.pending[e.run_id] = ModelCallSpan(e.run_id, e, index)
        else:
            call = ModelCallSpan(e.run_id, None, index, e, index)
        self.spans.model_calls.append(call)
        return call

    # -- tool calls and handoffs --------------------------------------------------------------

    def tool_start(self, index: int, e: ToolStartEvent) -> ToolCallSpan:
        call = self.open_tools[(e.run_id, e.call_id)] = ToolCallSpan(e.run_id, e.call_id, e, index)
        self.spans.tool_calls.append(call)
        return call

    def tool_end(self, index: int, e: ToolEndEvent) -> ToolCallSpan:
        call = self.open_tools.pop((e.run_id, e.call_id), None)
        if call is None:
            call = ToolCallSpan(e.run_id, e.call_id, None, index)
            self.spans.tool_calls.append(call)
        call.end, call.end_at = e, index
        return call

    def handoff_start(self, index: int, e: HandoffStartEvent) -> HandoffSpan:
        key = (e.run_id, e.handoff_id)
        span = HandoffSpan(e.run_id, e.handoff_id, e, index, again=key in self.last_handoff)
        call = self.open_tools.get((e.run_id, e.call_id))
        if call is not None and call.handoff is None and call.start and call.start.tool == e.tool:
            span.tool_call, call.handoff = call, span
        self.nest(span, e.parent_handoff_id)
        self.open_handoffs[key] = self.last_handoff[key] = span
        self.spans.handoffs.append(span)
        return span

    def handoff_end(self, index: int, e: HandoffEndEvent) -> HandoffSpan:
        key = (e.run_id, e.handoff_id)
        span = self.open_handoffs.pop(key, None)
        if span is None:
            span = HandoffSpan(e.run_id, e.handoff_id, None, index, again=key in self.ended)
            self.nest(span, e.parent_handoff_id)
            self.spans.handoffs.append(span)
        self.ended.add(key)
        span.end, span.end_at = e, index
        return span

    def nest(self, span: HandoffSpan, parent_handoff_id: str | None) -> None:
        caller = self.spans.caller_run_id(span.run_id)
        if parent_handoff_id is None or caller is None:
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
        if attempt.inside and handoff is not None and handoff.start is not None:
            ident, agent = id(attempt), (e.run_id, handoff.start.subagent)
            self.by_agent.setdefault(agent, OrderedDict())[ident] = attempt
            self.fresh.setdefault(agent, OrderedDict())[ident] = attempt
            session = (*agent, handoff.start.session_id)
            self.fresh_session.setdefault(session, OrderedDict())[ident] = attempt
        self.spans.attempts.append(attempt)
        return attempt

    def attempt_end(self, index: int, e: HandoffAttemptEndEvent) -> AttemptSpan:
        attempt = self.open_attempts.pop((e.run_id, e.handoff_id, e.attempt), None)
        if attempt is None:
            handoff = self.last_handoff.get((e.run_id, e.handoff_id))
            attempt = AttemptSpan(e.attempt, None, index, handoff=handoff, inside=False)
            if handoff is not None:
                handoff.attempts.append(attempt)
            self.spans.attempts.append(attempt)
        else:
            self.unindex(attempt, every=True)
        attempt.end, attempt.end_at = e, index
        return attempt

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

    def unindex(self, attempt: AttemptSpan, *, every: bool) -> None:
        handoff = attempt.handoff
        if handoff is None or handoff.start is None or not attempt.inside:
            return
        ident, agent = id(attempt), (handoff.run_id, handoff.start.subagent)
        session = (*agent, handoff.start.session_id)
        tables = [self.fresh.get(agent), self.fresh_session.get(session)]
        if every:
            tables.append(self.by_agent.get(agent))
        for table in tables:
            if table is not None:
                table.pop(ident, None)


def build_spans(events: Sequence[Event]) -> Spans:
    """The spans of ``events`` in one pass, linear in their number."""
    builder = _Builder()
    at = builder.spans.at
    read = builder.read
    for index, event in enumerate(events):
        at.append(read(index, event))
    return builder.spans
