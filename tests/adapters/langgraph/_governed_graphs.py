"""Graphs for the governance tests: a delegating agent in each of the three LangGraph shapes.

The delegating agent is the ``create_agent`` orchestrator, a supervisor (whose tools are
the governed agents, next to its own handoff tools) or the first agent of a swarm (its
governed tools next to a handoff to a second agent). Workers are ``create_agent`` graphs
on a ``FunctionModel`` that calls its tool once per run, then answers, so every attempt
of a retried handoff starts the same way. Imported only by modules that skipped already
without the ``langgraph`` extra.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

from langchain.agents import create_agent
from langchain_core.tools import BaseTool, tool
from langgraph_supervisor import create_supervisor
from langgraph_swarm import create_handoff_tool, create_swarm

from handoff_sim.adapters.langgraph import SimChatModel
from handoff_sim.messages import ModelRequest, ModelResponse, ToolCall
from handoff_sim.testing import FunctionModel, ScriptedModel

__all__ = ["DELEGATOR", "SHAPES", "build", "worker"]

SHAPES = ("create_agent", "supervisor", "swarm")
DELEGATOR = {"create_agent": "orchestrator", "supervisor": "supervisor", "swarm": "alice"}
"""The agent whose model calls the governed tools, per shape."""


def _answers(tool_name: str | None, answer: str, seconds: float) -> FunctionModel:
    """Calls ``tool_name`` once per run (when given), then answers ``answer``."""

    def respond(request: ModelRequest) -> ModelResponse:
        done = any(m.role == "tool" for m in request.messages)
        if tool_name is None or done:
            return ModelResponse(text=answer)
        arguments = json.dumps({"seconds": seconds})
        return ModelResponse(tool_calls=(ToolCall(f"{answer}-call", tool_name, arguments),))

    return FunctionModel(respond)


@tool
async def wait(seconds: float) -> str:
    """Wait ``seconds`` (virtual time), then report."""
    await asyncio.sleep(seconds)
    return f"waited {seconds}"


def worker(name: str, answer: str, *, seconds: float = 3600.0, tools: Sequence[Any] = ()) -> Any:
    """A worker agent: waits ``seconds`` through its tool, then answers (or uses ``tools``)."""
    if tools:
        return create_agent(SimChatModel(ScriptedModel([])), tools=list(tools), name=name)
    return create_agent(SimChatModel(_answers("wait", answer, seconds)), tools=[wait], name=name)


def build(shape: str, model: Any, tools: Sequence[BaseTool]) -> Any:
    """The graph of ``shape`` whose delegating agent runs on ``model`` with ``tools``."""
    chat = model if isinstance(model, SimChatModel) else SimChatModel(model)
    if shape == "create_agent":
        return create_agent(chat, tools=list(tools), name="orchestrator")
    idle = create_agent(SimChatModel(ScriptedModel([{"text": "idle"}])), name="idle_worker")
    if shape == "supervisor":
        return create_supervisor([idle], model=chat, tools=list(tools)).compile()
    if shape == "swarm":
        alice = create_agent(
            chat, tools=[*tools, create_handoff_tool(agent_name="idle_worker")], name="alice"
        )
        return create_swarm([alice, idle], default_active_agent="alice").compile()
    raise ValueError(shape)
