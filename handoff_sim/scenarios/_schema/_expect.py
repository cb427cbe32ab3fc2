"""What a scenario expects: output, error, handoff summaries, trace events, sessions.

Wherever a value is compared it is a value pattern (``_patterns``): a value, or a
matcher such as ``{contains: ...}``, ``{subset: {...}}`` or ``{capture: name}``.
"""

from __future__ import annotations

import functools
import types
import typing
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema, field_validator, model_validator
from pydantic.config import JsonDict

from handoff_sim.events import EVENT_TYPES, EventType, HandoffReason, HandoffStatus
from handoff_sim.scenarios._schema._patterns import CAPTURE_NAME, PATTERN_JSON_DEFS
from handoff_sim.scenarios._schema._trajectory import TrajectoryExpect
from handoff_sim.scenarios._schema._types import (
    DEF_KEY,
    DURATION_JSON,
    DURATION_STRING_JSON,
    MS_JSON,
    Duration,
    Milliseconds,
    json_given,
    json_set,
    regex_problem,
)

__all__ = [
    "EVENT_JSON_DEFS",
    "EVENT_PATTERN_JSON_SCHEMA",
    "AnyPattern",
    "EnumField",
    "ErrorExpect",
    "ExpectSpec",
    "HandoffExpect",
    "MessageExpect",
    "Regex",
    "SessionChoice",
    "SessionExpect",
    "SessionRef",
    "TextExpect",
    "TextPattern",
    "TraceExpect",
    "TurnExpectSpec",
    "event_enums",
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


TextPattern = Annotated[Any, WithJsonSchema({DEF_KEY: "TextValue"})]
"""Text compared exactly, null, or a matcher; checked at load by the pattern rules."""
AnyPattern = Annotated[Any, WithJsonSchema({DEF_KEY: "AnyValue"})]
"""Any value (a plain mapping compared exactly) or a matcher."""
TextExpect = TextPattern
HandoffStatusName = HandoffStatus
HandoffReasonName = HandoffReason
EventTypeName = EventType


class ErrorExpect(_Strict):
    """The run raises: ``type`` is the class name (or a base class name), ``match`` a regex."""

    type: str | None = None
    match: str | None = None

    _check = field_validator("match")(classmethod(lambda cls, v: v if v is None else _compile(v)))


class SessionRef(_Strict):
    """A turn's session given as a value captured by an earlier turn: ``{ref: name}``."""

    ref: str = Field(pattern=CAPTURE_NAME)


SessionChoice = Literal["new", "continue"] | SessionRef
"""Which session a turn runs in: ``continue`` the previous turn's (the default), a ``new``
one, or ``{ref: name}``, the session an earlier turn captured with ``session_id``."""


class TurnExpectSpec(_Strict):
    """Expectations on one turn."""

    output: TextPattern = None
    error: ErrorExpect | None = None
    session_id: TextPattern = Field(
        default=None, description="the session the turn ran in; {capture: name} names it"
    )


class HandoffExpect(_Strict):
    """A per-handoff summary; only the fields given are compared."""

    tool: TextPattern = None
    subagent: TextPattern = None
    status: HandoffStatusName | None = None
    reason: HandoffReasonName | None = None
    attempts: int | None = Field(default=None, ge=0)
    depth: int | None = Field(default=None, ge=1)
    output: TextPattern = None
    error: TextPattern = None
    duration: Duration | None = None
    duration_ms: Milliseconds | None = None


_MATCH_JSON: dict[str, Any] = {DEF_KEY: "Matcher"}
_FIELD_JSON: dict[str, Any] = {DEF_KEY: "EventValue"}
_TIMED_JSON: dict[str, dict[str, Any]] = {
    "t": {"anyOf": [DURATION_JSON, _MATCH_JSON]},
    "duration_ms": {"anyOf": [MS_JSON, DURATION_STRING_JSON, _MATCH_JSON]},
}
_EXTRA_ENUMS: dict[str, tuple[str, ...]] = {"session_mode": ("new_session", "reuse_session")}
"""Fields typed as text in the events whose values are nevertheless a fixed set."""


@dataclass(frozen=True, slots=True)
class EnumField:
    """The values an event field can take: ``values``; ``null`` too when ``nullable``;
    ``many``: the field is a list of such values."""

    values: tuple[str, ...]
    nullable: bool = False
    many: bool = False


def _enum_of(hint: Any) -> EnumField | None:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is Literal:
        return EnumField(tuple(str(a) for a in args))
    if origin in (typing.Union, types.UnionType):
        found = [_enum_of(a) for a in args if a is not type(None)]
        if len(found) == 1 and found[0] is not None and type(None) in args:
            return EnumField(found[0].values, nullable=True, many=found[0].many)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        inner = _enum_of(args[0])
        if inner is not None and not inner.many:
            return EnumField(inner.values, many=True)
    return None


@functools.cache
def event_enums(event_type: str) -> dict[str, EnumField]:
    """The fields of ``event_type`` whose values are a fixed set, read from its annotations."""
    hints = typing.get_type_hints(EVENT_TYPES[event_type])
    found = {k: e for k, h in hints.items() if k != "type" and (e := _enum_of(h)) is not None}
    for key, values in _EXTRA_ENUMS.items():
        if key in hints:
            found[key] = EnumField(values)
    return found


def _enum_json(enum: EnumField) -> dict[str, Any]:
    one: dict[str, Any] = {"enum": [*enum.values, *([None] if enum.nullable else [])]}
    if enum.many:
        one = {"type": "array", "items": {"anyOf": [one, _MATCH_JSON]}}
    return {"anyOf": [one, _MATCH_JSON]}


def _field_json(event_type: str, field: str) -> dict[str, Any]:
    enum = event_enums(event_type).get(field)
    if enum is not None:
        return _enum_json(enum)
    return _TIMED_JSON.get(field, _FIELD_JSON)


def _pattern_schema() -> dict[str, Any]:
    """JSON Schema of one event pattern: ``type`` plus any fields of that event type."""
    variants = []
    for name, cls in EVENT_TYPES.items():
        fields = [f for f in cls.__struct_fields__ if f != "type"]
        variants.append(
            {
                "type": "object",
                "properties": {
                    "type": {"const": name},
                    **{f: _field_json(name, f) for f in fields},
                },
                "required": ["type"],
                "additionalProperties": False,
            }
        )
    return {"oneOf": variants, "description": "an event: 'type' plus fields to compare"}


EVENT_PATTERN_JSON_SCHEMA = _pattern_schema()

EVENT_JSON_DEFS: dict[str, Any] = {"EventPattern": EVENT_PATTERN_JSON_SCHEMA, **PATTERN_JSON_DEFS}
"""Definitions the event patterns and value patterns of the scenario schema refer to."""
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


class MessageExpect(_Strict):
    """One message of a session; only the fields given are compared."""

    role: Literal["system", "user", "assistant", "tool"] | None = None
    content: TextPattern = None
    name: TextPattern = None
    tool_call_id: TextPattern = None
    tool_calls: AnyPattern = Field(
        default=None, description="a list of {id, name, arguments}, as the message holds them"
    )
    is_error: bool | None = None


class SessionExpect(_Strict):
    """One saved session; only the fields given are compared."""

    id: TextPattern = None
    title: TextPattern = None
    agent: TextPattern = None
    status: Literal["open", "completed", "failed", "cancelled"] | None = None
    parent_session_id: TextPattern = Field(
        default=None, description="the recorded parent session id, as written (null: none)"
    )
    parent_agent: TextPattern = Field(
        default=None, description="the agent of the session recorded as the parent"
    )
    root_session_id: TextPattern = Field(
        default=None, description="the recorded root session id of its delegation tree"
    )
    root_agent: TextPattern = Field(
        default=None, description="the agent of the session recorded as the root"
    )
    messages: list[MessageExpect] | None = Field(
        default=None, description="every message of the session, one pattern each, in order"
    )


_COUNT_OR_BOUNDS: JsonDict = {
    "if": json_set("count"),
    "then": {"not": {"anyOf": json_given("min", "max")}},
}


class ToolRunsBound(_Strict):
    """How often a fake tool's body may run: exactly ``count``, or at least ``min`` and at
    most ``max`` times; with ``arguments``, only the runs whose arguments fit count."""

    model_config = ConfigDict(
        json_schema_extra={
            "if": json_set("count"),
            "then": {"not": {"anyOf": json_given("min", "max")}},
        }
    )

    count: int | None = Field(default=None, ge=0)
    min: int | None = Field(default=None, ge=0)
    max: int | None = Field(default=None, ge=0)
    arguments: AnyPattern = Field(
        default=None, description="count only the runs whose arguments fit this pattern"
    )

    @model_validator(mode="after")
    def _bounds(self) -> ToolRunsBound:
        if self.count is not None and (self.min is not None or self.max is not None):
            raise ValueError("give either 'count' or 'min'/'max', not both")
        if self.min is not None and self.max is not None and self.max < self.min:
            raise ValueError(f"'max' ({self.max}) must be >= 'min' ({self.min})")
        return self

    def holds(self, runs: int) -> bool:
        """Whether ``runs`` is within the bound."""
        if self.count is not None:
            return runs == self.count
        return (self.min or 0) <= runs and (self.max is None or runs <= self.max)

    def text(self) -> str:
        """``2``, ``at least 1``, ``at most 3``, ``1 to 3``."""
        if self.count is not None:
            return str(self.count)
        low, high = self.min or 0, self.max
        if high is None:
            return f"at least {low}"
        return f"at most {high}" if low == 0 else f"{low} to {high}"


class ExpectSpec(_Strict):
    """What the scenario expects after its last turn."""

    output: TextPattern = None
    error: ErrorExpect | None = None
    handoffs: list[HandoffExpect] | None = None
    trace: TraceExpect | list[EventPattern] | None = None
    snapshot: bool = False
    elapsed: Duration | None = None
    sessions: list[SessionExpect] | None = Field(
        default=None,
        description="every session saved during the run, one pattern each, in any order",
    )
    tool_runs: dict[str, Annotated[int, Field(ge=0)] | ToolRunsBound] | None = Field(
        default=None,
        description="fake tool name -> how many times its body actually ran "
        "(a number, or {count | min, max, arguments})",
    )
    trajectory: TrajectoryExpect | list[TrajectoryExpect] | None = Field(
        default=None, description="the tool calls of a scope against call patterns, in a mode"
    )

    def trajectories(self) -> list[TrajectoryExpect]:
        """``trajectory`` as a list (one mapping is a list of one)."""
        if self.trajectory is None:
            return []
        return self.trajectory if isinstance(self.trajectory, list) else [self.trajectory]

    def trace_spec(self) -> TraceExpect | None:
        """``trace`` with the list shorthand read as a subsequence."""
        if isinstance(self.trace, list):
            return TraceExpect(events=self.trace)
        return self.trace
