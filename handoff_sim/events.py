"""Typed events: every observable step of a run emits one.

Each event carries ``seq`` (run-wide counter), ``t`` (seconds since the run
environment started; virtual under simulation), ``type``, ``agent``, ``depth``
and ``run_id``, plus the fields of its type (keyword-only). Events are frozen
``msgspec`` structs left out of the cyclic garbage collector: a run builds
thousands of them and keeps them all, so they are built in C by constructors
mypy checks field by field, and hash and compare by their fields.
:data:`AnyEvent` is the union of every event type, tagged by ``type``: a
``match`` over it can be exhaustive.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal, TypeAlias, TypedDict, get_args

import msgspec

__all__ = [
    "AnyEvent",
    "ConfirmationDecisionEvent",
    "ConfirmationRequestEvent",
    "Event",
    "HandoffAttemptEndEvent",
    "HandoffAttemptStartEvent",
    "HandoffEndEvent",
    "HandoffStartEvent",
    "ModelRequestEvent",
    "ModelResponseEvent",
    "RunEndEvent",
    "RunStartEvent",
    "ToolEndEvent",
    "ToolStartEvent",
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


EventStamp: TypeAlias = tuple[int, float, str, int, str]
"""The fields every event shares, in order: ``seq``, ``t``, ``agent``, ``depth``, ``run_id``.

The run environment fills them in as it emits an event, built as
``SomeEvent(*env.stamp(frame), own_field=...)``: they are the only fields an event
takes by position, its own fields are keyword-only, and mypy checks both against the
event's constructor.
"""


class HandoffFields(TypedDict):
    """The fields ``handoff_start`` and ``handoff_end`` share: which handoff this is."""

    handoff_id: str
    parent_handoff_id: str | None
    call_id: str
    tool: str
    subagent: str
    session_mode: str
    session_id: str | None


class Event(msgspec.Struct, frozen=True, gc=False, tag_field="type"):
    """Fields common to every event (the :data:`EventStamp`): the base class of every type."""

    type: ClassVar[str] = "event"
    seq: int
    t: float
    agent: str
    depth: int
    run_id: str

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: ``seq``, ``t``, ``type`` first, then the rest in field order."""
        data: dict[str, Any] = {"seq": self.seq, "t": self.t, "type": self.type}
        for name in self.__struct_fields__:
            if name not in data:
                value = getattr(self, name)
                data[name] = list(value) if isinstance(value, tuple) else value
        return data


class RunStartEvent(Event, frozen=True, gc=False, kw_only=True, tag="run_start"):
    """An agent run began (top-level, or a sub-agent attempt)."""

    type: ClassVar[Literal["run_start"]] = "run_start"
    input: str
    session_id: str
    parent_run_id: str | None = None


class RunEndEvent(Event, frozen=True, gc=False, kw_only=True, tag="run_end"):
    """An agent run finished: ``status`` is completed, failed or cancelled."""

    type: ClassVar[Literal["run_end"]] = "run_end"
    status: RunStatus
    output: str | None
    steps: int
    error: str | None = None


class ModelRequestEvent(Event, frozen=True, gc=False, kw_only=True, tag="model_request"):
    """The agent asked its model (``step`` is 1-based)."""

    type: ClassVar[Literal["model_request"]] = "model_request"
    step: int
    messages: int
    tools: tuple[str, ...]


class ModelResponseEvent(Event, frozen=True, gc=False, kw_only=True, tag="model_response"):
    """The model answered with text and/or tool calls."""

    type: ClassVar[Literal["model_response"]] = "model_response"
    step: int
    text: str | None
    tool_calls: tuple[str, ...]


class ToolStartEvent(Event, frozen=True, gc=False, kw_only=True, tag="tool_start"):
    """A tool call is about to run (plain or sub-agent)."""

    type: ClassVar[Literal["tool_start"]] = "tool_start"
    call_id: str
    tool: str
    arguments: str


class ToolEndEvent(Event, frozen=True, gc=False, kw_only=True, tag="tool_end"):
    """A tool call finished: ``status`` is ok, error or cancelled."""

    type: ClassVar[Literal["tool_end"]] = "tool_end"
    call_id: str
    tool: str
    status: ToolStatus
    output: str | None


