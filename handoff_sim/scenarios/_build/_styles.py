"""Build SoPhi-style dispatchers from a scenario: on an agent, or mounted as a sub-agent.

The agent's own fake tools are the full registry sub-agents are scoped from;
each agent type uses its own scripted model if it declares one, else the
dispatching agent's model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from handoff_sim._models import ModelClient
from handoff_sim._tools import Tool
from handoff_sim.scenarios._build._context import BuildContext
from handoff_sim.scenarios._schema import AgentSpec, ApproveSpec, ConfirmSpec, DispatcherSpec
from handoff_sim.styles.sophi import (
    ALLOW_ALL,
    DENY_ALL,
    AgentDefinition,
    ConfirmationRequest,
    SubagentDispatcher,
    ToolRegistry,
    sophi_agent,
)
from handoff_sim.styles.sophi._confirmation import ConfirmationPolicy
from handoff_sim.subagents._policy import HandoffPolicy

if TYPE_CHECKING:
    from handoff_sim._agent import Agent

__all__ = ["confirmation_policy", "dispatcher_agent", "dispatcher_mount"]


def confirmation_policy(spec: ConfirmSpec) -> ConfirmationPolicy:
    """``allow_all``, ``deny_all``, or a policy approving the calls of the named tools."""
    if isinstance(spec, ApproveSpec):
        approved = frozenset(spec.approve)

        def approve(requests: Sequence[ConfirmationRequest]) -> dict[str, bool]:
            return {r.call_id: r.tool_name in approved for r in requests}

        return approve
    return ALLOW_ALL if spec == "allow_all" else DENY_ALL


def _types(
    spec: DispatcherSpec, ctx: BuildContext
) -> tuple[list[AgentDefinition], dict[str, ModelClient]]:
    definitions = [ctx.agent_types[name] for name in spec.agent_types]
    models = {n: ctx.type_models[n] for n in spec.agent_types if n in ctx.type_models}
    return definitions, models


def dispatcher_agent(
    name: str,
    agent: AgentSpec,
    model: ModelClient,
    tools: list[Tool],
    policy: HandoffPolicy | None,
    ctx: BuildContext,
) -> Agent:
    """An agent with ``delegate_to_subagent`` (``sophi_agent``): ``agents.<name>.dispatcher``."""
    spec = agent.dispatcher
    assert spec is not None
    definitions, models = _types(spec, ctx)
    return sophi_agent(
        name,
        model,
        definitions=definitions,
        registry=ToolRegistry(tools),
        models=models,
        max_delegation_depth=spec.max_delegation_depth,
        confirmation_policy=confirmation_policy(spec.confirm),
        session_store=ctx.session_store,
        parent_session_id=spec.parent_session_id,
        system_prompt=agent.system_prompt,
        handoff_policy=policy,
        max_steps=agent.max_steps,
        parallel_tool_calls=agent.parallel_tool_calls,
    )


def dispatcher_mount(
    spec: DispatcherSpec,
    agent: AgentSpec,
    model: ModelClient,
    tools: list[Tool],
    ctx: BuildContext,
) -> SubagentDispatcher:
    """The dispatcher as one sub-agent of any agent: ``subagents: [{dispatcher: ...}]``."""
    definitions, models = _types(spec, ctx)
    return SubagentDispatcher(
        definitions,
        model=model,
        models=models,
        registry=ToolRegistry(tools),
        max_delegation_depth=spec.max_delegation_depth,
        confirmation_policy=confirmation_policy(spec.confirm),
        session_store=ctx.session_store,
        max_steps=agent.max_steps,
        parallel_tool_calls=agent.parallel_tool_calls,
        parent_session_id=spec.parent_session_id,
    )
