"""The gates a recorded trace is held to, as a validated pydantic model with a JSON Schema.

A gate file (YAML) and ``--gate KEY=VALUE`` options both become one :class:`Gates`.
Durations take the scenario files' form (``40s``, ``250ms``); rates a fraction
(``0.05``) or a percentage (``"5%"``); counts are bounded integers. ``max_loops`` is
0 unless set: a delegation loop fails a gate check unless allowed (``null`` turns it off).
"""

from __future__ import annotations

import math
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema

from handoff_sim._durations import parse_duration
from handoff_sim._limits import MAX_NESTING

__all__ = ["MAX_COUNT", "Gates", "LatencyGates", "Rate", "gates_json_schema"]

MAX_COUNT = 1_000_000_000
"""The largest count a gate takes (attempts, handoffs, loops): far above any real trace."""

_DURATION_JSON: dict[str, Any] = {
    "anyOf": [
        {"type": "number", "minimum": 0},
        {"type": "string", "pattern": r"^\s*([0-9]+(\.[0-9]+)?|\.[0-9]+)\s*(us|ms|s|m|h)?\s*$"},
    ],
    "description": "seconds, or a number with a unit (us, ms, s, m, h) like '40s'; at most a year",
}
_RATE_JSON: dict[str, Any] = {
    "anyOf": [
        {"type": "number", "minimum": 0, "maximum": 1},
        {"type": "string", "pattern": r"^\s*[0-9]+(\.[0-9]+)?\s*%\s*$"},
    ],
    "description": "a fraction from 0 to 1, or a percentage like '5%'",
}


def _rate(value: object) -> object:
    """``"5%"`` as 0.05; a number as it is; anything else is left to the float check."""
    if isinstance(value, str) and value.strip().endswith("%"):
        number = value.strip()[:-1].strip()
        try:
            found = float(number)
        except ValueError:
            raise ValueError(f"invalid rate {value!r}: expected a percentage like '5%'") from None
        if not math.isfinite(found) or not 0 <= found <= 100:
            raise ValueError(f"invalid rate {value!r}: a percentage from 0% to 100%")
        return found / 100
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"invalid rate {value}: must be a finite number from 0 to 1")
    return value


Duration = Annotated[float, BeforeValidator(parse_duration), WithJsonSchema(_DURATION_JSON)]
"""A duration in seconds, read as a scenario file reads one."""

Rate = Annotated[
    float,
    BeforeValidator(_rate),
    Field(ge=0, le=1, allow_inf_nan=False),
    WithJsonSchema(_RATE_JSON),
]
"""A fraction from 0 to 1 (``"5%"`` is 0.05)."""

Count = Annotated[int, Field(ge=0, le=MAX_COUNT, strict=True)]
Name = Annotated[str, Field(min_length=1, max_length=256)]

_STRICT = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class Thresholds(BaseModel):
    """Latency bounds of some handoffs: percentiles by the nearest-rank method, and the max."""

    model_config = _STRICT

    p50: Duration | None = None
    p95: Duration | None = None
    p99: Duration | None = None
    max: Duration | None = None


class LatencyGates(Thresholds):
    """Handoff latency bounds over every handoff, and for the handoffs of one tool or agent."""

    per_tool: dict[Name, Thresholds] = Field(default_factory=dict)
    """By the sub-agent tool the caller called (``delegate_billing``)."""
    per_agent: dict[Name, Thresholds] = Field(default_factory=dict)
    """By the sub-agent that served the handoff (``billing``)."""


class Gates(BaseModel):
    """What a trace must hold to: each field set is one gate (or one per tool, agent)."""

    model_config = _STRICT

    handoff_latency: LatencyGates = Field(default_factory=LatencyGates)
    max_attempts: Count | None = None
    """Attempts of any one handoff."""
    max_handoffs: Count | None = None
    """Handoffs made in one top-level run, its whole delegation tree counted."""
    max_depth: Annotated[int, Field(ge=0, le=MAX_NESTING + 1, strict=True)] | None = None
    """The deepest handoff (a first delegation is depth 1)."""
    max_loops: Count | None = 0
    """Handoffs that re-enter an agent already on their branch (A→B→A); ``None``: no gate."""
    forbidden_tools: dict[Name, list[Name]] = Field(default_factory=dict)
    """Tools an agent (``"*"``: any agent) must never call, handoff tools included."""
    max_handoff_error_rate: Rate | None = None
    """Failed handoffs (failed, fallback, unavailable) over the handoffs not denied."""
    max_tool_error_rate: Rate | None = None
    """Plain tool calls that ended in an error over the plain tool calls that ended."""


def gates_json_schema() -> dict[str, Any]:
    """The JSON Schema of a gate file."""
    schema = Gates.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "handoff-sim gates"
    return schema