class HandoffStartEvent(Event, frozen=True, gc=False, kw_only=True, tag="handoff_start"):
    """A handoff began; emitted before any policy check."""

    type: ClassVar[Literal["handoff_start"]] = "handoff_start"
    handoff_id: str
    parent_handoff_id: str | None
    call_id: str
    tool: str
    subagent: str
    session_mode: str
    session_id: str | None


class HandoffAttemptStartEvent(
    Event, frozen=True, gc=False, kw_only=True, tag="handoff_attempt_start"
):
    """One attempt of a handoff began (``attempt`` is 1-based)."""

    type: ClassVar[Literal["handoff_attempt_start"]] = "handoff_attempt_start"
    handoff_id: str
    call_id: str
    tool: str
    attempt: int


class HandoffAttemptEndEvent(Event, frozen=True, gc=False, kw_only=True, tag="handoff_attempt_end"):
    """One attempt of a handoff ended with ``outcome`` ok, timeout, error or cancelled."""

    type: ClassVar[Literal["handoff_attempt_end"]] = "handoff_attempt_end"
    handoff_id: str
    call_id: str
    tool: str
    attempt: int
    outcome: AttemptOutcome
    duration_ms: float
    error: str | None = None


class HandoffEndEvent(Event, frozen=True, gc=False, kw_only=True, tag="handoff_end"):
    """A handoff ended; exactly one per ``handoff_start``."""

    type: ClassVar[Literal["handoff_end"]] = "handoff_end"
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


class ConfirmationRequestEvent(
    Event, frozen=True, gc=False, kw_only=True, tag="confirmation_request"
):
    """A confirmation policy was asked about one model turn's risky calls, in one batch.

    ``call_ids``, ``tools`` and ``risks`` are aligned: one entry per request.
    """

    type: ClassVar[Literal["confirmation_request"]] = "confirmation_request"
    batch_id: str
    call_ids: tuple[str, ...]
    tools: tuple[str, ...]
    risks: tuple[RiskTier, ...]


class ConfirmationDecisionEvent(
    Event, frozen=True, gc=False, kw_only=True, tag="confirmation_decision"
):
    """What became of one request of a batch: exactly one per request.

    ``decision`` is approved or refused by the policy's answer, error when the policy
    raised or answered with something else than a mapping, cancelled when the run
    stopped waiting for it.
    """

    type: ClassVar[Literal["confirmation_decision"]] = "confirmation_decision"
    batch_id: str
    call_id: str
    tool: str
    risk: RiskTier
    decision: ConfirmationDecision
    error: str | None = None


AnyEvent: TypeAlias = (
    RunStartEvent
    | RunEndEvent
    | ModelRequestEvent
    | ModelResponseEvent
    | ToolStartEvent
    | ToolEndEvent
    | HandoffStartEvent
    | HandoffAttemptStartEvent
    | HandoffAttemptEndEvent
    | HandoffEndEvent
    | ConfirmationRequestEvent
    | ConfirmationDecisionEvent
)
"""Every event type, tagged by its ``type``: ``match`` on it and ``assert_never`` the rest.

:class:`Event` is their base class, the type a trace's events are declared with; every
event a run records is one of these, so ``cast(AnyEvent, event)`` is sound for them.
"""

EVENT_TYPES: dict[str, type[Event]] = {cls.type: cls for cls in get_args(AnyEvent)}
"""Each event type by its ``type``, in the order of :data:`AnyEvent`."""


def event_from_dict(data: dict[str, Any]) -> Event:
    """Rebuild an event from :meth:`Event.to_dict` output (JSON lines import)."""
    cls = EVENT_TYPES[data["type"]]
    kwargs = {k: v for k, v in data.items() if k != "type"}
    for key in ("tools", "tool_calls", "call_ids", "risks"):
        if key in kwargs and isinstance(kwargs[key], list):
            kwargs[key] = tuple(kwargs[key])
    return cls(**kwargs)
