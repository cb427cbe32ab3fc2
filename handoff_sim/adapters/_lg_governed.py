"""``governed(...)`` for LangGraph: a policy on a compiled agent used as a LangChain tool.

LangChain's multi-agent docs delegate through a tool that invokes another agent and
returns its last message. This is that tool, governed as our runtime governs a
sub-agent: each call is admitted (allow/deny lists, depth), filtered, and run in up to
``max_retries + 1`` attempts of ``agent.ainvoke(...)``, each bounded by the timeout and
cancelled when it runs out (the subgraph's run is cancelled with it).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.tools import BaseTool, StructuredTool, ToolException
from langgraph.errors import GraphBubbleUp
from pydantic import BaseModel, Field

from handoff_sim._context import current_frame
from handoff_sim._safe import text_of
from handoff_sim.adapters._capture import current_tool
from handoff_sim.adapters._errors import GovernanceError
from handoff_sim.adapters._governed import Fallback, FrameworkMount, Governor
from handoff_sim.adapters._lg_model import agent_of
from handoff_sim.messages import ToolCall
from handoff_sim.subagents._input import resolve_input
from handoff_sim.subagents._naming import check_explicit_tool_name, normalize_tool_name
from handoff_sim.subagents._policy import HandoffPolicy

__all__ = ["DelegationArgs", "governed", "langgraph_retryable", "last_text"]


class DelegationArgs(BaseModel):
    """The parameters of a governed agent tool: the task, and optional context."""

    task: str = Field(description="The task for the agent, stated in full.")
    context: str | None = Field(
        default=None, description="Anything the agent needs to know to do the task."
    )


def langgraph_retryable(error: BaseException) -> bool:
    """An interrupt or a transfer out of the sub-agent (``GraphBubbleUp``) is no failure a
    retry can fix; anything else may be."""
    return not isinstance(error, GraphBubbleUp)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            c if isinstance(c, str) else str(c.get("text") or "") if isinstance(c, Mapping) else ""
            for c in content
        )
    return text_of(content)


def last_text(result: Any) -> str | None:
    """The agent's answer: the text of the last AI message of its result (``None``: none)."""
    messages = result.get("messages") if isinstance(result, Mapping) else None
    if not isinstance(messages, list):
        return None if result is None else text_of(result)
    for message in reversed(messages):
        if isinstance(message, AIMessage):
            return _text(message.content) or None
        if isinstance(message, BaseMessage):
            break
    return None


def _name_of(agent: Any, name: str | None, subagent: str | None) -> str:
    found = subagent or getattr(agent, "name", None)
    if found == "LangGraph":  # a graph compiled without a name
        found = None
    found = found or name
    if not found:
        raise GovernanceError(
            "governed(): the graph has no name; compile it with name=... or pass name= "
            "(the tool name)"
        )
    return str(found)


def _fallback(fallback: Fallback | BaseTool | None) -> Fallback | None:
    """A LangChain tool as a fallback gets the call's arguments; a function gets the call."""
    if fallback is None or not isinstance(fallback, BaseTool):
        return fallback
    tool = fallback

    async def serve(call: ToolCall) -> str:
        arguments = json.loads(call.arguments or "{}")
        return _text(await tool.ainvoke(arguments))

    return serve


def _caller(config: RunnableConfig | None) -> str:
    frame = current_frame()
    if frame is not None:
        return frame.agent
    metadata = (config or {}).get("metadata") or {}
    return agent_of(metadata) or str(metadata.get("langgraph_node") or "agent")


def _call(tool_name: str, task: str, context: str | None) -> ToolCall:
    """The call as the model made it (its id and raw arguments, when the capture saw them)."""
    tool = current_tool()
    if tool is not None and tool.slot is not None and tool.slot.call.name == tool_name:
        return ToolCall(tool.slot.call.id, tool_name, tool.slot.call.arguments)
    arguments = {"task": task} if context is None else {"task": task, "context": context}
    return ToolCall(tool_name, tool_name, json.dumps(arguments))


def governed(
    agent: Runnable[Any, Any],
    policy: HandoffPolicy | None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    fallback: Fallback | BaseTool | None = None,
    envelope: bool = False,
    subagent: str | None = None,
    config: RunnableConfig | None = None,
) -> StructuredTool:
    """A LangChain tool that delegates to ``agent`` under a :class:`~handoff_sim.HandoffPolicy`.

    ``agent`` is a compiled graph (``create_agent``, ``create_react_agent``, a
    ``StateGraph``) taking ``{"messages": [...]}``. The tool's parameters are ``task``
    and optional ``context``; each attempt runs ``agent.ainvoke({"messages": [user
    message]}, config)`` and the result is the text of its last AI message (our JSON
    envelope with ``envelope=True``). The policy applies as in our runtime: the
    allow/deny lists and ``max_depth`` (held per task), the input filter, retries, a
    per-attempt ``timeout`` that cancels the subgraph's run. A denial under ``FAIL``
    raises :class:`~handoff_sim.HandoffDeniedError` out of the graph's run; failures
    and ``REPORT_TO_MODEL`` denials are the tool's error result (a ``ToolMessage``
    with ``status="error"``); under ``FALLBACK_TO_PRIMARY`` ``fallback`` (a LangChain
    tool, or a function of the :class:`~handoff_sim.ToolCall`) serves the call, and
    without one the result is ``handoff unavailable: ...``. The tool name defaults
    to ``subagent_<name>`` (the graph's name); ``subagent`` names it in the trace.
    """
    if not isinstance(agent, Runnable):
        raise GovernanceError(
            f"governed() takes a compiled LangGraph graph (an agent), got {agent!r}"
        )
    if policy is not None and not isinstance(policy, HandoffPolicy):
        raise GovernanceError(f"governed(): policy must be a HandoffPolicy, got {policy!r}")
    agent_name = _name_of(agent, name, subagent)
    tool_name = check_explicit_tool_name(name.strip()) if name else normalize_tool_name(agent_name)
    text = description or f"Delegate a task to the {agent_name} agent and get its answer."

    async def attempt(call: ToolCall) -> str | None:
        message = HumanMessage(resolve_input(call.arguments))
        return last_text(await agent.ainvoke({"messages": [message]}, config))

    graph_name = getattr(agent, "name", None) or agent_name
    mount = FrameworkMount(
        agent_name, text, attempt, tool_name=tool_name, envelope=envelope, agent_name=graph_name
    )
    mount.retryable = langgraph_retryable  # a policy's retry_on still has the last word
    governor = Governor(mount, policy or HandoffPolicy(), _fallback(fallback))

    async def delegate(
        task: str, context: str | None = None, config: RunnableConfig | None = None
    ) -> str:
        result = await governor.invoke(_call(tool_name, task, context), _caller(config))
        if result.is_error:
            tool = current_tool()
            if tool is not None:
                tool.failed = result.content
            raise ToolException(result.content)  # LangChain's error result, status "error"
        return result.content

    return StructuredTool.from_function(
        coroutine=delegate,
        name=tool_name,
        description=text,
        args_schema=DelegationArgs,
        handle_tool_error=True,
        metadata={"handoff_sim_subagent": agent_name},
    )
