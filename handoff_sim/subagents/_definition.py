"""``SubAgent``: mount an agent as one tool of its parent: tool name, description, parameters."""

from __future__ import annotations

import inspect
import reprlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from handoff_sim._errors._configuration import InvalidNameError
from handoff_sim._errors._families import ConfigurationError
from handoff_sim._sessions import Session
from handoff_sim.events import HandoffReason
from handoff_sim.messages import ToolCall, ToolSpec
from handoff_sim.subagents._input import envelope, resolve_input
from handoff_sim.subagents._naming import check_explicit_tool_name, normalize_tool_name
from handoff_sim.subagents._policy import SessionMode
from handoff_sim.subagents._retry import check_classifier

if TYPE_CHECKING:
    from handoff_sim._agent import Agent

__all__ = ["DELEGATION_SCHEMA", "Refusal", "SessionScope", "SubAgent"]

SessionScope = Literal["agent", "parent_session"]

DELEGATION_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "task": {"type": "string", "description": "Task to delegate to this subagent"},
        "context": {"type": "string", "description": "Optional extra context for the task"},
    },
    "required": ["task"],
}


@dataclass(frozen=True, slots=True)
class Refusal:
    """A style's refusal of a call before any attempt: the tool result and the end reason.

    The handoff still gets its ``handoff_start``/``handoff_end`` pair (status
    ``denied``, 0 attempts), but no sub-agent runs and no model is called.
    """

    message: str
    reason: HandoffReason = "not_allowed"


class SubAgent:
    """An agent offered to a parent's model as one tool.

    ``tool_name`` defaults to :func:`normalize_tool_name` of ``name``; an explicit
    one is trimmed and must match ``^[A-Za-z0-9_-]{1,64}$``. A blank description
    becomes ``Delegate a specialized task to subagent <name>``.
    ``session_scope="parent_session"`` keeps one reused session per parent session
    instead of one for the parent agent's lifetime.
    ``retryable`` is the mount's own say on which failed attempts a retry can fix (a
    function of the error, True: retry); a policy's ``retry_on`` overrides it, and with
    neither every error is retried.
    """

    __slots__ = (
        "agent",
        "description",
        "name",
        "retryable",
        "session_mode",
        "session_scope",
        "tool_name",
    )

    mounts_stand_in: ClassVar[bool] = False
    """True in subclasses whose :meth:`target` finds the real agent per call (framework
    adapters): their ``agent`` may be a stand-in that only has a ``name``."""

    def __init__(
        self,
        name: str,
        description: str = "",
        agent: Agent | None = None,
        tool_name: str | None = None,
        session_mode: SessionMode | str = SessionMode.NEW_SESSION,
        *,
        session_scope: SessionScope = "agent",
        retryable: Callable[[BaseException], bool] | None = None,
    ) -> None:
        trimmed = _checked_name(name)
        _check_agent(trimmed, agent, stand_in=self.mounts_stand_in)
        for field, value in (("description", description), ("tool_name", tool_name)):
            if value is not None and not isinstance(value, str):
                raise ConfigurationError(
                    f"subagent {trimmed!r}: {field} must be a str, got {_describe(value)}"
                )
        if session_scope not in ("agent", "parent_session"):
            raise ConfigurationError(
                f"subagent {trimmed!r}: session_scope must be 'agent' or 'parent_session', "
                f"got {session_scope!r}"
            )
        self.name = trimmed
        self.agent: Agent = agent  # type: ignore[assignment]  # checked above
        self.description = (description or "").strip() or (
            f"Delegate a specialized task to subagent {trimmed}"
        )
        explicit = (tool_name or "").strip()
        self.tool_name = (
            check_explicit_tool_name(explicit) if explicit else normalize_tool_name(trimmed)
        )
        try:
            self.session_mode = SessionMode(session_mode)
        except ValueError:
            choices = ", ".join(m.value for m in SessionMode)
            raise ConfigurationError(
                f"subagent {trimmed!r}: session_mode must be one of {choices}, got {session_mode!r}"
            ) from None
        self.session_scope: SessionScope = session_scope
        if retryable is not None:
            check_classifier(f"subagent {trimmed!r}: retryable", retryable)
        self.retryable = retryable

    def __repr__(self) -> str:
        return f"SubAgent(name={self.name!r}, tool_name={self.tool_name!r})"

    @property
    def spec(self) -> ToolSpec:
        """The tool the parent's model sees: ``{task, context}`` parameters."""
        return ToolSpec(self.tool_name, self.description, DELEGATION_SCHEMA)

    # The members below are the seams other delegation styles override
    # (Flink-style schemas and result normalisation, SoPhi's dispatcher).

    @property
    def offered(self) -> bool:
        """Whether the parent's model is offered this tool at all (a Flink sub-agent may not be)."""
        return True

    async def refuse(self, call: ToolCall, depth: int) -> Refusal | None:
        """A refusal of ``call`` at handoff ``depth`` before policy admission, or None."""
        return None

    def new_session(self, call: ToolCall, parent: Session, session_id: str) -> Session:
        """The fresh session a NEW_SESSION handoff from ``parent`` runs in."""
        return Session(
            id=session_id,
            parent_session_id=parent.id,
            root_session_id=parent.root_session_id or parent.id,
            agent=self.agent.name,
        )

    def subagent_for(self, call: ToolCall) -> str:
        """The sub-agent name events report for ``call``."""
        return self.name

    def target(self, call: ToolCall) -> tuple[Agent, str]:
        """The agent a call reaches and the input text it gets."""
        return self.agent, resolve_input(call.arguments)

    def result(self, call: ToolCall, output: str | None, steps: int) -> str:
        """The tool result the parent sees after success: the JSON envelope."""
        return envelope(self.name, call.name, output, steps)

    def denied(self, call: ToolCall, message: str) -> str:
        """The tool result of a denial under ``FailureAction.REPORT_TO_MODEL``."""
        return f"handoff denied for subagent tool {call.name}: {message}"

    def failure(self, call: ToolCall, error: BaseException) -> str:
        """The tool result the parent sees when every attempt failed."""
        from handoff_sim._tools import format_tool_error

        return format_tool_error(error)


def _describe(value: object) -> str:
    return f"{type(value).__name__} {reprlib.repr(value)}"


def _checked_name(name: object) -> str:
    if name is not None and not isinstance(name, str):
        raise InvalidNameError(f"subagent name must be a str, got {_describe(name)}")
    trimmed = (name or "").strip()
    if not trimmed:
        raise InvalidNameError("subagent name is required")
    return trimmed


def _runs_as_subagent(agent: object) -> bool:
    """Whether ``agent``'s class runs as a handoff target: an Agent (``async run_as_subagent``).

    Asked of the class, not the object, so a mock answering every attribute is not taken
    for one; and without importing ``handoff_sim._agent``, which imports this module.
    """
    return inspect.iscoroutinefunction(getattr(type(agent), "run_as_subagent", None))


def _check_agent(name: str, agent: object, *, stand_in: bool) -> None:
    """The mounted agent must be an Agent object: a name or a model is refused, saying so."""
    if _runs_as_subagent(agent) or (stand_in and isinstance(getattr(agent, "name", None), str)):
        return
    if agent is None:
        raise ConfigurationError(
            f"subagent agent is required: pass the Agent to mount as "
            f"SubAgent({name!r}, description, agent=<Agent>)"
        )
    hint = (
        " (a name is not looked up: pass the Agent object itself)" if isinstance(agent, str) else ""
    )
    raise ConfigurationError(
        f"subagent {name!r}: agent must be an Agent, got {_describe(agent)}{hint}"
    )
