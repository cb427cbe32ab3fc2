"""The fake tools of a scenario file, and the catch-all primary executor an agent may have."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.config import JsonDict

from handoff_sim.scenarios._schema._raises import RaisesSpec
from handoff_sim.scenarios._schema._recorded import ToolAnswerSpec
from handoff_sim.scenarios._schema._types import (
    RETURNS_OR_RAISES,
    Duration,
    json_given,
    json_set,
)

__all__ = ["FakeToolSpec", "ToolExecutorSpec"]

_ANSWERS_ALONE: JsonDict = {
    "if": json_set("answers"),
    "then": {"not": {"anyOf": json_given("returns", "raises", "latency")}},
}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class ToolExecutorSpec(_Strict):
    """A primary executor that serves every tool name the agent's own tools do not.

    In string results ``{tool}`` becomes the call's tool name and ``{arguments}``
    its raw arguments.
    """

    model_config = ConfigDict(json_schema_extra=RETURNS_OR_RAISES)

    returns: Any = "ok"
    raises: str | RaisesSpec | None = None
    latency: Duration = 0.0

    @model_validator(mode="after")
    def _returns_or_raises(self) -> ToolExecutorSpec:
        if "returns" in self.model_fields_set and self.raises is not None:
            raise ValueError("give either 'returns' or 'raises', not both")
        return self


class FakeToolSpec(ToolExecutorSpec):
    """A fake plain tool: what it returns or raises, its latency and risk tier.

    With ``answers`` (a recording's tool calls) each call gets the first unused answer
    whose arguments equal its own; the answers then give what it returns and its latency.
    """

    model_config = ConfigDict(json_schema_extra={**RETURNS_OR_RAISES, "allOf": [_ANSWERS_ALONE]})

    description: str = ""
    parameters: dict[str, Any] | None = None
    risk: Literal["safe", "caution", "destructive"] = "safe"
    answers: list[ToolAnswerSpec] | None = Field(
        default=None,
        description="recorded calls, served in call order: the first unused answer whose "
        "arguments equal the call's",
    )

    @model_validator(mode="after")
    def _answers_alone(self) -> FakeToolSpec:
        if self.answers is not None:
            given = sorted({"returns", "raises", "latency"} & self.model_fields_set)
            if given:
                raise ValueError(
                    "a tool with 'answers' takes what it returns and its latency from each "
                    "answer: remove " + ", ".join(f"'{key}'" for key in given)
                )
        return self
