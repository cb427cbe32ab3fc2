"""The policy block of a scenario file: ``HandoffPolicy``'s fields as a file writes them.

Written out field by field (names, order, defaults, bounds, descriptions), so that a reader
and the JSON Schema see it as it is. Only a type a file cannot write has another form: a
set of tool names is a list, an action is its name, the timeout a duration (``250ms``),
the input filter an :class:`InputFilterBlock`, the retry classification a
:class:`RetryOnBlock` (an import path, imported only when the policy is built, never by
validation). ``tests/scenarios/test_policy_in_step.py`` keeps it in step with
``HandoffPolicy``: a field on one and not the other fails there.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from handoff_sim._limits import MAX_RETRIES
from handoff_sim.scenarios._schema._types import PositiveDuration
from handoff_sim.subagents._policy import InputFilterBlock, RetryOnBlock

__all__ = ["FailureActionName", "PolicyBlock", "PolicySpec"]

FailureActionName = Literal["fail", "fallback_to_primary", "report_to_model"]
"""A ``FailureAction`` as a file writes it: its value."""


class PolicyBlock(BaseModel):
    """What every policy block is: strict, frozen, no unknown keys; see :class:`PolicySpec`."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    def written(self) -> dict[str, Any]:
        """The fields the file writes, with their values (defaults are the policy's own)."""
        return {key: getattr(self, key) for key in self.model_fields_set}


class PolicySpec(PolicyBlock):
    """Every HandoffPolicy field as a file writes it; ``timeout`` as seconds or ``"250ms"``."""

    enabled: bool = Field(
        default=True,
        description="admission, input filter, retries and fallback apply "
        "(false: one attempt; events, depth and the timeout remain)",
    )
    max_depth: int = Field(
        default=1,
        ge=0,
        description="deepest handoff admitted (1: a delegate may not delegate further; "
        "0: no limit)",
    )
    max_retries: int = Field(
        default=0,
        ge=0,
        le=MAX_RETRIES,
        description="extra attempts after a failed one",
    )
    timeout: PositiveDuration | None = Field(
        default=None,
        description="time limit of each attempt: seconds, or a number with a unit (250ms, 30s); "
        "none by default",
    )
    allowed_tools: list[str] | None = Field(
        default=None,
        description="the only tool names admitted (all by default)",
    )
    denied_tools: list[str] | None = Field(
        default=None,
        description="tool names refused (none by default)",
    )
    on_denied: FailureActionName = Field(
        default="fail",
        description="what a denied handoff does (fail: the denial is raised)",
    )
    on_error: FailureActionName = Field(
        default="fail",
        description="what a handoff does once its last attempt failed "
        "(fail: the calling agent gets the error as the tool's result)",
    )
    input_filter: InputFilterBlock | None = Field(
        default=None,
        description="rewrites, keeps or refuses a call before it reaches the delegate",
    )
    retry_on: RetryOnBlock | None = Field(
        default=None,
        description="which failed attempts are retried: a Python function of the error "
        "(the mount's own classification by default)",
    )
