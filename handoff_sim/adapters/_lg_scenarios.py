"""Scenario files on LangGraph: ``handoff-sim run --runtime langgraph``.

Each agent a scenario reaches becomes a ``langchain.agents.create_agent`` graph whose
model is ``SimChatModel`` around the scenario's fake model and whose system prompt is
the agent's; its fake tools become LangChain tools with the fake's JSON schema (a
failure is the tool's error result, as a ``ToolException`` with ``handle_tool_error``
gives it); each sub-agent mount becomes ``governed(child, ...)`` — the agent used as a
tool, LangChain's multi-agent "tool calling" shape — under the parent's policy with our
envelope result. The governed tool's parameters are ``task`` and ``context``, the
scenario's own shape, so calls reach it unchanged. ``parallel_tool_calls: false`` runs
the calls of one model answer one at a time, in call order (``create_agent`` otherwise
runs them at once); ``max_steps`` bounds each run's model calls through LangGraph's
``recursion_limit`` (a model call and its tools are two steps). Turns continue one
conversation: each turn's input is the last turn's messages and the new user message.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any, ClassVar

from langchain.agents import create_agent
from langchain_core.messages import BaseMessage, HumanMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, StructuredTool, ToolException

from handoff_sim._context import current_frame
from handoff_sim._safe import describe_error
from handoff_sim._tools import Tool
from handoff_sim.adapters._capture import Capture, current_tool
from handoff_sim.adapters._lg_capture import LangGraphCapture
from handoff_sim.adapters._lg_determinism import seeded_ids
from handoff_sim.adapters._lg_governed import governed, last_text
from handoff_sim.adapters._lg_model import SimChatModel
from handoff_sim.adapters._scenario_runtime import AgentPlan, FrameworkRuntime, ScenarioPlan
from handoff_sim.scenarios import LoadedScenario, ScenarioRun

__all__ = ["LangGraphRuntime"]

_ANY_OBJECT: dict[str, Any] = {"type": "object", "additionalProperties": True}


def _recursion_limit(plan: AgentPlan) -> RunnableConfig:
    """``max_steps`` model calls: each is a model step and a tools step, plus the last."""
    return {"recursion_limit": 2 * plan.spec.max_steps + 1}


class _OneAtATime:
    """The calls of one run go one at a time, in the order LangGraph starts them."""

    def __init__(self) -> None:
        self.locks: dict[str, asyncio.Lock] = {}

    def wrap(self, tool: BaseTool) -> BaseTool:
        coroutine = getattr(tool, "coroutine", None)
        assert coroutine is not None, "every tool of a scenario agent is async"

        @functools.wraps(coroutine)
        async def one(*args: Any, **kwargs: Any) -> Any:
            frame = current_frame()
            key = frame.run_id if frame is not None else ""
            lock = self.locks.setdefault(key, asyncio.Lock())
            async with lock:
                return await coroutine(*args, **kwargs)

        return tool.model_copy(update={"coroutine": one})


def _fake_tool(tool: Tool) -> StructuredTool:
    """A fake tool as a LangChain tool; a failure is its error result, not the run's end."""

    async def invoke(**arguments: Any) -> str:
        try:
            return await tool.invoke(arguments)
        except Exception as exc:
            in_flight = current_tool()
            text = describe_error(exc)
            if in_flight is not None:
                in_flight.failed = text
            raise ToolException(text) from exc

    return StructuredTool.from_function(
        coroutine=invoke,
        name=tool.name,
        description=tool.description or tool.name,
        args_schema=dict(tool.parameters) if tool.parameters else dict(_ANY_OBJECT),
        handle_tool_error=True,
    )


class LangGraphRuntime(FrameworkRuntime[Any, list[BaseMessage]]):
    """Runs scenario files on LangGraph (``--runtime langgraph``)."""

    framework: ClassVar[str] = "langgraph"
    native_input: ClassVar[str] = "task"
    _seed: int = 0

    def capture(self) -> Capture:
        return LangGraphCapture(seed=self._seed)

    def around(self) -> AbstractContextManager[None]:
        return seeded_ids(self._seed)

    def run(self, scenario: LoadedScenario, *, observers: Sequence[object] = ()) -> ScenarioRun:
        self._seed = scenario.seed
        return super().run(scenario, observers=observers)

    def _native(self, plan: ScenarioPlan) -> None:
        """Nothing to translate: the governed tool takes the scenario's ``{task, context}``."""

    def build_agent(
        self, plan: AgentPlan, children: dict[str, Any], plans: dict[str, AgentPlan]
    ) -> Any:
        tools: list[BaseTool] = [_fake_tool(t) for t in plan.tools]
        for mount in plan.mounts:
            tools.append(
                governed(
                    children[mount.agent],
                    plan.policy,
                    name=mount.tool_name,
                    description=mount.description,
                    fallback=plan.fallback,
                    envelope=True,
                    subagent=mount.name,
                    config=_recursion_limit(plans[mount.agent]),
                )
            )
        if not plan.parallel:
            serial = _OneAtATime()
            tools = [serial.wrap(t) for t in tools]
        return create_agent(
            SimChatModel(plan.model, agent=plan.name),
            tools=tools,
            system_prompt=plan.spec.system_prompt or None,
            name=plan.name,
        )

    async def run_turn(
        self, entry: Any, plan: AgentPlan, text: str, previous: list[BaseMessage] | None
    ) -> tuple[str | None, list[BaseMessage]]:
        messages = [*(previous or []), HumanMessage(text)]
        result = await entry.ainvoke({"messages": messages}, _recursion_limit(plan))
        return last_text(result), list(result["messages"])
