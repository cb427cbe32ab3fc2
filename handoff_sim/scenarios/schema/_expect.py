"""What a scenario expects: output, error, handoff summaries, trace events, snapshot."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema, field_validator

from handoff_sim.events import EVENT_TYPES, EventType, HandoffReason, HandoffStatus
from handoff_sim.scenarios.schema._types import (
    DEF_KEY,
    DURATION_JSON,
    DURATION_STRING_JSON,
    MS_JSON,
    Duration,
    Milliseconds,
    regex_problem,
)

__all__ = [
    "EVENT_JSON_DEFS",
    "EVENT_PATTERN_JSON_SCHEMA",
    "ErrorExpect",
    "ExpectSpec",
    "HandoffExpect",
    "Regex",
    "SessionExpect",
    "TextExpect",
    "TraceExpect",
    "TurnExpectSpec",
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


def _compile(pattern: str) -> str:
    problem = regex_problem(pattern)
    if problem is not None:
        raise ValueError(problem)
    return pattern


class Regex(_Strict):
    """A string expectation by regular expression (``re.search``)."""

    match: str

    _check = field_validator("match")(classmethod(lambda cls, v: _compile(v)))


TextExpect = str | Regex
HandoffStatusName = HandoffStatus
HandoffReasonName = HandoffReason
EventTypeName = EventType


class ErrorExpect(_Strict):
    """The run raises: ``type`` is the class name (or a base class name), ``match`` a regex."""

    type: str | None = None
    match: str | None = None

    _check = field_validator("match")(classmethod(lambda cls, v: v if v is None else _compile(v)))


class TurnExpectSpec(_Strict):
    """Expectations on one turn."""

    output: TextExpect | None = None
    error: ErrorExpect | None = None


class HandoffExpect(_Strict):
    """A per-handoff summary; only the fields given are compared."""

    tool: str | None = None
    subagent: str | None = None
    status: HandoffStatusName | None = None
    reason: HandoffReasonName | None = None
    attempts: int | None = Field(default=None, ge=0)
    depth: int | None = Field(default=None, ge=1)
    output: TextExpect | None = None
    error: TextExpect | None = None
    duration: Duration | None = None
    duration_ms: Milliseconds | None = None


_MATCH_JSON: dict[str, Any] = {DEF_KEY: "EventMatch"}
_FIELD_JSON: dict[str, Any] = {DEF_KEY: "EventValue"}
_TIMED_JSON: dict[str, dict[str, Any]] = {
    "t": {"anyOf": [DURATION_JSON, _MATCH_JSON]},
    "duration_ms": {"anyOf": [MS_JSON, DURATION_STRING_JSON, _MATCH_JSON]},
}


def _pattern_schema() -> dict[str, Any]:
    """JSON Schema of one event pattern: ``type`` plus any fields of that event type."""
    variants = []
    for name, cls in EVENT_TYPES.items():
        fields = [f for f in getattr(cls, "__dataclass_fields__", {}) if f != "type"]
        variants.append(
            {
                "type": "object",
                "properties": {
                    "type": {"const": name},
                    **{f: _TIMED_JSON.get(f, _FIELD_JSON) for f in fields},
                },
                "required": ["type"],
                "additionalProperties": False,
            }
        )
    return {"oneOf": variants, "description": "an event: 'type' plus fields to compare"}


EVENT_PATTERN_JSON_SCHEMA = _pattern_schema()

EVENT_JSON_DEFS: dict[str, Any] = {
    "EventPattern": EVENT_PATTERN_JSON_SCHEMA,
    "EventMatch": {
        "type": "object",
        "properties": {"match": {"type": "string"}},
        "required": ["match"],
        "additionalProperties": False,
        "description": "{match: <regular expression>}, searched in the value",
    },
    "EventValue": {
        "anyOf": [{"not": {"type": "object"}}, _MATCH_JSON],
        "description": "a value to compare, or {match: <regular expression>}",
    },
}
"""Definitions the event patterns of the scenario schema refer to."""
EventPattern = Annotated[dict[str, Any], WithJsonSchema({DEF_KEY: "EventPattern"})]


class TraceExpect(_Strict):
    """Events to find in the trace.

    ``exact``: the events (of ``types``, if given) one for one; ``subsequence``:
    in order, others may come between; ``per_branch``: in order within each
    branch (an agent run, or one tool call), interleaving across branches ignored.
    """

    match: Literal["exact", "subsequence", "per_branch"] = "subsequence"
    types: list[EventTypeName] | None = None
    events: list[EventPattern] = Field(default_factory=list)


class SessionExpect(_Strict):
    """One saved session; only the fields given are compared."""

    title: str | None = None
    agent: str | None = None
    status: Literal["open", "completed", "failed", "cancelled"] | None = None
    parent_session_id: str | None = Field(
        default=None, description="the recorded parent session id, as written (null: none)"
    )
    parent_agent: str | None = Field(
        default=None, description="the agent of the session recorded as the parent"
    )


class ExpectSpec(_Strict):
    """What the scenario expects after its last turn."""

    output: TextExpect | None = None
    error: ErrorExpect | None = None
    handoffs: list[HandoffExpect] | None = None
    trace: TraceExpect | list[EventPattern] | None = None
    snapshot: bool = False
    elapsed: Duration | None = None
    sessions: list[SessionExpect] | None = Field(
        default=None,
        description="every session saved during the run, one pattern each, in any order",
    )
    tool_runs: dict[str, Annotated[int, Field(ge=0)]] | None = Field(
        default=None, description="fake tool name -> how many times its body actually ran"
    )

    def trace_spec(self) -> TraceExpect | None:
        """``trace`` with the list shorthand read as a subsequence."""
        if isinstance(self.trace, list):
            return TraceExpect(events=self.trace)
        return self.trace
