"""``governed(...)`` for pydantic-ai: a policy on a tool that delegates to another agent."""

from __future__ import annotations

import json
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from pydantic_ai import Agent, RunContext
from pydantic_ai.tools import Tool
from pydantic_ai.usage import UsageLimits

from handoff_sim.adapters._capture import current_tool
from handoff_sim.adapters._errors import GovernanceError
from handoff_sim.adapters._governed import Fallback, Governor
from handoff_sim.adapters._pai_results import (
    PydanticAIMount,
    call_outcome,
    framework_text,
    new_outcome,
)
from handoff_sim.messages import ToolCall
from handoff_sim.subagents._input import resolve_input
from handoff_sim.subagents._naming import check_explicit_tool_name, normalize_tool_name
from handoff_sim.subagents._policy import HandoffPolicy

__all__ = ["governed"]

_RUN_CONTEXT: ContextVar[RunContext[Any] | None] = ContextVar(
    "handoff_adapter_pai_run_context", default=None
)

DepsFor = Callable[[RunContext[Any]], Any]
"""The ``deps`` a delegated run gets, from the caller's run context."""


def _run_context() -> RunContext[Any]:
    found = _RUN_CONTEXT.get()
    assert found is not None, "set by the governed tool for its call"
    return found


def governed(
    agent: Agent[Any, Any],
    *,
    policy: HandoffPolicy | None = None,
    name: str | None = None,
    description: str | None = None,
    fallback: Fallback | None = None,
    envelope: bool = False,
    share_usage: bool = True,
    deps: DepsFor | None = None,
    subagent: str | None = None,
    usage_limits: UsageLimits | None = None,
) -> Tool[Any]:
    """A tool that delegates to ``agent`` under a :class:`~handoff_sim.HandoffPolicy`.

    pydantic-ai delegates through a tool function that runs another agent; this is
    that tool, governed as our runtime governs a sub-agent. Its parameters are
    ``task`` (required) and ``context`` (optional); each call runs
    ``agent.run(task [+ context], usage=ctx.usage)`` (``share_usage=False`` keeps the
    usage apart, ``usage_limits=`` bounds the delegate's run; ``deps=`` computes the
    delegate's deps from the caller's context) in
    up to ``max_retries + 1`` attempts, each bounded by ``timeout`` and cancelled when
    it runs out, after the allow/deny lists, ``max_depth`` (held per task) and the
    input filter. A denial under ``FAIL`` raises
    :class:`~handoff_sim.HandoffDeniedError` out of ``agent.run``; failures and
    ``REPORT_TO_MODEL`` denials become the tool result; ``FALLBACK_TO_PRIMARY`` calls
    ``fallback`` (a function of the :class:`~handoff_sim.ToolCall`) or answers
    ``handoff unavailable: ...``. The result is the delegate's output, or our JSON
    envelope with ``envelope=True``. The tool name defaults to
    ``normalize_tool_name(agent.name)`` (``subagent_<name>``). ``subagent`` is the
    sub-agent's name in the trace and the envelope (default: the agent's name).
    """
    if not isinstance(agent, Agent):
        raise GovernanceError(
            f"governed() takes a pydantic_ai.Agent (the agent to delegate to), got {agent!r}"
        )
    if policy is not None and not isinstance(policy, HandoffPolicy):
        raise GovernanceError(f"governed(): policy must be a HandoffPolicy, got {policy!r}")
    agent_name = subagent or agent.name or name
    if not agent_name:
        raise GovernanceError("governed(): the agent has no name; pass name= (the tool name)")
    tool_name = check_explicit_tool_name(name.strip()) if name else normalize_tool_name(agent_name)

    async def attempt(call: ToolCall) -> str | None:
        ctx = _run_context()
        result = await agent.run(
            resolve_input(call.arguments),
            usage=ctx.usage if share_usage else None,
            usage_limits=usage_limits,
            deps=deps(ctx) if deps is not None else None,
        )
        call_outcome().value = result.output
        return None if result.output is None else framework_text(result.output)

    mount = PydanticAIMount(
        agent_name,
        description or _described(agent, agent_name),
        attempt,
        tool_name=tool_name,
        envelope=envelope,
        agent_name=agent.name or agent_name,
    )
    governor = Governor(mount, policy or HandoffPolicy(), fallback)

    async def delegate(ctx: RunContext[Any], task: str, context: str | None = None) -> Any:
        arguments = {"task": task} if context is None else {"task": task, "context": context}
        call = ToolCall(ctx.tool_call_id or tool_name, tool_name, json.dumps(arguments))
        tool = current_tool()
        if tool is not None and tool.slot is not None:
            # the model's own arguments (validated by pydantic-ai), as our runtime passes them
            call = ToolCall(tool.slot.call.id, tool_name, tool.slot.call.arguments)
        token = _RUN_CONTEXT.set(ctx)
        try:
            caller = (ctx.agent.name if ctx.agent is not None else None) or "agent"
            with new_outcome() as outcome:
                result = await governor.invoke(call, caller)
        finally:
            _RUN_CONTEXT.reset(token)
        if result.is_error and tool is not None:
            tool.failed = result.content
        return mount.deliver(result, outcome)

    return Tool(delegate, name=tool_name, description=mount.description, takes_ctx=True)


def _described(agent: Agent[Any, Any], name: str) -> str:
    """The agent's ``description``, else a line naming it: what the calling model reads.

    Not its instructions: they are written to the delegate, not to the model choosing it.
    """
    return agent.description or f"Delegate a task to the {name} agent and get its answer."
