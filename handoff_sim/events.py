"""Typed events: every observable step of a run emits one.

Each event carries ``seq`` (run-wide counter), ``t`` (seconds since the run
environment started; virtual under simulation), ``type``, ``agent``, ``depth``
and ``run_id``, plus the fields of its type. Events are frozen slotted
dataclasses because a run builds thousands of them; each stores its fields
through its slots (``quick_init``), the runtime builds them positionally.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar, Literal, TypedDict, get_args

from handoff_sim._frozen import quick_init

__all__ = [
    "DENIAL_REASONS",
    "EVENT_TYPES",
    "AttemptOutcome",
    "ConfirmationDecision",
    "ConfirmationDecisionEvent",
    "ConfirmationRequestEvent",
    "DenialReason",
    "Event",
    "EventStamp",
    "EventType",
    "FailureReason",
    "HandoffAttemptEndEvent",
    "HandoffAttemptStartEvent",
    "HandoffEndEvent",
    "HandoffFields",
    "HandoffReason",
    "HandoffStartEvent",
    "HandoffStatus",
    "ModelRequestEvent",
    "ModelResponseEvent",
    "RiskTier",
    "RunEndEvent",
    "RunStartEvent",
    "RunStatus",
    "ToolEndEvent",
    "ToolStartEvent",
    "ToolStatus",
    "event_from_dict",
]

HandoffStatus = Literal["completed", "failed", "denied", "fallback", "unavailable", "cancelled"]
DenialReason = Literal["not_allowed", "denied_tool", "max_depth"]
"""Why admission refused a handoff: it then ends with no attempt."""
FailureReason = Literal["timeout", "error"]
"""Why a handoff that ran its attempts failed."""
HandoffReason = Literal[DenialReason, FailureReason]
DENIAL_REASONS: tuple[DenialReason, ...] = get_args(DenialReason)
"""The denial reasons, in one place for the invariants and the assertions."""
AttemptOutcome = Literal["ok", "timeout", "error", "cancelled"]
RunStatus = Literal["completed", "failed", "cancelled"]
ToolStatus = Literal["ok", "error", "cancelled"]
RiskTier = Literal["safe", "caution", "destructive"]
"""A call's risk tier as the SoPhi style's confirmation gate assigned it."""
ConfirmationDecision = Literal["approved", "refused", "error", "cancelled"]
"""What became of one confirmation request: the policy's answer, or why there was none."""
EventType = Literal[
    "run_start",
    "run_end",
    "model_request",
    "model_response",
    "tool_start",
    "tool_end",
    "handoff_start",
    "handoff_attempt_start",
    "handoff_attempt_end",
    "handoff_end",
    "confirmation_request",
    "confirmation_decision",
]


class EventStamp(TypedDict):
    """The fields every event shares, filled in by the run environment as it emits one.

    Built as ``SomeEvent(**fields_of_the_type, **env.stamp(frame))``: mypy checks the
    type's own fields and the stamp's against the event's constructor.
    """

    seq: int
    t: float
    agent: str
    depth: int
    run_id: str


