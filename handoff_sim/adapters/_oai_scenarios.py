"""Scenario files on the OpenAI Agents SDK: ``handoff-sim run --runtime openai-agents``.

Each agent a scenario reaches becomes an ``agents.Agent`` whose model is ``SimModel``
around the scenario's fake model; its fake tools become ``FunctionTool``s that answer
a failure as ``@function_tool`` does by default; each sub-agent mount becomes
``governed(child, ...)`` (``child.as_tool`` under the parent's policy) with the SDK's own
``{input}`` parameter and our envelope result; a scenario's ``{task, context}`` calls
reach it as ``{input}`` (``native_arguments``). ``parallel_tool_calls: false`` is
``RunConfig(tool_execution=ToolExecutionConfig(max_function_tool_concurrency=1))`` for
that agent's runs (the SDK otherwise starts every call of a turn at once), and
``max_steps`` is ``max_turns``.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from agents import Agent, ModelSettings, RunConfig, Runner, RunResult
from agents.exceptions import ModelBehaviorError
from agents.run_config import ToolExecutionConfig
from agents.tool import FunctionTool, default_tool_error_function
from agents.tool_context import ToolContext

from handoff_sim._safe import describe_error
from handoff_sim._tools import Tool
from handoff_sim.adapters._capture import Capture, current_tool
from handoff_sim.adapters._oai_capture import OpenAIAgentsCapture
from handoff_sim.adapters._oai_governed import governed
from handoff_sim.adapters._oai_model import SimModel
from handoff_sim.adapters._scenario_runtime import AgentPlan, FrameworkRuntime

__all__ = ["OpenAIAgentsRuntime"]

_ANY_OBJECT: dict[str, Any] = {"type": "object", "additionalProperties": True}


def _function_tool(tool: Tool) -> FunctionTool:
    """A fake tool as an SDK ``FunctionTool``; a failure answers as ``@function_tool`` does."""

    async def invoke(ctx: ToolContext[Any], arguments: str) -> str:
        try:
            parsed = json.loads(arguments or "{}")
            if not isinstance(parsed, dict):
                raise ModelBehaviorError(f"Invalid JSON input for tool {tool.name}: not an object")
            return await tool.invoke(parsed)
        except Exception as exc:
            in_flight = current_tool()
            if in_flight is not None:
                in_flight.failed = describe_error(exc)
            return default_tool_error_function(ctx, exc)

    return FunctionTool(
        name=tool.name,
        description=tool.description,
        params_json_schema=dict(tool.parameters) if tool.parameters else dict(_ANY_OBJECT),
        on_invoke_tool=invoke,
        strict_json_schema=False,
    )


def _run_config(plan: AgentPlan) -> RunConfig:
    """The run settings of one agent's runs: one call at a time unless it is parallel."""
    limit = None if plan.parallel else 1
    return RunConfig(tool_execution=ToolExecutionConfig(max_function_tool_concurrency=limit))


class OpenAIAgentsRuntime(FrameworkRuntime[Agent[Any], RunResult]):
    """Runs scenario files on the OpenAI Agents SDK (``--runtime openai-agents``)."""

    framework: ClassVar[str] = "openai-agents"

    def capture(self) -> Capture:
        return OpenAIAgentsCapture()

    def build_agent(
        self, plan: AgentPlan, children: dict[str, Agent[Any]], plans: dict[str, AgentPlan]
    ) -> Agent[Any]:
        tools: list[Any] = [_function_tool(t) for t in plan.tools]
        for mount in plan.mounts:
            child = children[mount.agent]
            tools.append(
                governed(
                    child,
                    policy=plan.policy,
                    tool_name=mount.tool_name,
                    tool_description=mount.description,
                    fallback=plan.fallback,
                    envelope=not self.replaying_native,  # a recording: the SDK's own result
                    subagent=mount.name,
                    run_config=_run_config(plans[mount.agent]),
                    max_turns=plans[mount.agent].spec.max_steps,
                )
            )
        return Agent(
            name=plan.name,
            instructions=plan.spec.system_prompt,
            model=SimModel(plan.model),
            model_settings=ModelSettings(parallel_tool_calls=plan.parallel),
            tools=tools,
        )

    async def run_turn(
        self, entry: Agent[Any], plan: AgentPlan, text: str, previous: RunResult | None
    ) -> tuple[str | None, RunResult]:
        items: Any = text
        if previous is not None:
            items = [*previous.to_input_list(), {"role": "user", "content": text}]
        result = await Runner.run(
            entry, items, run_config=_run_config(plan), max_turns=plan.spec.max_steps
        )
        output = result.final_output
        return (None if output is None else str(output)), result
