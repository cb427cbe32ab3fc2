"""``SubAgent``: mount an agent as one tool of its parent (S1–S3)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from handoff_sim.errors import ConfigurationError, InvalidNameError
from handoff_sim.messages import ToolSpec
from handoff_sim.subagents._naming import check_explicit_tool_name, normalize_tool_name
from handoff_sim.subagents.policy import SessionMode

if TYPE_CHECKING:
    from handoff_sim.agent import Agent

__all__ = ["DELEGATION_SCHEMA", "SessionScope", "SubAgent"]

SessionScope = Literal["agent", "parent_session"]

DELEGATION_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "task": {"type": "string", "description": "Task to delegate to this subagent"},
        "context": {"type": "string", "description": "Optional extra context for the task"},
    },
    "required": ["task"],
}


class SubAgent:
    """An agent offered to a parent's model as one tool.

    ``tool_name`` defaults to :func:`normalize_tool_name` of ``name``; an explicit
    one is trimmed and must match ``^[A-Za-z0-9_-]{1,64}$``. A blank description
    becomes ``Delegate a specialized task to subagent <name>``.
    ``session_scope="parent_session"`` keeps one reused session per parent session
    instead of one for the parent agent's lifetime (S13).
    """

    __slots__ = ("agent", "description", "name", "session_mode", "session_scope", "tool_name")

    def __init__(
        self,
        name: str,
        description: str = "",
        agent: Agent | None = None,
        tool_name: str | None = None,
        session_mode: SessionMode | str = SessionMode.NEW_SESSION,
        *,
        session_scope: SessionScope = "agent",
    ) -> None:
        if agent is None:
            raise ConfigurationError("subagent agent is required")
        trimmed = (name or "").strip()
        if not trimmed:
            raise InvalidNameError("subagent name is required")
        if session_scope not in ("agent", "parent_session"):
            raise ConfigurationError(
                f"subagent {trimmed!r}: session_scope must be 'agent' or 'parent_session', "
                f"got {session_scope!r}"
            )
        self.name = trimmed
        self.agent = agent
        self.description = (description or "").strip() or (
            f"Delegate a specialized task to subagent {trimmed}"
        )
        explicit = (tool_name or "").strip()
        self.tool_name = check_explicit_tool_name(explicit) if explicit else normalize_tool_name(trimmed)
        self.session_mode = SessionMode(session_mode)
        self.session_scope: SessionScope = session_scope

    def __repr__(self) -> str:
        return f"SubAgent(name={self.name!r}, tool_name={self.tool_name!r})"

    @property
    def spec(self) -> ToolSpec:
        """The tool the parent's model sees: ``{task, context}`` parameters (S3)."""
        return ToolSpec(self.tool_name, self.description, DELEGATION_SCHEMA)
