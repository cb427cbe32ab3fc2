"""Build the runtime a scenario describes: fake tools, models, policies, agents, sub-agents."""

from __future__ import annotations

import asyncio
import builtins
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from handoff_sim.agent import Agent
from handoff_sim.messages import ToolCall
from handoff_sim.models import ModelClient
from handoff_sim.scenarios.build._styles import dispatcher_agent, dispatcher_mount
from handoff_sim.scenarios._errors import ScenarioError
from handoff_sim.scenarios.schema._scenario import (
    AdversarialSpec,
    CustomModelSpec,
    FakeToolSpec,
    InputFilterSpec,
    PolicySpec,
    RaisesSpec,
    ScenarioSpec,
    ScriptModelSpec,
    SubAgentSpec,
    ToolExecutorSpec,
)
from handoff_sim.scenarios.build._steps import script_step
from handoff_sim.scenarios.schema._styles import DispatcherMountSpec
from handoff_sim.sessions import SessionStore
from handoff_sim.styles.flink import FlinkSubAgent
from handoff_sim.styles.sophi import AgentDefinition
from handoff_sim.subagents.definition import SubAgent
from handoff_sim.subagents.policy import FailureAction, HandoffPolicy, InputFilter, SessionMode
from handoff_sim.tools import Tool, ToolSetExecutor

__all__ = [
    "BuildContext",
    "ModelFactory",
    "build_entry_agent",
    "build_models",
    "build_type_models",
    "fake_tool",
]

ModelFactory = Callable[[str, dict[str, Any]], "ModelClient | None"]
"""Asked for a model kind the default builder does not know; ``None`` means not mine."""

Locate = Callable[[str], str]
ModelSpecType = ScriptModelSpec | CustomModelSpec


def build_models(
    spec: ScenarioSpec, factories: Sequence[ModelFactory], locate: Locate
) -> dict[str, ModelClient]:
    """One model client per agent; ``locate(field)`` gives ``path:line`` for messages."""
    return {
        name: _built(name, agent.model, f"agents.{name}.model", factories, locate)
        for name, agent in spec.agents.items()
    }


def build_type_models(
    spec: ScenarioSpec, factories: Sequence[ModelFactory], locate: Locate
) -> dict[str, ModelClient]:
    """One model client per agent type that declares one (shared by all its delegations)."""
    return {
        name: _built(name, declared.model, f"agent_types.{name}.model", factories, locate)
        for name, declared in spec.agent_types.items()
        if declared.model is not None
    }


def _built(
    name: str, model: ModelSpecType, field: str, factories: Sequence[ModelFactory], locate: Locate
) -> ModelClient:
    where = locate(field)
    try:
        return _model(name, model, factories, where, field)
    except ScenarioError:
        raise
    except Exception as exc:  # the model's own constructor refused the spec
        raise ScenarioError(f"{where}: {field}: {exc}") from exc


def _model(
    name: str,
    model: ModelSpecType,
    factories: Sequence[ModelFactory],
    where: str,
    field: str,
) -> ModelClient:
    if isinstance(model, ScriptModelSpec) and model.script is not None:
        from handoff_sim.testing import ScriptedModel

        steps = [script_step(s, name, i) for i, s in enumerate(model.script, 1)]
        return ScriptedModel(steps, name=name)
    if isinstance(model, ScriptModelSpec) and model.adversarial is not None:
        return _adversarial(model.adversarial, where)
    assert isinstance(model, CustomModelSpec)
    raw = model.model_dump()
    for factory in factories:
        client = factory(name, dict(raw))
        if client is not None:
            return client
    raise ScenarioError(
        f"{where}: {field}: no model factory for kind '{model.kind}' "
        "(built in: script, adversarial; plugins add kinds through a model factory)"
    )


