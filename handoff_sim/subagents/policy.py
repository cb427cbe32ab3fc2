"""The handoff policy: admission, retries, per-attempt timeout, fallback."""

from __future__ import annotations

import sys
from collections.abc import Callable
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from handoff_sim._durations import parse_duration, shown
from handoff_sim._limits import MAX_RETRIES
from handoff_sim.errors import PolicyError
from handoff_sim.events import HandoffReason
from handoff_sim.messages import ToolCall

__all__ = ["FailureAction", "HandoffPolicy", "InputFilter", "SessionMode"]

InputFilter = Callable[[ToolCall], ToolCall | None]


class FailureAction(StrEnum):
    """What happens when a handoff is denied or fails."""

    FAIL = "fail"
    FALLBACK_TO_PRIMARY = "fallback_to_primary"
    REPORT_TO_MODEL = "report_to_model"


class SessionMode(StrEnum):
    """Whether each handoff gets a fresh session or reuses one per tool."""

    NEW_SESSION = "new_session"
    REUSE_SESSION = "reuse_session"


class HandoffPolicy(BaseModel):
    """How an agent governs its handoffs. Frozen and validated at construction.

    ``max_depth=0`` means unlimited; ``timeout`` is per attempt, in seconds (or a
    string like ``"250ms"``), at most a (virtual) year; ``max_retries`` extra attempts
    (at most 100) follow a failure. Invalid values raise :class:`PolicyError` naming
    the field and the value.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    enabled: bool = True
    max_depth: int = Field(default=1, ge=0)
    max_retries: int = Field(default=0, ge=0, le=MAX_RETRIES)
    timeout: float | None = Field(default=None, gt=0)
    allowed_tools: frozenset[str] | None = None
    denied_tools: frozenset[str] | None = None
    on_denied: FailureAction = FailureAction.FAIL
    on_error: FailureAction = FailureAction.FAIL
    input_filter: InputFilter | None = None

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise PolicyError(_describe(exc, data)) from None

    @field_validator("timeout", mode="before")
    @classmethod
    def _parse_timeout(cls, value: Any) -> Any:
        return value if value is None else parse_duration(value)

    @field_validator("allowed_tools", "denied_tools", mode="before")
    @classmethod
    def _tool_set(cls, value: Any) -> Any:
        if isinstance(value, str):
            raise ValueError("must be a collection of tool names, not a single string")
        return value

    @property
    def attempts(self) -> int:
        """How many attempts a handoff gets: ``max(1, max_retries + 1)``."""
        return max(1, self.max_retries + 1)

    def deny_reason(self, tool: str, depth: int) -> tuple[HandoffReason, str] | None:
        """``(reason code, message)`` if admission refuses ``tool`` at ``depth``."""
        if self.allowed_tools and tool not in self.allowed_tools:
            return "not_allowed", "tool is not in allowed_tools"
        if self.denied_tools and tool in self.denied_tools:
            return "denied_tool", "tool is in denied_tools"
        if self.max_depth > 0 and depth > self.max_depth:
            return "max_depth", f"handoff depth {depth} exceeds max_depth {self.max_depth}"
        return None


_BOUNDS = {
    "greater_than_equal": ">=",
    "greater_than": ">",
    "less_than_equal": "<=",
    "less_than": "<",
}


def _describe(exc: ValidationError, data: dict[str, Any]) -> str:
    """``HandoffPolicy.max_retries: must be >= 0 (got -1)``: field, rule and value."""
    parts = []
    for err in exc.errors(include_url=False):
        field = ".".join(str(p) for p in err["loc"]) or "policy"
        value = data.get(str(err["loc"][0])) if err["loc"] else None
        bound = _BOUNDS.get(err["type"])
        context = err.get("ctx") or {}
        if bound is not None and context:
            limit = next(iter(context.values()))
            if isinstance(limit, float) and limit.is_integer():
                limit = int(limit)
            message = f"must be {bound} {limit}"
        else:
            message = err["msg"].removeprefix("Value error, ")
        parts.append(f"HandoffPolicy.{field}: {message} (got {shown(value)})")
    return "; ".join(parts)


if "hypothesis" in sys.modules:  # hypothesis loaded first: its entry point could not register
    from handoff_sim._hypothesis_plugin import register_policy_strategy

    register_policy_strategy()
