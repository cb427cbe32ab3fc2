"""Build the agents a scenario describes: the entry agent, its sub-agents, their policies."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from handoff_sim._agent import Agent
from handoff_sim._models import ModelClient
from handoff_sim.errors import InputFilterError, RetryClassifierError
from handoff_sim.scenarios._build._context import BuildContext
from handoff_sim.scenarios._build._styles import dispatcher_agent, dispatcher_mount
from handoff_sim.scenarios._build._tools import CatchAllExecutor, fake_tool
from handoff_sim.scenarios._load import resolve_input_type, search_path
from handoff_sim.scenarios._schema import (
    DispatcherMountSpec,
    PolicyBlock,
    ScenarioSpec,
    SubAgentSpec,
)
from handoff_sim.styles.flink import FlinkSubAgent
from handoff_sim.subagents._definition import SubAgent
from handoff_sim.subagents._policy import HandoffPolicy, SessionMode

if TYPE_CHECKING:
    from pathlib import Path

    from handoff_sim.scenarios._load import LoadedScenario

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
    recorded = spec.recorded is not None
    tools = [
        fake_tool(t, spec.tools[t], ctx.tool_runs, recorded=recorded) for t in agent_spec.tools
    ]
    policy = (
        build_policy(
            agent_spec.policy,
            sophi=agent_spec.dispatcher is not None,
            agent=name,
            scenario=ctx.scenario,
        )
        if agent_spec.policy is not None
        else None
    )
    if agent_spec.dispatcher is not None:
        return dispatcher_agent(name, agent_spec, models[name], tools, policy, ctx)
    mounts = [
        (
            dispatcher_mount(entry.dispatcher, agent_spec, models[name], tools, ctx)
            if isinstance(entry, DispatcherMountSpec)
            else _mount(entry, build, ctx)
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


def _mount(mount: SubAgentSpec, build: Callable[[str], Agent], ctx: BuildContext) -> SubAgent:
    name = mount.name if mount.name is not None else mount.agent
    if mount.style == "flink":
        return FlinkSubAgent(
            name,
            mount.description,
            build(mount.agent),
            input_schema=mount.input_schema,
            input_type=_input_type(mount, ctx),
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


def _input_type(mount: SubAgentSpec, ctx: BuildContext) -> object:
    """The Flink mount's ``input_type``, imported now: from the scenario file's directories
    (an error naming its ``path:line:col``), else (a bare spec) from ``sys.path``."""
    reference = mount.input_type
    if reference is None:
        return None
    scenario = ctx.scenario
    if scenario is not None and reference in scenario.input_types:
        return scenario.input_types[reference]
    return resolve_input_type(reference)


def build_policy(
    spec: PolicyBlock,
    *,
    sophi: bool = False,
    agent: str | None = None,
    scenario: LoadedScenario | None = None,
) -> HandoffPolicy:
    """The HandoffPolicy a policy block describes (what it leaves out is the policy's default).

    On an agent with a dispatcher an unset ``max_depth`` is 0 (unlimited), so that
    ``max_delegation_depth`` is the cap, as in ``sophi_agent``. A ``python:`` input filter
    is imported from the scenario file's directory and its root directory (as Flink input
    types are, see ``search_path``); when it cannot be, the InputFilterError names
    ``path:line`` and the field (``agent`` names the policy's agent).
    """
    written = spec.written()
    if sophi:
        written.setdefault("max_depth", 0)
    search: tuple[Path, ...] = ()  # only python references import: the walk is for them alone
    imports = written.get("input_filter") is not None or written.get("retry_on") is not None
    if scenario is not None and imports:
        search = search_path(scenario.path)
    try:
        return HandoffPolicy.from_block(written, search=search)
    except (InputFilterError, RetryClassifierError) as exc:
        key = "retry_on" if isinstance(exc, RetryClassifierError) else "input_filter"
        field = f"agents.{agent}.policy.{key}.python" if agent else f"{key}.python"
        if scenario is None:
            raise type(exc)(f"{field}: {exc}") from exc.__cause__
        where = f"{scenario.path}:{scenario.location(field)}"
        raise type(exc)(f"{where}: {scenario.field_name(field)}: {exc}") from exc.__cause__
