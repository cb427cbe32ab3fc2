"""SoPhi dispatchers in a recording's file form: ``dispatcher:`` and ``agent_types:``.

A dispatcher builds its agents per delegation from agent types; the file names those
types under ``agent_types:`` (each with the lane of the agents built from it) and the
dispatcher on its agent (``dispatcher:``, an agent made by ``sophi_agent``) or as a
mount (``subagents: [{dispatcher: ...}]``). What a file's dispatcher would be built
with differently from the recorded one is said in a note, never guessed.
"""

from __future__ import annotations

from typing import Any

from handoff_sim import Agent, HandoffPolicy
from handoff_sim._tools import ToolSetExecutor
from handoff_sim.styles.sophi import ALLOW_ALL, DENY_ALL, AgentDefinition, SubagentDispatcher
from handoff_sim.styles.sophi._confirmation import GatedExecutor
from handoff_sim.styles.sophi._dispatcher import DEFAULT_MAX_DELEGATION_DEPTH

__all__ = ["dispatcher_block", "sophi_dispatcher", "type_block"]

_APPROVE_MODULE = "handoff_sim.scenarios._build._styles"
"""Where the file form's ``confirm: {approve: [...]}`` policy is made."""


def sophi_dispatcher(agent: Agent) -> SubagentDispatcher | None:
    """The dispatcher of an agent made as ``sophi_agent`` makes it (the file's
    ``dispatcher:`` on an agent): its one mount, whose gate also gates the agent's tools."""
    mounts = agent.subagents
    if len(mounts) != 1 or type(mounts[0]) is not SubagentDispatcher:
        return None
    executor = agent.primary_executor
    if not isinstance(executor, GatedExecutor) or executor.gate is not mounts[0].gate:
        return None
    return mounts[0] if type(executor.inner) is ToolSetExecutor else None


def dispatcher_block(
    owner: Agent, mount: SubagentDispatcher, *, on_agent: bool, notes: list[str]
) -> dict[str, Any]:
    """``mount`` as a ``dispatcher:`` block; what the file form builds otherwise, in notes."""
    config = mount.config
    block: dict[str, Any] = {"agent_types": list(config.definitions)}
    if config.max_delegation_depth != DEFAULT_MAX_DELEGATION_DEPTH:
        block["max_delegation_depth"] = config.max_delegation_depth
    confirm = _confirm(config.confirmation_policy)
    if confirm is None:
        notes.append(
            f"agent {owner.name!r}: the dispatcher's confirmation policy is a function the "
            "file cannot name: written as allow_all"
        )
    elif confirm != "allow_all":
        block["confirm"] = confirm
    if mount.parent_session_id is not None:
        block["parent_session_id"] = mount.parent_session_id
    for problem in _differences(owner, mount, on_agent=on_agent):
        notes.append(f"agent {owner.name!r}: the dispatcher's {problem}")
    return block


def _differences(owner: Agent, mount: SubagentDispatcher, *, on_agent: bool) -> list[str]:
    """Where ``mount`` differs from the dispatcher the file form builds on ``owner``."""
    config = mount.config
    out: list[str] = []
    if [t.name for t in config.registry] != [t.name for t in owner.tools]:
        out.append("tool registry is not the agent's own tools: the file scopes from those")
    if config.max_steps != owner.max_steps:
        out.append(f"max_steps {config.max_steps} is written as the agent's {owner.max_steps}")
    if config.parallel_tool_calls != owner.parallel_tool_calls:
        out.append("parallel_tool_calls is written as the agent's")
    policy = owner.handoff_policy if on_agent else HandoffPolicy(max_depth=0)
    if config.handoff_policy is not policy and config.handoff_policy != policy:
        out.append("handoff policy for its agents is not one the file form builds")
    if mount.depth != 0:
        out.append(f"depth {mount.depth} is written as 0")
    if not on_agent and mount.gate.policy is not config.confirmation_policy:
        out.append("gate is shared with another: the file gives it one of its own")
    return out


def _confirm(policy: object) -> str | dict[str, list[str]] | None:
    """``allow_all``, ``deny_all`` or ``{approve: [...]}``; None for another function."""
    if policy is ALLOW_ALL:
        return "allow_all"
    if policy is DENY_ALL:
        return "deny_all"
    cells = [c.cell_contents for c in (getattr(policy, "__closure__", None) or ())]
    if (
        getattr(policy, "__module__", None) == _APPROVE_MODULE
        and getattr(policy, "__name__", None) == "approve"
        and len(cells) == 1
        and isinstance(cells[0], frozenset)
    ):
        return {"approve": sorted(cells[0])}
    return None


def type_block(definition: AgentDefinition) -> dict[str, Any]:
    """An agent type as ``agent_types.<name>`` writes it inline (its ``model`` added later)."""
    block: dict[str, Any] = {"description": definition.description}
    if definition.system_prompt != definition.description:
        block["system_prompt"] = definition.system_prompt
    if definition.allowed_tools:
        block["allowed_tools"] = list(definition.allowed_tools)
    if definition.model is not None:
        block["model_name"] = definition.model
    return block