class HandoffFields(TypedDict):
    """The fields ``handoff_start`` and ``handoff_end`` share: which handoff this is."""

    handoff_id: str
    parent_handoff_id: str | None
    call_id: str
    tool: str
    subagent: str
    session_mode: str
    session_id: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """Fields common to every event."""

    type: ClassVar[str] = "event"
    seq: int
    t: float
    agent: str
    depth: int
    run_id: str

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: ``seq``, ``t``, ``type`` first, then the rest in field order."""
        data: dict[str, Any] = {"seq": self.seq, "t": self.t, "type": self.type}
        for f in fields(self):
            if f.name not in data:
                value = getattr(self, f.name)
                data[f.name] = list(value) if isinstance(value, tuple) else value
        return data


@dataclass(frozen=True, slots=True, kw_only=True)
class RunStartEvent(Event):
    """An agent run began (top-level, or a sub-agent attempt)."""

    type: ClassVar[str] = "run_start"
    input: str
    session_id: str
    parent_run_id: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class RunEndEvent(Event):
    """An agent run finished: ``status`` is completed, failed or cancelled."""

    type: ClassVar[str] = "run_end"
    status: RunStatus
    output: str | None
    steps: int
    error: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelRequestEvent(Event):
    """The agent asked its model (``step`` is 1-based)."""

    type: ClassVar[str] = "model_request"
    step: int
    messages: int
    tools: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelResponseEvent(Event):
    """The model answered with text and/or tool calls."""

    type: ClassVar[str] = "model_response"
    step: int
    text: str | None
    tool_calls: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolStartEvent(Event):
    """A tool call is about to run (plain or sub-agent)."""

    type: ClassVar[str] = "tool_start"
    call_id: str
    tool: str
    arguments: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolEndEvent(Event):
    """A tool call finished: ``status`` is ok, error or cancelled."""

    type: ClassVar[str] = "tool_end"
    call_id: str
    tool: str
    status: ToolStatus
    output: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class HandoffStartEvent(Event):
    """A handoff began; emitted before any policy check."""

    type: ClassVar[str] = "handoff_start"
    handoff_id: str
    parent_handoff_id: str | None
    call_id: str
    tool: str
    subagent: str
    session_mode: str
    session_id: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class HandoffAttemptStartEvent(Event):
    """One attempt of a handoff began (``attempt`` is 1-based)."""

    type: ClassVar[str] = "handoff_attempt_start"
    handoff_id: str
    call_id: str
    tool: str
    attempt: int


@dataclass(frozen=True, slots=True, kw_only=True)
class HandoffAttemptEndEvent(Event):
    """One attempt of a handoff ended with ``outcome`` ok, timeout, error or cancelled."""

    type: ClassVar[str] = "handoff_attempt_end"
    handoff_id: str
    call_id: str
    tool: str
    attempt: int
    outcome: AttemptOutcome
    duration_ms: float
    error: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class HandoffEndEvent(Event):
    """A handoff ended; exactly one per ``handoff_start``."""

    type: ClassVar[str] = "handoff_end"
    handoff_id: str
    parent_handoff_id: str | None
    call_id: str
    tool: str
    subagent: str
    session_mode: str
    session_id: str | None
    status: HandoffStatus
    reason: HandoffReason | None
    attempts: int
    duration_ms: float
    output: str | None
    error: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class ConfirmationRequestEvent(Event):
    """A confirmation policy was asked about one model turn's risky calls, in one batch.

    ``call_ids``, ``tools`` and ``risks`` are aligned: one entry per request.
    """

    type: ClassVar[str] = "confirmation_request"
    batch_id: str
    call_ids: tuple[str, ...]
    tools: tuple[str, ...]
    risks: tuple[RiskTier, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class ConfirmationDecisionEvent(Event):
    """What became of one request of a batch: exactly one per request.

    ``decision`` is approved or refused by the policy's answer, error when the policy
    raised or answered with something else than a mapping, cancelled when the run
    stopped waiting for it.
    """

    type: ClassVar[str] = "confirmation_decision"
    batch_id: str
    call_id: str
    tool: str
    risk: RiskTier
    decision: ConfirmationDecision
    error: str | None = None


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (
        RunStartEvent,
        RunEndEvent,
        ModelRequestEvent,
        ModelResponseEvent,
        ToolStartEvent,
        ToolEndEvent,
        HandoffStartEvent,
        HandoffAttemptStartEvent,
        HandoffAttemptEndEvent,
        HandoffEndEvent,
        ConfirmationRequestEvent,
        ConfirmationDecisionEvent,
    )
}

_EVENT_CLASSES: tuple[type[Event], ...] = (Event, *EVENT_TYPES.values())
for _event_class in _EVENT_CLASSES:
    quick_init(_event_class)


def event_from_dict(data: dict[str, Any]) -> Event:
    """Rebuild an event from :meth:`Event.to_dict` output (JSON lines import)."""
    cls = EVENT_TYPES[data["type"]]
    kwargs = {k: v for k, v in data.items() if k != "type"}
    for key in ("tools", "tool_calls", "call_ids", "risks"):
        if key in kwargs and isinstance(kwargs[key], list):
            kwargs[key] = tuple(kwargs[key])
    return cls(**kwargs)
