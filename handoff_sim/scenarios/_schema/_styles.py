"""Scenario keys for the Flink and SoPhi delegation styles.

A SoPhi dispatcher sits on an agent (``dispatcher:``) or is mounted like a
sub-agent (``subagents: [{dispatcher: ...}]``); its agent types are declared
under the top-level ``agent_types:`` or read from Markdown files in
``agent_types_dir:``. Flink mounts are ordinary sub-agent entries with
``style: flink`` (see ``SubAgentSpec``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "AgentTypesDirSpec",
    "ApproveSpec",
    "ConfirmSpec",
    "DispatcherMountSpec",
    "DispatcherSpec",
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class ApproveSpec(_Strict):
    """A confirmation policy approving exactly the calls of the named tools."""

    approve: list[str] = Field(
        description="tool names whose risky calls are approved; every other one is refused"
    )


ConfirmSpec = Literal["allow_all", "deny_all"] | ApproveSpec


class DispatcherSpec(_Strict):
    """SoPhi's ``delegate_to_subagent`` tool.

    The agent's own ``tools`` are the full registry every sub-agent is scoped from.
    """

    agent_types: list[str] = Field(
        description="names from agent_types / agent_types_dir this dispatcher offers",
        json_schema_extra={"uniqueItems": True},
    )
    max_delegation_depth: int = Field(
        default=3, ge=0, description="a call at depth >= this is refused (top agent: depth 0)"
    )
    confirm: ConfirmSpec = Field(
        default="allow_all",
        description="allow_all | deny_all | {approve: [tool names]}: decides non-SAFE calls",
    )
    parent_session_id: str | None = Field(
        default=None,
        description="recorded as every sub-agent session's parent (default: the top session)",
    )


class DispatcherMountSpec(_Strict):
    """A dispatcher mounted beside other sub-agents: ``- dispatcher: {...}``."""

    dispatcher: DispatcherSpec


class AgentTypesDirSpec(_Strict):
    """Agent definition files (``*.md``) next to the scenario file."""

    path: str = Field(min_length=1, description="a directory, relative to the scenario file")
    skip_invalid: list[str] = Field(
        default_factory=list,
        description="file names known to be malformed: reported and skipped (others still load)",
    )
