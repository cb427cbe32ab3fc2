"""Scenario files on pydantic-ai: ``handoff-sim run --runtime pydantic-ai``.

Each agent a scenario reaches becomes a ``pydantic_ai.Agent`` whose model is
``SimModel`` around the scenario's fake model; its fake tools become tools built
with ``Tool.from_schema`` (an exception ends the run, as it does for any pydantic-ai
tool); each sub-agent mount becomes a delegation tool as the pydantic-ai docs write one —
a function of its own parameter (``task: str``) that runs the child agent — under
``governed_tool(...)`` with the parent's policy and our envelope result; a scenario's
``{task, context}`` calls reach it as ``{task}`` (``native_arguments``).
``parallel_tool_calls: false`` makes every tool of that agent ``sequential`` (each call
runs alone, in call order); ``max_steps`` is ``UsageLimits(request_limit=...)`` of each
of the agent's runs, which keep their usage apart (a child's run gets its own limits).
A recording made on pydantic-ai keeps the shape of the user's delegation tools instead
(``_pai_recorded_tools``): the recorded calls reach them as they were recorded.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any, ClassVar

from pydantic_ai import Agent, RunContext
from pydantic_ai.agent import AgentRunResult
from pydantic_ai.tools import Tool as PaiTool
from pydantic_ai.usage import UsageLimits

from handoff_sim._tools import Tool
from handoff_sim.adapters._capture import Capture
from handoff_sim.adapters._pai_capture import PydanticAICapture
from handoff_sim.adapters._pai_governed_tool import governed_tool
from handoff_sim.adapters._pai_model import SimModel
from handoff_sim.adapters._pai_recorded_tools import (
    DEFAULT_PARAMETER,
    recorded_delegation,
    recorded_parameters,
)
from handoff_sim.adapters._scenario_runtime import AgentPlan, FrameworkRuntime, MountPlan
from handoff_sim.scenarios import LoadedScenario, ScenarioRun

__all__ = ["PydanticAIRuntime"]

_ANY_OBJECT: dict[str, Any] = {"type": "object", "additionalProperties": True}


def _tool(tool: Tool, *, sequential: bool) -> PaiTool[Any]:
    """A fake tool as a pydantic-ai tool with the fake's own JSON schema."""

    async def invoke(**arguments: Any) -> str:
        return await tool.invoke(arguments)

    return PaiTool.from_schema(
        invoke,
        name=tool.name,
        description=tool.description,
        json_schema=dict(tool.parameters) if tool.parameters else dict(_ANY_OBJECT),
        sequential=sequential,
    )


def _limits(plan: AgentPlan) -> UsageLimits:
    """``max_steps``: the model calls one run of the agent may make."""
    return UsageLimits(request_limit=plan.spec.max_steps)


def _delegation(
    child: Agent[Any, Any], mount: MountPlan, plan: AgentPlan, limits: UsageLimits
) -> PaiTool[Any]:
    """A delegation tool as the docs write one (it runs ``child``), under the parent's policy."""

    @governed_tool(policy=plan.policy, subagent=mount.name, fallback=plan.fallback, envelope=True)
    async def delegate(ctx: RunContext[Any], task: str) -> Any:
        # max_steps bounds each run, as in our runtime: the child keeps its usage apart
        result = await child.run(task, usage_limits=limits)
        return result.output

    return PaiTool(
        delegate,
        name=mount.tool_name,
        description=mount.description,
        takes_ctx=True,
        sequential=not plan.parallel,
    )


class PydanticAIRuntime(FrameworkRuntime[Agent[Any, Any], AgentRunResult[Any]]):
    """Runs scenario files on pydantic-ai (``--runtime pydantic-ai``)."""

    framework: ClassVar[str] = "pydantic-ai"
    native_input: ClassVar[str] = "task"
    _recorded: dict[tuple[str, str], str] | None = None

    def capture(self) -> Capture:
        return PydanticAICapture()

    def around(self) -> AbstractContextManager[None]:
        from handoff_sim.adapters.pydantic_ai import _offline

        return _offline()

    def run(self, scenario: LoadedScenario, *, observers: Sequence[object] = ()) -> ScenarioRun:
        # a recording made on pydantic-ai delegates through the user's own tools' shape
        self._recorded = recorded_parameters(scenario.spec)
        return super().run(scenario, observers=observers)

    def build_agent(
        self,
        plan: AgentPlan,
        children: dict[str, Agent[Any, Any]],
        plans: dict[str, AgentPlan],
    ) -> Agent[Any, Any]:
        sequential = not plan.parallel
        tools: list[PaiTool[Any]] = [_tool(t, sequential=sequential) for t in plan.tools]
        for mount in plan.mounts:
            child, limits = children[mount.agent], _limits(plans[mount.agent])
            if self._recorded is None:
                tools.append(_delegation(child, mount, plan, limits))
                continue
            key = self._recorded.get((plan.name, mount.tool_name), DEFAULT_PARAMETER)
            tools.append(recorded_delegation(child, mount, plan, limits, key))
        return Agent(
            SimModel(plan.model),
            name=plan.name,
            instructions=plan.spec.system_prompt,
            tools=tools,
        )

    async def run_turn(
        self,
        entry: Agent[Any, Any],
        plan: AgentPlan,
        text: str,
        previous: AgentRunResult[Any] | None,
    ) -> tuple[str | None, AgentRunResult[Any]]:
        result = await entry.run(
            text,
            message_history=None if previous is None else previous.all_messages(),
            usage_limits=_limits(plan),
        )
        output = result.output
        return (None if output is None else str(output)), result
