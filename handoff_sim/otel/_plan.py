"""Plan the spans of a trace: which span each event opens or closes, and their attributes.

No OpenTelemetry import here: the plan is plain data, the SDK side (``_sdk.py``) turns
it into real spans. One span per run (``invoke_agent``), per model call (``chat``),
per tool call (``execute_tool``; a handoff is the ``execute_tool`` span of its
sub-agent tool, holding one span per attempt), with each event's ``seq`` kept so the
import can rebuild the very same events. A confirmation request or decision (the SoPhi
style's gate) is a span event of the run span of the agent that asked. Which event closes
which span, and which attempt a child run ran for, comes from the trace's span model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from handoff_sim import _spans as model
from handoff_sim._otlp._names import (
    ATTEMPT,
    CONFIRMATION,
    ERROR_TYPE,
    EVENT_CONFIRMATION_DECISION,
    EVENT_CONFIRMATION_REQUEST,
    EVENT_HANDOFF_END,
    EVENT_HANDOFF_START,
    GEN_AI_AGENT_ID,
    GEN_AI_AGENT_NAME,
    GEN_AI_CONVERSATION_ID,
    GEN_AI_OPERATION,
    GEN_AI_PROVIDER,
    GEN_AI_TOOL_ARGUMENTS,
    GEN_AI_TOOL_CALL_ID,
    GEN_AI_TOOL_NAME,
    GEN_AI_TOOL_RESULT,
    GEN_AI_TOOL_TYPE,
    HANDOFF,
    PROVIDER,
    SEQ,
    SEQ_END,
    SEQ_START,
)
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

__all__ = ["PlannedSpan", "SpanEvent", "plan_spans"]

Kind = Literal["internal", "client"]
SpanT = TypeVar(
    "SpanT",
    model.RunSpan,
    model.ModelCallSpan,
    model.ToolCallSpan,
    model.HandoffSpan,
    model.AttemptSpan,
)
_TYPE_NAME = re.compile(r"([A-Za-z_][\w.]*)(?::|$)")


@dataclass(slots=True)
class SpanEvent:
    """A point in a span's life (our handoff start and end), at virtual time ``t``."""

    name: str
    t: float
    attributes: dict[str, Any]


@dataclass(eq=False, slots=True)
class PlannedSpan:
    """One span to emit: name, parent, virtual start and end, attributes, status."""

    key: str
    name: str
    kind: Kind
    parent: PlannedSpan | None
    start: float
    start_at: int
    end: float = 0.0
    end_at: int = -1
    attributes: dict[str, Any] = field(default_factory=dict)
    events: list[SpanEvent] = field(default_factory=list)
    error: tuple[str, str | None] | None = None
    children_runs: int = 0

    def close(self, event: Event, position: int) -> None:
        self.end, self.end_at = event.t, position
        self.attributes[SEQ_END] = event.seq

    def fail(self, error_type: str, description: str | None) -> None:
        """Status ERROR with ``error.type``."""
        self.error = (error_type, description)
        self.attributes[ERROR_TYPE] = error_type


def error_type(error: str | None) -> str:
    """The exception type an error text starts with (``Type: message``), else ``_OTHER``."""
    found = _TYPE_NAME.match(error or "")
    return found.group(1) if found else "_OTHER"


def _put(attributes: dict[str, Any], key: str, value: object) -> None:
    """Set an attribute unless it is ``None`` (OpenTelemetry has no null)."""
    if value is not None:
        attributes[key] = list(value) if isinstance(value, tuple) else value


def _on(event: Event) -> dict[str, Any]:
    return {
        "handoff_sim.agent": event.agent,
        "handoff_sim.run_id": event.run_id,
        "handoff_sim.depth": event.depth,
    }


