"""Build the agents a scenario describes: the entry agent, its sub-agents, their policies."""

from __future__ import annotations

from collections.abc import Callable

from handoff_sim.agent import Agent
from handoff_sim.models import ModelClient
from handoff_sim.scenarios.build._context import BuildContext
from handoff_sim.scenarios.build._styles import dispatcher_agent, dispatcher_mount
from handoff_sim.scenarios.build._tools import CatchAllExecutor, fake_tool
from handoff_sim.scenarios.schema import (
    DispatcherMountSpec,
    PolicyBlock,
    ScenarioSpec,
    SubAgentSpec,
)
from handoff_sim.styles.flink import FlinkSubAgent
from handoff_sim.subagents.definition import SubAgent
from handoff_sim.subagents.policy import HandoffPolicy, SessionMode

__all__ = ["build_entry_agent", "build_policy"]


def build_entry_agent(
    spec: ScenarioSpec, models: dict[str, ModelClient], context: BuildContext | None = None
) -> Agent:
    """Build every agent the entry agent reaches (children first) and return the entry agent.

    Runtime construction errors (duplicate tool names, reserved prefixes…) propagate:
    a scenario may expect them.
    """
    ctx = context or BuildContext()
    built: dict[str, Agent] = {}

    def build(name: str) -> Agent:
        if name not in built:
            built[name] = _agent(spec, name, models, ctx, build)
        return built[name]

    return build(spec.entry_agent)


def _agent(
    spec: ScenarioSpec,
    name: str,
    models: dict[str, ModelClient],
    ctx: BuildContext,
    build: Callable[[str], Agent],
) -> Agent:
    agent_spec = spec.agents[name]
    tools = [fake_tool(t, spec.tools[t], ctx.tool_runs) for t in agent_spec.tools]
    policy = (
        build_policy(agent_spec.policy, sophi=agent_spec.dispatcher is not None)
        if agent_spec.policy is not None
        else None
    )
    if agent_spec.dispatcher is not None:
        return dispatcher_agent(name, agent_spec, models[name], tools, policy, ctx)
    mounts = [
        (
            dispatcher_mount(entry.dispatcher, agent_spec, models[name], tools, ctx)
            if isinstance(entry, DispatcherMountSpec)
            else _mount(entry, build)
        )
        for _, entry in agent_spec.entries()
    ]
    return Agent(
        name,
        models[name],
        tools=tools,
        subagents=mounts,
        handoff_policy=policy,
        parallel_tool_calls=agent_spec.parallel_tool_calls,
        max_steps=agent_spec.max_steps,
        system_prompt=agent_spec.system_prompt,
        tool_executor=(
            CatchAllExecutor(tools, agent_spec.tool_executor) if agent_spec.tool_executor else None
        ),
        session_store=ctx.session_store,
    )


def _mount(mount: SubAgentSpec, build: Callable[[str], Agent]) -> SubAgent:
    name = mount.name if mount.name is not None else mount.agent
    if mount.style == "flink":
        return FlinkSubAgent(
            name,
            mount.description,
            build(mount.agent),
            input_schema=mount.input_schema,
            session_mode=SessionMode(mount.session_mode),
        )
    return SubAgent(
        name=name,
        description=mount.description,
        agent=build(mount.agent),
        tool_name=mount.tool_name,
        session_mode=SessionMode(mount.session_mode),
        session_scope=mount.session_scope,
    )


def build_policy(spec: PolicyBlock, *, sophi: bool = False) -> HandoffPolicy:
    """The HandoffPolicy a policy block describes (what it leaves out is the policy's default).

    On an agent with a dispatcher an unset ``max_depth`` is 0 (unlimited), so that
    ``max_delegation_depth`` is the cap, as in ``sophi_agent``.
    """
    written = spec.written()
    if sophi:
        written.setdefault("max_depth", 0)
    return HandoffPolicy.from_block(written)
