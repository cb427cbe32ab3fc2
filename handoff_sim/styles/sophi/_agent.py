"""``sophi_agent``: a top-level agent with the dispatcher and gated tools."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from handoff_sim._models import ModelClient
from handoff_sim._sessions import SessionStore
from handoff_sim._tools import Tool, ToolSetExecutor, parse_arguments
from handoff_sim.messages import ToolCall
from handoff_sim.styles.sophi._arguments import DELEGATE_TOOL_NAME
from handoff_sim.styles.sophi._confirmation import (
    ALLOW_ALL,
    ConfirmationGate,
    ConfirmationPolicy,
    GatedExecutor,
)
from handoff_sim.styles.sophi._definitions import AgentDefinition
from handoff_sim.styles.sophi._dispatcher import DEFAULT_MAX_DELEGATION_DEPTH, SubagentDispatcher
from handoff_sim.styles.sophi._registry import ToolRegistry
from handoff_sim.styles.sophi._risk import RiskLevel, risk_of
from handoff_sim.subagents._policy import HandoffPolicy

if TYPE_CHECKING:
    from handoff_sim._agent import Agent

__all__ = ["sophi_agent"]


def sophi_agent(
    name: str,
    model: ModelClient,
    *,
    definitions: Iterable[AgentDefinition],
    registry: ToolRegistry | Iterable[Tool] = (),
    models: Mapping[str, ModelClient] | None = None,
    max_delegation_depth: int = DEFAULT_MAX_DELEGATION_DEPTH,
    confirmation_policy: ConfirmationPolicy = ALLOW_ALL,
    session_store: SessionStore | None = None,
    parent_session_id: str | None = None,
    system_prompt: str | None = None,
    handoff_policy: HandoffPolicy | None = None,
    max_steps: int = 20,
    parallel_tool_calls: bool = False,
) -> Agent:
    """The main agent of a SoPhi-style tree: every registry tool plus ``delegate_to_subagent``.

    Its risky calls (tools and delegations) go through ``confirmation_policy``;
    sub-agents use ``model`` unless ``models`` names a client for their type.
    Sessions of every level go to ``session_store``.
    """
    from handoff_sim._agent import Agent

    full = registry if isinstance(registry, ToolRegistry) else ToolRegistry(registry)
    policy = handoff_policy or HandoffPolicy(max_depth=0)
    holder: list[SubagentDispatcher] = []
    gate = ConfirmationGate(confirmation_policy, lambda call: _classify(full, holder, call))
    dispatcher = SubagentDispatcher(
        definitions,
        model=model,
        models=models,
        registry=full,
        max_delegation_depth=max_delegation_depth,
        confirmation_policy=confirmation_policy,
        session_store=session_store,
        handoff_policy=policy,
        max_steps=max_steps,
        parallel_tool_calls=parallel_tool_calls,
        parent_session_id=parent_session_id,
        gate=gate,
    )
    holder.append(dispatcher)
    return Agent(
        name,
        model,
        tools=full.tools(),
        subagents=[dispatcher],
        handoff_policy=policy,
        parallel_tool_calls=parallel_tool_calls,
        max_steps=max_steps,
        system_prompt=system_prompt,
        tool_executor=GatedExecutor(ToolSetExecutor(full.tools()), gate),
        session_store=dispatcher.config.session_store,
    )


def _classify(
    full: ToolRegistry, holder: list[SubagentDispatcher], call: ToolCall
) -> RiskLevel | None:
    if call.name == DELEGATE_TOOL_NAME:
        return holder[0].confirmation_risk(call)
    found = full.get_or_none(call.name)
    if found is None:
        return None
    try:
        return risk_of(found, parse_arguments(call))
    except ValueError:
        return None
