"""Plan the spans of a trace: which span each event opens or closes, and their attributes.

No OpenTelemetry import here: the plan is plain data, the SDK side (``_sdk.py``) turns
it into real spans. One span per run (``invoke_agent``), per model call (``chat``),
per tool call (``execute_tool``; a handoff is the ``execute_tool`` span of its
sub-agent tool, holding one span per attempt), with each event's ``seq`` kept so the
import can rebuild the very same events. A confirmation request or decision (the SoPhi
style's gate) is a span event of the run span of the agent that asked.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

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
    def __init__(self) -> None:
        self.spans: list[PlannedSpan] = []
        self.keys: dict[str, int] = {}
        self.runs: dict[str, PlannedSpan] = {}
        self.chats: dict[str, PlannedSpan] = {}
        self.tools: dict[tuple[str, str], PlannedSpan] = {}
        self.handoffs: dict[tuple[str, str], PlannedSpan] = {}
        self.attempts: dict[tuple[str, str], PlannedSpan] = {}
        self.last_t = 0.0

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

    def plan(self, events: Sequence[Event]) -> list[PlannedSpan]:
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
        for position, event in enumerate(events):
            self.last_t = max(self.last_t, event.t)
            pending = self.chats.get(event.run_id)
            if pending is not None and not isinstance(event, ModelResponseEvent):
                self.unanswered(pending, event, position)
            handlers[event.type](event, position)
        for span in self.spans:
            if span.end_at < 0:
                span.end, span.end_at = max(self.last_t, span.start), len(events)
        return self.spans

    # -- runs and model calls ---------------------------------------------------------------

    def run_start(self, e: Event, position: int) -> None:
        assert isinstance(e, RunStartEvent)
        parent = self.attempt_for(e) or self.runs.get(e.parent_run_id or "")
        span = self.new(
            f"run:{e.run_id}", f"invoke_agent {e.agent}", "internal", parent, e, position
        )
        self.runs[e.run_id] = span
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
        span = self.runs.pop(e.run_id, None)
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
        span = self.new(
            f"chat:{e.run_id}:{e.step}", "chat", "client", self.runs.get(e.run_id), e, position
        )
        self.chats[e.run_id] = span
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

    def model_response(self, e: Event, position: int) -> None:
        assert isinstance(e, ModelResponseEvent)
        span = self.chats.pop(e.run_id, None)
        if span is None:
            span = self.new(
                f"chat:{e.run_id}:{e.step}",
                "chat",
                "client",
                self.runs.get(e.run_id),
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
        del self.chats[event.run_id]
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
        span = self.tool_span(e, position, started=True)
        span.attributes[GEN_AI_TOOL_ARGUMENTS] = e.arguments
        self.tools[(e.run_id, e.call_id)] = span

    def tool_span(
        self,
        e: ToolStartEvent | ToolEndEvent | HandoffStartEvent | HandoffEndEvent,
        position: int,
        *,
        started: bool,
    ) -> PlannedSpan:
        span = self.new(
            f"tool:{e.run_id}:{e.call_id}",
            f"execute_tool {e.tool}",
            "internal",
            self.runs.get(e.run_id),
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
        span = self.tools.pop((e.run_id, e.call_id), None)
        if span is None:
            span = self.tool_span(e, position, started=False)
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
        span = self.tools.get((e.run_id, e.call_id))
        if (
            span is None
            or span.attributes[GEN_AI_TOOL_NAME] != e.tool
            or (f"{HANDOFF}id" in span.attributes)
        ):
            span = self.tool_span(e, position, started=False)
            span.attributes.update(_on(e))
            self.handoffs[(e.run_id, e.handoff_id)] = span
        else:
            self.handoffs[(e.run_id, e.handoff_id)] = span
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
        span = self.handoffs.pop((e.run_id, e.handoff_id), None)
        standalone = span is None or SEQ_START not in span.attributes
        if span is None:
            span = self.tool_span(e, position, started=False)
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
            del attributes[SEQ_START]
            attributes.pop(SEQ_END, None)

    def attempt_start(self, e: Event, position: int) -> None:
        assert isinstance(e, HandoffAttemptStartEvent)
        parent = self.handoffs.get((e.run_id, e.handoff_id))
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
        self.attempts[(e.run_id, e.handoff_id)] = span

    def attempt_end(self, e: Event, position: int) -> None:
        assert isinstance(e, HandoffAttemptEndEvent)
        span = self.attempts.pop((e.run_id, e.handoff_id), None)
        if span is None:
            span = self.new(
                f"attempt:{e.run_id}:{e.handoff_id}:{e.attempt}",
                f"handoff attempt {e.attempt} {e.tool}",
                "internal",
                self.handoffs.get((e.run_id, e.handoff_id)),
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
        span = self.runs.get(e.run_id)
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
            self.runs[e.run_id] = span
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

    def attempt_for(self, e: RunStartEvent) -> PlannedSpan | None:
        """The open attempt a child run belongs to: same caller run and sub-agent, oldest first."""
        if e.parent_run_id is None:
            return None
        candidates = [
            span
            for (run_id, _), span in self.attempts.items()
            if run_id == e.parent_run_id
            and span.parent is not None
            and span.parent.attributes.get(f"{HANDOFF}subagent") == e.agent
        ]
        fresh = [s for s in candidates if s.children_runs == 0]
        same_session = [
            s
            for s in fresh
            if s.parent is not None
            and s.parent.attributes.get(f"{HANDOFF}session_id") == e.session_id
        ]
        ranked = same_session or fresh or candidates
        if not ranked:
            return None
        ranked[0].children_runs += 1
        return ranked[0]


def plan_spans(events: Sequence[Event]) -> list[PlannedSpan]:
    """The spans of ``events``, in the order they start."""
    return _Planner().plan(events)
