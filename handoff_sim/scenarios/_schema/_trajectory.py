"""``expect.trajectory``: the tool calls of a scope against call patterns, in a mode.

The shape agentevals users know — a match mode, an argument mode with per-tool overrides
— plus count bounds per pattern and a scope in the delegation tree. The matching itself
is ``handoff_sim._trajectory``'s; this is the written form, checked at load.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema, model_validator
from pydantic.config import JsonDict

from handoff_sim.scenarios._schema._types import DEF_KEY, json_given, json_set

__all__ = ["CallExpect", "ScopeExpect", "TrajectoryExpect"]

TrajectoryMode = Literal["exact", "subsequence", "per_branch", "unordered", "superset", "subset"]
ArgsModeName = Literal["exact", "ignore", "subset", "superset"]
_TEXT = Annotated[Any, WithJsonSchema({DEF_KEY: "TextValue"})]
_ARGUMENTS = Annotated[Any, WithJsonSchema({DEF_KEY: "ArgumentsValue"})]
_COUNT_OR_BOUNDS: JsonDict = {
    "if": json_set("count"),
    "then": {"not": {"anyOf": json_given("min", "max")}},
}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class CallExpect(_Strict):
    """One expected call; ``count`` or ``min``/``max`` make it stand for every fitting call."""

    model_config = ConfigDict(json_schema_extra=_COUNT_OR_BOUNDS)

    tool: _TEXT = Field(default=None, description="the tool name, or a matcher")
    agent: _TEXT = Field(default=None, description="the agent that made the call, or a matcher")
    args: _ARGUMENTS = Field(
        default=None, description="the call's arguments as its argument mode compares them"
    )
    args_mode: ArgsModeName | None = Field(
        default=None, description="exact | ignore | subset | superset (default: the tool's)"
    )
    count: int | None = Field(default=None, ge=0, description="exactly this many fitting calls")
    min: int | None = Field(default=None, ge=0, description="at least this many fitting calls")
    max: int | None = Field(default=None, ge=0, description="at most this many fitting calls")

    @model_validator(mode="after")
    def _bounds(self) -> CallExpect:
        if self.count is not None and (self.min is not None or self.max is not None):
            raise ValueError("give either 'count' or 'min'/'max', not both")
        if self.min is not None and self.max is not None and self.max < self.min:
            raise ValueError(f"'max' ({self.max}) must be >= 'min' ({self.min})")
        return self

    def written(self) -> dict[str, Any]:
        """The pattern as the engine reads it: only the keys given."""
        return {k: getattr(self, k) for k in type(self).model_fields if k in self.model_fields_set}


class ScopeExpect(_Strict):
    """Which calls the trajectory looks at; every key given must hold."""

    agent: _TEXT = Field(default=None, description="calls made by this agent")
    handoff: _TEXT = Field(
        default=None, description="calls made inside a handoff by this delegation tool"
    )
    depth: int | None = Field(default=None, ge=0, description="calls made at this depth")
    branch: list[str] | None = Field(
        default=None,
        min_length=1,
        description="calls made by the run at the end of this path of agents, top first",
    )


class TrajectoryExpect(_Strict):
    """The calls of a scope against ``calls`` in ``mode`` (default ``exact``)."""

    mode: TrajectoryMode = "exact"
    scope: ScopeExpect | None = None
    args_mode: ArgsModeName = "exact"
    tool_args_modes: dict[str, ArgsModeName] = Field(
        default_factory=dict, description="tool name -> its argument mode"
    )
    calls: list[Annotated[str, Field(min_length=1)] | CallExpect] = Field(
        description="tool names or call patterns"
    )

    def engine_args(self) -> dict[str, Any]:
        """The keyword arguments of the trajectory engine's ``trajectory_spec``."""
        scope = self.scope.model_dump(exclude_unset=True) if self.scope is not None else None
        return {
            "calls": [c if isinstance(c, str) else c.written() for c in self.calls],
            "mode": self.mode,
            "scope": scope,
            "args_mode": self.args_mode,
            "tool_args_modes": self.tool_args_modes,
        }