class _Planner:
    def __init__(self, events: Sequence[Event]) -> None:
        self.events = events
        self.model = model.build_spans(events).link_runs()
        self.spans: list[PlannedSpan] = []
        self.keys: dict[str, int] = {}
        self.planned: dict[int, PlannedSpan] = {}
        self.stand_ins: dict[str, PlannedSpan] = {}  # run spans a confirmation had to open
        self.position = 0
        self.last_t = 0.0

    def of(self, span: model.Span | None) -> PlannedSpan | None:
        """The planned span of a span of the model."""
        return None if span is None else self.planned.get(id(span))

    def run_of(self, span: model.Span | None, run_id: str) -> PlannedSpan | None:
        """The run span an event of ``run_id`` sits in: its open run, or a stand-in."""
        return self.of(span) or self.stand_ins.get(run_id)

    def current(self, kind: type[SpanT]) -> SpanT:
        found = self.model.at[self.position]
        assert isinstance(found, kind)
        return found

    def new(
        self,
        key: str,
        name: str,
        kind: Kind,
        parent: PlannedSpan | None,
        event: Event,
        position: int,
        *,
        started: bool = True,
    ) -> PlannedSpan:
        count = self.keys[key] = self.keys.get(key, 0) + 1
        span = PlannedSpan(
            key if count == 1 else f"{key}#{count}", name, kind, parent, event.t, position
        )
        span.attributes.update(_on(event))
        if started:
            span.attributes[SEQ_START] = event.seq
        self.spans.append(span)
        return span

    def plan(self) -> list[PlannedSpan]:
        handlers = {
            "run_start": self.run_start,
            "run_end": self.run_end,
            "model_request": self.model_request,
            "model_response": self.model_response,
            "tool_start": self.tool_start,
            "tool_end": self.tool_end,
            "handoff_start": self.handoff_start,
            "handoff_end": self.handoff_end,
            "handoff_attempt_start": self.attempt_start,
            "handoff_attempt_end": self.attempt_end,
            "confirmation_request": self.confirmation,
            "confirmation_decision": self.confirmation,
        }
        for position, event in enumerate(self.events):
            self.last_t = max(self.last_t, event.t)
            self.position = position
            handlers[event.type](event, position)
        for span in self.spans:
            if span.end_at < 0:
                span.end, span.end_at = max(self.last_t, span.start), len(self.events)
        return self.spans

    # -- runs and model calls ---------------------------------------------------------------

    def run_start(self, e: Event, position: int) -> None:
        assert isinstance(e, RunStartEvent)
        run = self.current(model.RunSpan)
        parent = self.of(run.attempt) or self.run_of(run.caller, e.parent_run_id or "")
        span = self.new(
            f"run:{e.run_id}", f"invoke_agent {e.agent}", "internal", parent, e, position
        )
        self.planned[id(run)] = span
        self.stand_ins.pop(e.run_id, None)
        attributes = span.attributes
        attributes.update(
            {
                GEN_AI_OPERATION: "invoke_agent",
                GEN_AI_PROVIDER: PROVIDER,
                GEN_AI_AGENT_NAME: e.agent,
                GEN_AI_AGENT_ID: e.agent,
                GEN_AI_CONVERSATION_ID: e.session_id,
                "handoff_sim.input": e.input,
            }
        )
        _put(attributes, "handoff_sim.parent_run_id", e.parent_run_id)

    def run_end(self, e: Event, position: int) -> None:
        assert isinstance(e, RunEndEvent)
        run = self.current(model.RunSpan)
        span = self.of(run) if run.start is not None else self.stand_ins.pop(e.run_id, None)
        if span is None:
            span = self.new(
                f"run:{e.run_id}",
                f"invoke_agent {e.agent}",
                "internal",
                None,
                e,
                position,
                started=False,
            )
            span.attributes.update(
                {
                    GEN_AI_OPERATION: "invoke_agent",
                    GEN_AI_PROVIDER: PROVIDER,
                    GEN_AI_AGENT_NAME: e.agent,
                    GEN_AI_AGENT_ID: e.agent,
                }
            )
        span.close(e, position)
        attributes = span.attributes
        attributes.update({"handoff_sim.status": e.status, "handoff_sim.steps": e.steps})
        _put(attributes, "handoff_sim.output", e.output)
        _put(attributes, "handoff_sim.error", e.error)
        if e.status == "cancelled":
            span.fail("cancelled", "cancelled")
        elif e.status == "failed":
            span.fail(error_type(e.error), e.error)

    def model_request(self, e: Event, position: int) -> None:
        assert isinstance(e, ModelRequestEvent)
        call = self.current(model.ModelCallSpan)
        parent = self.run_of(call.run, e.run_id)
        span = self.new(f"chat:{e.run_id}:{e.step}", "chat", "client", parent, e, position)
        self.planned[id(call)] = span
        span.attributes.update(
            {
                GEN_AI_OPERATION: "chat",
                GEN_AI_PROVIDER: PROVIDER,
                GEN_AI_AGENT_NAME: e.agent,
                "handoff_sim.step": e.step,
                "handoff_sim.messages": e.messages,
                "handoff_sim.tools": list(e.tools),
            }
        )
        if call.cut_at >= 0:
            self.unanswered(span, self.events[call.cut_at], call.cut_at)

    def model_response(self, e: Event, position: int) -> None:
        assert isinstance(e, ModelResponseEvent)
        call = self.current(model.ModelCallSpan)
        span = self.of(call) if call.request is not None else None
        if span is None:
            span = self.new(
                f"chat:{e.run_id}:{e.step}",
                "chat",
                "client",
                self.run_of(call.run, e.run_id),
                e,
                position,
                started=False,
            )
            span.attributes.update(
                {GEN_AI_OPERATION: "chat", GEN_AI_PROVIDER: PROVIDER, "handoff_sim.step": e.step}
            )
        span.close(e, position)
        _put(span.attributes, "handoff_sim.text", e.text)
        span.attributes["handoff_sim.tool_calls"] = list(e.tool_calls)

    def unanswered(self, span: PlannedSpan, event: Event, position: int) -> None:
        """A model call that got no answer ends when its run does anything else."""
        span.end, span.end_at = event.t, position
        if isinstance(event, RunEndEvent) and event.status == "failed":
            span.fail(error_type(event.error), event.error)
        elif isinstance(event, RunEndEvent) and event.status == "cancelled":
            span.fail("cancelled", "cancelled")
        else:
            span.fail("_OTHER", "the model call got no answer")

    # -- tool calls, handoffs and attempts ----------------------------------------------------

    def tool_start(self, e: Event, position: int) -> None:
        assert isinstance(e, ToolStartEvent)
        call = self.current(model.ToolCallSpan)
        span = self.tool_span(e, position, call.run, started=True)
        span.attributes[GEN_AI_TOOL_ARGUMENTS] = e.arguments
        self.planned[id(call)] = span

    def tool_span(
        self,
        e: ToolStartEvent | ToolEndEvent | HandoffStartEvent | HandoffEndEvent,
        position: int,
        run: model.RunSpan | None,
        *,
        started: bool,
    ) -> PlannedSpan:
        span = self.new(
            f"tool:{e.run_id}:{e.call_id}",
            f"execute_tool {e.tool}",
            "internal",
            self.run_of(run, e.run_id),
            e,
            position,
            started=started,
        )
        span.attributes.update(
            {
                GEN_AI_OPERATION: "execute_tool",
                GEN_AI_TOOL_NAME: e.tool,
                GEN_AI_TOOL_CALL_ID: e.call_id,
                GEN_AI_TOOL_TYPE: "function",
            }
        )
        return span

    def tool_end(self, e: Event, position: int) -> None:
        assert isinstance(e, ToolEndEvent)
        call = self.current(model.ToolCallSpan)
        span = self.of(call) if call.start is not None else None
        if span is None:
            span = self.tool_span(e, position, call.run, started=False)
        span.close(e, position)
        span.attributes["handoff_sim.status"] = e.status
        _put(span.attributes, GEN_AI_TOOL_RESULT, e.output)
        if span.error is not None:
            return  # the handoff's own status says more
        if e.status == "cancelled":
            span.fail("cancelled", "cancelled")
        elif e.status == "error":
            span.fail(error_type((e.output or "").removeprefix("Error: ")), e.output)

    def handoff_start(self, e: Event, position: int) -> None:
        assert isinstance(e, HandoffStartEvent)
        handoff = self.current(model.HandoffSpan)
        span = self.of(handoff.tool_call)
        if span is None:
            span = self.tool_span(e, position, handoff.run, started=False)
            span.attributes.update(_on(e))
        self.planned[id(handoff)] = span
        span.events.append(SpanEvent(EVENT_HANDOFF_START, e.t, {SEQ: e.seq}))
        self.handoff_fields(span, e)

    def handoff_fields(self, span: PlannedSpan, e: HandoffStartEvent | HandoffEndEvent) -> None:
        attributes = span.attributes
        attributes.update(
            {
                f"{HANDOFF}id": e.handoff_id,
                f"{HANDOFF}subagent": e.subagent,
                f"{HANDOFF}session_mode": e.session_mode,
                f"{HANDOFF}depth": e.depth,
            }
        )
        _put(attributes, f"{HANDOFF}parent_id", e.parent_handoff_id)
        _put(attributes, f"{HANDOFF}session_id", e.session_id)

    def handoff_end(self, e: Event, position: int) -> None:
        assert isinstance(e, HandoffEndEvent)
        handoff = self.current(model.HandoffSpan)
        span = self.of(handoff) if handoff.start is not None else None
        standalone = span is None or SEQ_START not in span.attributes
        if span is None:
            span = self.tool_span(e, position, handoff.run, started=False)
        self.handoff_fields(span, e)
        span.events.append(SpanEvent(EVENT_HANDOFF_END, e.t, {SEQ: e.seq}))
        attributes = span.attributes
        attributes.update(
            {
                f"{HANDOFF}status": e.status,
                f"{HANDOFF}attempts": e.attempts,
                f"{HANDOFF}duration_ms": e.duration_ms,
            }
        )
        for key in ("reason", "output", "error"):
            _put(attributes, f"{HANDOFF}{key}", getattr(e, key))
        if e.status != "completed":
            kind = f"{e.status}:{e.reason}" if e.reason else e.status
            span.fail(kind, e.error or e.status)
        if standalone and span.end_at < 0:
            span.end, span.end_at = e.t, position
            attributes.pop(SEQ_START, None)  # a handoff with no tool call has none
            attributes.pop(SEQ_END, None)

    def attempt_start(self, e: Event, position: int) -> None:
        assert isinstance(e, HandoffAttemptStartEvent)
        attempt = self.current(model.AttemptSpan)
        parent = self.of(attempt.handoff) if attempt.inside else None
        span = self.new(
            f"attempt:{e.run_id}:{e.handoff_id}:{e.attempt}",
            f"handoff attempt {e.attempt} {e.tool}",
            "internal",
            parent,
            e,
            position,
        )
        span.attributes.update(
            {
                f"{HANDOFF}id": e.handoff_id,
                "handoff_sim.call_id": e.call_id,
                "handoff_sim.tool": e.tool,
                ATTEMPT: e.attempt,
            }
        )
        self.planned[id(attempt)] = span

    def attempt_end(self, e: Event, position: int) -> None:
        assert isinstance(e, HandoffAttemptEndEvent)
        attempt = self.current(model.AttemptSpan)
        span = self.of(attempt) if attempt.start is not None else None
        if span is None:
            span = self.new(
                f"attempt:{e.run_id}:{e.handoff_id}:{e.attempt}",
                f"handoff attempt {e.attempt} {e.tool}",
                "internal",
                self.of(_open_at(attempt.handoff, position)),
                e,
                position,
                started=False,
            )
            span.attributes.update(
                {
                    f"{HANDOFF}id": e.handoff_id,
                    "handoff_sim.call_id": e.call_id,
                    "handoff_sim.tool": e.tool,
                    ATTEMPT: e.attempt,
                }
            )
        span.close(e, position)
        span.attributes.update(
            {"handoff_sim.outcome": e.outcome, "handoff_sim.duration_ms": e.duration_ms}
        )
        _put(span.attributes, "handoff_sim.error", e.error)
        if e.outcome != "ok":
            span.fail(e.outcome, e.error or e.outcome)

    # -- confirmation (the SoPhi style) -----------------------------------------------------

    def confirmation(self, e: Event, position: int) -> None:
        """A span event of the asking agent's run span, with every field as an attribute."""
        assert isinstance(e, ConfirmationRequestEvent | ConfirmationDecisionEvent)
        span = self.run_of(self.model.at[position], e.run_id)
        if span is None:  # a trace cut short: the run span stands for what it holds
            span = self.new(
                f"run:{e.run_id}",
                f"invoke_agent {e.agent}",
                "internal",
                None,
                e,
                position,
                started=False,
            )
            span.attributes.update({GEN_AI_OPERATION: "invoke_agent", GEN_AI_PROVIDER: PROVIDER})
            self.stand_ins[e.run_id] = span
        name = (
            EVENT_CONFIRMATION_REQUEST
            if isinstance(e, ConfirmationRequestEvent)
            else EVENT_CONFIRMATION_DECISION
        )
        attributes: dict[str, Any] = {SEQ: e.seq}
        for key, value in e.to_dict().items():
            if key not in ("seq", "t", "type", "agent", "depth", "run_id"):
                _put(attributes, f"{CONFIRMATION}{key}", value)
        span.events.append(SpanEvent(name, e.t, attributes))


def _open_at(handoff: model.HandoffSpan | None, position: int) -> model.HandoffSpan | None:
    """``handoff`` when it had started and not yet ended at ``position``."""
    if handoff is None or handoff.start is None or 0 <= handoff.end_at < position:
        return None
    return handoff


def plan_spans(events: Sequence[Event]) -> list[PlannedSpan]:
    """The spans of ``events``, in the order they start."""
    return _Planner(events).plan()
