"""Read the event fields back from a span handoff-sim exported.

Every such span carries ``handoff_sim.run_id``, ``handoff_sim.agent`` and
``handoff_sim.depth``; a start or end event exists when its sequence number
(``handoff_sim.seq.start`` / ``.seq.end``, or the ``handoff_sim.seq`` of the handoff's
span events) does. A field of the wrong type, or a number outside its bounds (see
docs/otel.md), is an :class:`OtlpFormatError` naming the attribute.
"""

from __future__ import annotations

import math
from typing import Any, get_args

from handoff_sim._limits import MAX_NESTING
from handoff_sim._otlp._names import (
    ATTEMPT,
    CONFIRMATION,
    EVENT_CONFIRMATION_DECISION,
    EVENT_CONFIRMATION_REQUEST,
    EVENT_HANDOFF_END,
    EVENT_HANDOFF_START,
    GEN_AI_CONVERSATION_ID,
    GEN_AI_TOOL_ARGUMENTS,
    GEN_AI_TOOL_CALL_ID,
    GEN_AI_TOOL_NAME,
    GEN_AI_TOOL_RESULT,
    HANDOFF,
    SEQ_END,
    SEQ_START,
)
from handoff_sim._otlp._parse import OtlpFormatError, RawEvent, RawSpan
from handoff_sim._otlp._tree import Role
from handoff_sim.events import (
    AttemptOutcome,
    ConfirmationDecision,
    HandoffReason,
    HandoffStatus,
    RiskTier,
)

__all__ = ["OurFields"]

Fields = tuple[str, dict[str, Any]]

INT64_MAX = 2**63 - 1
"""The largest count an attribute can hold (OTLP's ``intValue`` is a signed 64-bit integer)."""

MAX_DURATION_MS = (2**64 - 1) / 1_000_000
"""The longest duration: what an OTLP timestamp (unsigned 64-bit nanoseconds) can span."""

RUN_DEPTHS = (0, MAX_NESTING)
"""Depth of an agent run and of its model and tool calls: the runtime's bound on nesting."""

HANDOFF_DEPTHS = (1, MAX_NESTING + 1)
"""Depth of a handoff and its attempts: one deeper than the run that made it."""

_RUN_STATUS = ("completed", "failed", "cancelled")
_TOOL_STATUS = ("ok", "error", "cancelled")
_HANDOFF_STATUS: tuple[str, ...] = get_args(HandoffStatus)
_REASONS: tuple[str, ...] = get_args(HandoffReason)
_OUTCOMES: tuple[str, ...] = get_args(AttemptOutcome)
_TIERS: tuple[str, ...] = get_args(RiskTier)
_DECISIONS: tuple[str, ...] = get_args(ConfirmationDecision)
_CONFIRMATIONS = {
    EVENT_CONFIRMATION_REQUEST: "confirmation_request",
    EVENT_CONFIRMATION_DECISION: "confirmation_decision",
}


