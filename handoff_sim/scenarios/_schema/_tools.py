"""The fake tools of a scenario file, and the catch-all primary executor an agent may have."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.config import JsonDict

from handoff_sim.scenarios._schema._raises import RaisesSpec
from handoff_sim.scenarios._schema._recorded import ToolAnswerSpec, ToolOutcomeSpec
from handoff_sim.scenarios._schema._types import (
    RETURNS_OR_RAISES,
    Duration,
    json_given,
    json_set,
)

__all__ = ["FakeToolSpec", "ToolExecutorSpec"]

_TABLE_KEYS = ("answers", "sequence", "default")
_ANSWERS_ALONE: JsonDict = {
    "if": {"anyOf": [json_set(key) for key in _TABLE_KEYS]},
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

    A data-driven tool answers from a table instead: ``sequence`` by call number (``null``:
    that call by the rest), else the first of ``answers`` whose ``arguments`` fit, else
    ``default``. A recording's ``answers`` are its recorded calls, each served once.
    """

    model_config = ConfigDict(json_schema_extra={**RETURNS_OR_RAISES, "allOf": [_ANSWERS_ALONE]})

    description: str = ""
    parameters: dict[str, Any] | None = None
    risk: Literal["safe", "caution", "destructive"] = "safe"
    answers: list[ToolAnswerSpec] | None = Field(
        default=None,
        description="answers by arguments: the first whose arguments pattern fits the call "
        "(in a recording: the first unused one whose arguments equal the call's)",
    )
    sequence: list[ToolOutcomeSpec | None] | None = Field(
        default=None,
        description="what call 1, 2, ... does; null: that call is answered by answers or default",
    )
    default: ToolOutcomeSpec | None = Field(
        default=None, description="what a call does when neither sequence nor answers say"
    )

    @model_validator(mode="after")
    def _answers_alone(self) -> FakeToolSpec:
        if self.is_table():
            given = sorted({"returns", "raises", "latency"} & self.model_fields_set)
            if given:
                raise ValueError(
                    "a tool with 'answers', 'sequence' or 'default' takes what it returns and "
                    "its latency from them: remove " + ", ".join(f"'{key}'" for key in given)
                )
        return self

    def is_table(self) -> bool:
        """Whether the tool answers from a table (answers, a sequence or a default)."""
        return any(getattr(self, key) is not None for key in _TABLE_KEYS)
