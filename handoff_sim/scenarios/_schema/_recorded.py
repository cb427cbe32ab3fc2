"""What a recording adds to a scenario file: provenance, request fingerprints, usage, tool answers.

A recording is an ordinary scenario file; these blocks say where it came from
(``recorded:``), which request each script step answered (``request:``), what it cost
(``usage:``) and what each recorded tool call returned (``answers:``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema, model_validator

from handoff_sim.scenarios._schema._raises import RaisesSpec
from handoff_sim.scenarios._schema._types import RETURNS_OR_RAISES, Duration

__all__ = [
    "HASH_PATTERN",
    "MAX_TOKENS",
    "RECORDING_FORMAT",
    "MatchMode",
    "RecordedSpec",
    "RequestSpec",
    "ToolAnswerSpec",
    "UsageSpec",
]

RECORDING_FORMAT = 1
"""The recording format this handoff-sim reads and writes."""

HASH_PATTERN = r"^[0-9a-f]{16}$"
"""A fingerprint hash: the first 16 hex digits of a sha256."""

MAX_TOKENS = 2**53
"""A token count: at most what a JSON number holds exactly."""

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


class ToolAnswerSpec(_Strict):
    """One recorded call of a tool: the arguments it got, what it returned or raised, how long."""

    model_config = ConfigDict(json_schema_extra=RETURNS_OR_RAISES)

    arguments: dict[str, Any] | str | None = Field(
        default=None,
        description="the call's arguments (a mapping, or the raw JSON text); "
        "left out: any arguments",
    )
    returns: Any = Field(default="", description="what the call returned (text, or JSON)")
    raises: str | RaisesSpec | None = Field(default=None, description="what the call raised")
    latency: Duration = 0.0

    @model_validator(mode="after")
    def _returns_or_raises(self) -> ToolAnswerSpec:
        if "returns" in self.model_fields_set and self.raises is not None:
            raise ValueError("give either 'returns' or 'raises', not both")
        return self
