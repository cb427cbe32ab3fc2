"""What a recording adds to a scenario file: provenance, request fingerprints, usage, tool answers.

A recording is an ordinary scenario file; these blocks say where it came from
(``recorded:``), which request each script step answered (``request:``), what it cost
(``usage:``) and what each recorded tool call returned (``answers:``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema, model_validator
from pydantic.config import JsonDict

from handoff_sim.scenarios._schema._raises import RaisesSpec
from handoff_sim.scenarios._schema._types import DEF_KEY, Duration, json_set

__all__ = [
    "HASH_PATTERN",
    "MAX_TOKENS",
    "OUTCOME_KEYS",
    "RECORDING_FORMAT",
    "MatchMode",
    "RateLimitSpec",
    "RecordedSpec",
    "RequestSpec",
    "ToolAnswerSpec",
    "ToolOutcomeSpec",
    "UsageSpec",
]

RECORDING_FORMAT = 1
"""The recording format this handoff-sim reads and writes."""

HASH_PATTERN = r"^[0-9a-f]{16}$"
"""A fingerprint hash: the first 16 hex digits of a sha256."""

MAX_TOKENS = 2**53
"""A token count: at most what a JSON number holds exactly."""

OUTCOME_KEYS = ("returns", "raises", "timeout", "rate_limit", "malformed")
"""What one call of a fake tool can do: return, or play one fault."""

MatchMode = Literal["fingerprint", "tools", "order"]
"""How a replay matches a request to a recorded step."""

_DATE_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


def _format_number(value: object) -> int:
    """The format number if this handoff-sim reads it; else why not, naming the one it reads."""
    if value == RECORDING_FORMAT and type(value) in (int, float):  # 1.0 is JSON's 1 too
        return RECORDING_FORMAT
    shown = repr(value) if isinstance(value, int | float | str) else type(value).__name__
    raise ValueError(
        f"recording format {shown[:40]} is not supported: this handoff-sim reads "
        f"format {RECORDING_FORMAT} (write 'format: {RECORDING_FORMAT}', or re-record the run)"
    )


RecordingFormat = Annotated[
    int,
    BeforeValidator(_format_number),
    WithJsonSchema(
        {
            "const": RECORDING_FORMAT,
            "description": f"the recording format; this handoff-sim reads {RECORDING_FORMAT}",
        }
    ),
]


class RecordedSpec(_Strict):
    """Where a recording came from; its presence makes the scripted models replays."""

    format: RecordingFormat = Field(description="the recording format (1)")
    runtime: Literal["handoff-sim", "openai-agents", "pydantic-ai"] = Field(
        default="handoff-sim", description="the runtime the run was recorded on"
    )
    match: MatchMode = Field(
        default="fingerprint",
        description="how a replay matches requests to recorded steps: fingerprint (the "
        "request's fingerprint), tools (the offered tool names only), order (none)",
    )
    versions: dict[str, str] = Field(
        default_factory=dict, description="package -> version the run was recorded with"
    )
    models: dict[str, str] = Field(
        default_factory=dict, description="agent -> the model name its requests named"
    )
    date: str | None = Field(
        default=None, pattern=_DATE_PATTERN, description="when it was recorded (UTC, seconds)"
    )
    tools: Literal["live", "recorded"] = Field(
        default="live", description="recorded: the plain tools' calls are in the file"
    )
    redacted: list[str] = Field(
        default_factory=list, description="what was redacted (never the secret itself)"
    )
    notes: list[str] = Field(
        default_factory=list,
        description="what the recording could not recover (e.g. from trace spans), in words",
    )


class RequestSpec(_Strict):
    """The fingerprint of the request a recorded step answered."""

    model: str = Field(default="", description="the model name the request named")
    tools: list[str] = Field(default_factory=list, description="the offered tool names, in order")
    role: Literal["system", "user", "assistant", "tool"] = Field(
        description="the role of the request's last message"
    )
    sha256: str = Field(
        pattern=HASH_PATTERN,
        description="16 hex digits of the sha256 of the normalised last message",
    )
    system: str | None = Field(
        default=None,
        pattern=HASH_PATTERN,
        description="16 hex digits of the sha256 of the normalised system prompt",
    )
    text: str = Field(
        default="", description="a preview of the last message, shown in a mismatch (not compared)"
    )


class UsageSpec(_Strict):
    """The tokens a recorded model call used."""

    input_tokens: int = Field(default=0, ge=0, le=MAX_TOKENS)
    output_tokens: int = Field(default=0, ge=0, le=MAX_TOKENS)


class RateLimitSpec(_Strict):
    """A rate-limit fault: the message, and the ``retry_after`` the service asked for."""

    message: str = "rate limited (429)"
    retry_after: Duration | None = None


_ONE_OUTCOME: JsonDict = {
    "not": {
        "anyOf": [
            {"allOf": [json_set(a), json_set(b)]}
            for i, a in enumerate(OUTCOME_KEYS)
            for b in OUTCOME_KEYS[i + 1 :]
        ]
    }
}


class ToolOutcomeSpec(_Strict):
    """What one call of a fake tool does: returns a value or plays one fault, after latency."""

    model_config = ConfigDict(json_schema_extra=_ONE_OUTCOME)

    returns: Any = Field(default="", description="what the call returns (text, or JSON)")
    raises: str | RaisesSpec | None = Field(default=None, description="what the call raises")
    timeout: bool | None = Field(
        default=None, description="true: the call never answers (a caller's timeout ends it)"
    )
    rate_limit: bool | str | RateLimitSpec | None = Field(
        default=None, description="a rate-limit error (true, a message, or {message, retry_after})"
    )
    malformed: bool | str | None = Field(
        default=None, description="a result that is not what it should be: true, or the raw text"
    )
    latency: Duration = 0.0

    def _given(self) -> list[str]:
        """The outcome keys written (a fault written ``false`` or ``null`` is not)."""
        return [
            k
            for k in OUTCOME_KEYS
            if k in self.model_fields_set
            and (k == "returns" or getattr(self, k) not in (None, False))
        ]

    @model_validator(mode="after")
    def _one_outcome(self) -> ToolOutcomeSpec:
        given = self._given()
        if len(given) > 1:
            raise ValueError(
                "give one of 'returns', 'raises', 'timeout', 'rate_limit' or 'malformed', not "
                + " and ".join(f"'{k}'" for k in given)
            )
        return self

    def outcome(self) -> dict[str, Any]:
        """The outcome as the data-driven fakes read it (no outcome key: it returns ``returns``)."""
        key = next(iter(self._given()), "returns")
        value = getattr(self, key)
        if isinstance(value, BaseModel):
            value = value.model_dump(exclude_none=True)
        return {key: value, "latency": self.latency}


class ToolAnswerSpec(ToolOutcomeSpec):
    """One answer of a tool: the ``arguments`` it fits, and what the call then does.

    In a recording the arguments are the call's own; written by hand they may be any
    value pattern (``{subset: {...}}``, ``{match: ...}``).
    """

    arguments: Annotated[Any, WithJsonSchema({DEF_KEY: "AnyValue"})] = Field(
        default=None,
        description="the call's arguments (a mapping, raw JSON text, or a matcher); "
        "left out: any arguments",
    )