def _adversarial(spec: AdversarialSpec, where: str) -> ModelClient:
    import handoff_sim.testing as testing

    factory = getattr(testing, "AdversarialModel", None)
    if factory is None:
        raise ScenarioError(
            f"{where}: adversarial models are not available in this installation "
            "(handoff_sim.testing.AdversarialModel is missing)"
        )
    kwargs = spec.model_dump(exclude_none=True)
    client: ModelClient = factory(**kwargs)
    return client


@dataclass
class BuildContext:
    """What the agents of one run share: agent types, their models, sessions, tool counts."""

    agent_types: Mapping[str, AgentDefinition] = field(default_factory=dict)
    type_models: Mapping[str, ModelClient] = field(default_factory=dict)
    session_store: SessionStore | None = None
    tool_runs: dict[str, int] | None = None


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


def build_policy(spec: PolicySpec, *, sophi: bool = False) -> HandoffPolicy:
    """The HandoffPolicy a policy block describes.

    On an agent with a dispatcher an unset ``max_depth`` is 0 (unlimited), so that
    ``max_delegation_depth`` is the cap, as in ``sophi_agent``.
    """
    unset_depth = sophi and "max_depth" not in spec.model_fields_set
    return HandoffPolicy(
        enabled=spec.enabled,
        max_depth=0 if unset_depth else spec.max_depth,
        max_retries=spec.max_retries,
        timeout=spec.timeout,
        allowed_tools=frozenset(spec.allowed_tools) if spec.allowed_tools is not None else None,
        denied_tools=frozenset(spec.denied_tools) if spec.denied_tools is not None else None,
        on_denied=FailureAction(spec.on_denied),
        on_error=FailureAction(spec.on_error),
        input_filter=_input_filter(spec.input_filter) if spec.input_filter else None,
    )


def _input_filter(spec: InputFilterSpec) -> InputFilter:
    def keep(call: ToolCall) -> ToolCall | None:
        return None

    def fail(call: ToolCall) -> ToolCall | None:
        raise ValueError(spec.raises)

    def rewrite(call: ToolCall) -> ToolCall | None:
        arguments = spec.arguments
        text = (
            arguments
            if isinstance(arguments, str)
            else json.dumps(arguments, separators=(",", ":"))
        )
        return ToolCall(call.id, call.name, text)

    if spec.keep:
        return keep
    return fail if spec.raises is not None else rewrite


def _outcome(spec: ToolExecutorSpec, tool: str, arguments: str) -> str:
    """What a fake returns, or raise what it raises."""
    if spec.raises is not None:
        raises = (
            spec.raises if isinstance(spec.raises, RaisesSpec) else RaisesSpec(message=spec.raises)
        )
        error_type: type[Exception] = getattr(builtins, raises.type)
        raise error_type(raises.message)
    value = spec.returns
    text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
    return text.replace("{tool}", tool).replace("{arguments}", arguments)


def fake_tool(name: str, spec: FakeToolSpec, runs: dict[str, int] | None = None) -> Tool:
    """A plain tool that waits ``latency`` virtual seconds, then returns or raises.

    ``runs`` counts how often each tool's body ran (``expect.tool_runs``).
    """

    async def run(**arguments: Any) -> str:
        if runs is not None:
            runs[name] = runs.get(name, 0) + 1
        if spec.latency:
            await asyncio.sleep(spec.latency)
        return _outcome(spec, name, json.dumps(arguments, separators=(",", ":")))

    return Tool(
        name,
        run,
        description=spec.description,
        parameters=spec.parameters,
        metadata={"risk": spec.risk},
    )


class CatchAllExecutor:
    """A primary executor: the agent's own tools by name, every other name by one fake."""

    def __init__(self, tools: Sequence[Tool], spec: ToolExecutorSpec) -> None:
        self._tools = ToolSetExecutor(tools)
        self._spec = spec

    async def execute(self, call: ToolCall) -> str:
        """Serve ``call``; names the agent's tools do not have get the catch-all result."""
        if call.name in self._tools.tools:
            return await self._tools.execute(call)
        if self._spec.latency:
            await asyncio.sleep(self._spec.latency)
        return _outcome(self._spec, call.name, call.arguments)
