"""Build the runtime a scenario describes: fake tools, models, policies, agents, sub-agents."""

from __future__ import annotations

import asyncio
import builtins
import json
from collections.abc import Callable, Sequence
from typing import Any

from handoff_sim.agent import Agent
from handoff_sim.messages import ToolCall
from handoff_sim.models import ModelClient
from handoff_sim.scenarios._errors import ScenarioError
from handoff_sim.scenarios._schema import (
    AgentSpec,
    CustomModelSpec,
    FakeToolSpec,
    InputFilterSpec,
    PolicySpec,
    RaisesSpec,
    ScenarioSpec,
    ScriptModelSpec,
    ToolExecutorSpec,
)
from handoff_sim.subagents.definition import SubAgent
from handoff_sim.subagents.policy import FailureAction, HandoffPolicy, InputFilter, SessionMode
from handoff_sim.tools import Tool, ToolSetExecutor

__all__ = ["ModelFactory", "build_entry_agent", "build_models"]

ModelFactory = Callable[[str, dict[str, Any]], "ModelClient | None"]
"""Asked for a model kind the default builder does not know; ``None`` means not mine."""

Locate = Callable[[str], str]


def build_models(
    spec: ScenarioSpec, factories: Sequence[ModelFactory], locate: Locate
) -> dict[str, ModelClient]:
    """One model client per agent; ``locate(field)`` gives ``path:line`` for messages."""
    models = {}
    for name, agent in spec.agents.items():
        where = locate(f"agents.{name}.model")
        try:
            models[name] = _model(name, agent, factories, where)
        except ScenarioError:
            raise
        except Exception as exc:  # the model's own constructor refused the spec
            raise ScenarioError(f"{where}: agents.{name}.model: {exc}") from exc
    return models


def _model(
    name: str, agent: AgentSpec, factories: Sequence[ModelFactory], where: str
) -> ModelClient:
    model = agent.model
    if isinstance(model, ScriptModelSpec) and model.script is not None:
        from handoff_sim.testing import ScriptedModel

        steps = [s if isinstance(s, str) else s.as_step() for s in model.script]
        return ScriptedModel(steps, name=name)
    if isinstance(model, ScriptModelSpec) and model.adversarial is not None:
        return _adversarial(model.adversarial.seed, model.adversarial.behaviours, where)
    assert isinstance(model, CustomModelSpec)
    raw = model.model_dump()
    for factory in factories:
        client = factory(name, dict(raw))
        if client is not None:
            return client
    raise ScenarioError(
        f"{where}: agents.{name}.model: no model factory for kind '{model.kind}' "
        "(built in: script, adversarial; plugins add kinds through a model factory)"
    )


def _adversarial(seed: int, behaviours: list[str] | None, where: str) -> ModelClient:
    import handoff_sim.testing as testing

    factory = getattr(testing, "AdversarialModel", None)
    if factory is None:
        raise ScenarioError(
            f"{where}: adversarial models are not available in this installation "
            "(handoff_sim.testing.AdversarialModel is missing)"
        )
    kwargs: dict[str, Any] = {"seed": seed}
    if behaviours is not None:
        kwargs["behaviours"] = behaviours
    client: ModelClient = factory(**kwargs)
    return client


def build_entry_agent(spec: ScenarioSpec, models: dict[str, ModelClient]) -> Agent:
    """Build every agent the entry agent reaches (children first) and return the entry agent.

    Runtime construction errors (duplicate tool names, reserved prefixes…) propagate:
    a scenario may expect them.
    """
    built: dict[str, Agent] = {}

    def build(name: str) -> Agent:
        if name in built:
            return built[name]
        agent_spec = spec.agents[name]
        mounts = [
            SubAgent(
                name=m.name if m.name is not None else m.agent,
                description=m.description,
                agent=build(m.agent),
                tool_name=m.tool_name,
                session_mode=SessionMode(m.session_mode),
                session_scope=m.session_scope,
            )
            for m in agent_spec.mounts()
        ]
        tools = [fake_tool(t, spec.tools[t]) for t in agent_spec.tools]
        built[name] = Agent(
            name,
            models[name],
            tools=tools,
            subagents=mounts,
            handoff_policy=build_policy(agent_spec.policy) if agent_spec.policy else None,
            parallel_tool_calls=agent_spec.parallel_tool_calls,
            max_steps=agent_spec.max_steps,
            system_prompt=agent_spec.system_prompt,
            tool_executor=(
                CatchAllExecutor(tools, agent_spec.tool_executor)
                if agent_spec.tool_executor
                else None
            ),
        )
        return built[name]

    return build(spec.entry_agent)


def build_policy(spec: PolicySpec) -> HandoffPolicy:
    """The HandoffPolicy a policy block describes."""
    return HandoffPolicy(
        enabled=spec.enabled,
        max_depth=spec.max_depth,
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


def fake_tool(name: str, spec: FakeToolSpec) -> Tool:
    """A plain tool that waits ``latency`` virtual seconds, then returns or raises."""

    async def run(**arguments: Any) -> str:
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