class OurFields:
    """The fields of the events one exported span stands for."""

    def __init__(self, label: str, span: RawSpan, event: int | None = None) -> None:
        self.label = label
        self.span = span
        self.where = span.where if event is None else f"{span.where}.events[{event}]"
        self.attributes = span.attributes if event is None else span.events[event].attributes

    def _fail(self, key: str, what: str) -> OtlpFormatError:
        return OtlpFormatError(self.label, f"{self.where}.attributes[{key}]", what)

    def text(self, key: str) -> str:
        value = self.attributes.get(key)
        if not isinstance(value, str):
            raise self._fail(key, "missing, or not a string" if value is not None else "missing")
        return value

    def maybe_text(self, key: str) -> str | None:
        value = self.attributes.get(key)
        if value is not None and not isinstance(value, str):
            raise self._fail(key, "not a string")
        return value

    def choice(self, key: str, allowed: tuple[str, ...], *, optional: bool = False) -> str | None:
        value = self.maybe_text(key) if optional else self.text(key)
        if value is not None and value not in allowed:
            raise self._fail(key, f"{value!r} is not one of {', '.join(allowed)}")
        return value

    def integer(self, key: str, low: int = 0, high: int = INT64_MAX) -> int:
        """An integer attribute from ``low`` to ``high``."""
        value = self.attributes.get(key)
        if not isinstance(value, int) or isinstance(value, bool):
            raise self._fail(key, "missing, or not an integer")
        if not low <= value <= high:
            raise self._fail(key, f"{value} is outside the bounds {low} to {high}")
        return value

    def duration(self, key: str) -> float:
        """A duration in milliseconds: finite, from 0 to :data:`MAX_DURATION_MS`."""
        value = self.attributes.get(key)
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise self._fail(key, "missing, or not a number")
        number = float(value)
        if not (math.isfinite(number) and 0 <= number <= MAX_DURATION_MS):
            span = "0 to 2^64 ns, what an OTLP timestamp can span"
            raise self._fail(key, f"{number!r} is not a finite duration from {span}")
        return number

    def names(self, key: str) -> tuple[str, ...]:
        value = self.attributes.get(key)
        if value is None:
            return ()
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self._fail(key, "not a list of strings")
        return tuple(value)

    def on(
        self, depth_key: str = "handoff_sim.depth", depths: tuple[int, int] = RUN_DEPTHS
    ) -> dict[str, Any]:
        """``agent``, ``depth`` (within ``depths``) and ``run_id`` of the span's events."""
        return {
            "agent": self.text("handoff_sim.agent"),
            "depth": self.integer(depth_key, *depths),
            "run_id": self.text("handoff_sim.run_id"),
        }

    # -- start and end events per role ------------------------------------------------------

    def starts(self, role: Role) -> Fields | None:
        """The start event of the span, if it was recorded."""
        if SEQ_START not in self.attributes:
            return None
        readers = {
            "run": self._run_start,
            "chat": self._model_request,
            "tool": self._tool_start,
            "attempt": self._attempt_start,
        }
        return readers[role]()

    def ends(self, role: Role) -> Fields | None:
        """The end event of the span, if it was recorded."""
        if SEQ_END not in self.attributes:
            return None
        readers = {
            "run": self._run_end,
            "chat": self._model_response,
            "tool": self._tool_end,
            "attempt": self._attempt_end,
        }
        return readers[role]()

    def _run_start(self) -> Fields:
        return "run_start", self.on() | {
            "input": self.text("handoff_sim.input"),
            "session_id": self.text(GEN_AI_CONVERSATION_ID),
            "parent_run_id": self.maybe_text("handoff_sim.parent_run_id"),
        }

    def _run_end(self) -> Fields:
        return "run_end", self.on() | {
            "status": self.choice("handoff_sim.status", _RUN_STATUS),
            "output": self.maybe_text("handoff_sim.output"),
            "steps": self.integer("handoff_sim.steps"),
            "error": self.maybe_text("handoff_sim.error"),
        }

    def _model_request(self) -> Fields:
        return "model_request", self.on() | {
            "step": self.integer("handoff_sim.step", 1),
            "messages": self.integer("handoff_sim.messages"),
            "tools": self.names("handoff_sim.tools"),
        }

    def _model_response(self) -> Fields:
        return "model_response", self.on() | {
            "step": self.integer("handoff_sim.step", 1),
            "text": self.maybe_text("handoff_sim.text"),
            "tool_calls": self.names("handoff_sim.tool_calls"),
        }

    def _call(self) -> dict[str, Any]:
        return {"call_id": self.text(GEN_AI_TOOL_CALL_ID), "tool": self.text(GEN_AI_TOOL_NAME)}

    def _tool_start(self) -> Fields:
        arguments = self.text(GEN_AI_TOOL_ARGUMENTS)
        return "tool_start", self.on() | self._call() | {"arguments": arguments}

    def _tool_end(self) -> Fields:
        return "tool_end", self.on() | self._call() | {
            "status": self.choice("handoff_sim.status", _TOOL_STATUS),
            "output": self.maybe_text(GEN_AI_TOOL_RESULT),
        }

    def _attempt(self) -> dict[str, Any]:
        return self.on(depths=HANDOFF_DEPTHS) | {
            "handoff_id": self.text(f"{HANDOFF}id"),
            "call_id": self.text("handoff_sim.call_id"),
            "tool": self.text("handoff_sim.tool"),
            "attempt": self.integer(ATTEMPT, 1),
        }

    def _attempt_start(self) -> Fields:
        return "handoff_attempt_start", self._attempt()

    def _attempt_end(self) -> Fields:
        return "handoff_attempt_end", self._attempt() | {
            "outcome": self.choice("handoff_sim.outcome", _OUTCOMES),
            "duration_ms": self.duration("handoff_sim.duration_ms"),
            "error": self.maybe_text("handoff_sim.error"),
        }

    # -- the handoff of an agent-as-tool span -----------------------------------------------

    def _has_event(self, name: str) -> bool:
        return any(event.name == name for event in self.span.events)

    def _handoff(self) -> dict[str, Any]:
        return (
            self.on(f"{HANDOFF}depth", HANDOFF_DEPTHS)
            | self._call()
            | {
                "handoff_id": self.text(f"{HANDOFF}id"),
                "parent_handoff_id": self.maybe_text(f"{HANDOFF}parent_id"),
                "subagent": self.text(f"{HANDOFF}subagent"),
                "session_mode": self.text(f"{HANDOFF}session_mode"),
                "session_id": self.maybe_text(f"{HANDOFF}session_id"),
            }
        )

    def handoff_start(self) -> dict[str, Any] | None:
        """The ``handoff_start`` fields, when the span holds that event."""
        return self._handoff() if self._has_event(EVENT_HANDOFF_START) else None

    def handoff_end(self) -> dict[str, Any] | None:
        """The ``handoff_end`` fields, when the span holds that event."""
        if not self._has_event(EVENT_HANDOFF_END):
            return None
        return self._handoff() | {
            "status": self.choice(f"{HANDOFF}status", _HANDOFF_STATUS),
            "reason": self.choice(f"{HANDOFF}reason", _REASONS, optional=True),
            "attempts": self.integer(f"{HANDOFF}attempts"),
            "duration_ms": self.duration(f"{HANDOFF}duration_ms"),
            "output": self.maybe_text(f"{HANDOFF}output"),
            "error": self.maybe_text(f"{HANDOFF}error"),
        }

    # -- confirmation requests and decisions: span events of a run span -------------------------

    def confirmations(self) -> list[tuple[str, RawEvent, dict[str, Any]]]:
        """``(event type, span event, fields)`` of each confirmation the run span holds."""
        found = []
        for index, event in enumerate(self.span.events):
            kind = _CONFIRMATIONS.get(event.name)
            if kind is not None:
                fields = OurFields(self.label, self.span, index)._confirmation(kind)
                found.append((kind, event, self.on() | fields))
        return found

    def _confirmation(self, kind: str) -> dict[str, Any]:
        batch = {"batch_id": self.text(f"{CONFIRMATION}batch_id")}
        if kind == "confirmation_request":
            tools = self.names(f"{CONFIRMATION}tools")
            risks = self.names(f"{CONFIRMATION}risks")
            for risk in risks:
                if risk not in _TIERS:
                    raise self._fail(
                        f"{CONFIRMATION}risks", f"{risk!r} is not one of safe, caution, destructive"
                    )
            return batch | {
                "call_ids": self.names(f"{CONFIRMATION}call_ids"),
                "tools": tools,
                "risks": risks,
            }
        return batch | {
            "call_id": self.text(f"{CONFIRMATION}call_id"),
            "tool": self.text(f"{CONFIRMATION}tool"),
            "risk": self.choice(f"{CONFIRMATION}risk", _TIERS),
            "decision": self.choice(f"{CONFIRMATION}decision", _DECISIONS),
            "error": self.maybe_text(f"{CONFIRMATION}error"),
        }
