"""``governed(...)`` for the OpenAI Agents SDK: a policy on an agent used as a tool."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any

from agents import Agent
from agents.exceptions import (
    AgentsException,
    InputGuardrailTripwireTriggered,
    ModelBehaviorError,
    OutputGuardrailTripwireTriggered,
    ToolInputGuardrailTripwireTriggered,
    ToolOutputGuardrailTripwireTriggered,
    UserError,
)
from agents.tool import FunctionTool, default_tool_error_function
from agents.tool_context import ToolContext

from handoff_sim._errors._run import HandoffDeniedError
from handoff_sim.adapters._capture import active_capture, current_tool
from handoff_sim.adapters._errors import GovernanceError
from handoff_sim.adapters._governed import Fallback, FrameworkMount, Governor
from handoff_sim.adapters._oai_capture import OpenAIAgentsCapture
from handoff_sim.messages import ToolCall
from handoff_sim.subagents._policy import HandoffPolicy

__all__ = ["HandoffDeniedInRunError", "governed", "in_run", "sdk_retryable"]

_NEVER_FIXED_BY_A_RETRY = (
    InputGuardrailTripwireTriggered,
    OutputGuardrailTripwireTriggered,
    ToolInputGuardrailTripwireTriggered,
    ToolOutputGuardrailTripwireTriggered,
    UserError,
)
_BAD_ARGUMENTS = ("Invalid JSON input for tool", "Failed to serialize structured tool input")
"""How the SDK's ``as_tool`` words a refusal of the call's arguments (the same every attempt)."""


def sdk_retryable(error: BaseException) -> bool:
    """Whether a retry can fix a failed attempt: not a guardrail tripwire, a misuse of the
    SDK (``UserError``) or the SDK's refusal of the call's arguments; anything else may."""
    if isinstance(error, _NEVER_FIXED_BY_A_RETRY):
        return False
    return not (isinstance(error, ModelBehaviorError) and str(error).startswith(_BAD_ARGUMENTS))


_TOOL_CONTEXT: ContextVar[ToolContext[Any] | None] = ContextVar(
    "handoff_adapter_oai_tool_context", default=None
)


class HandoffDeniedInRunError(HandoffDeniedError, AgentsException):
    """A denial under ``FailureAction.FAIL``, raised so the SDK lets it out of the run unwrapped.

    It is a :class:`~handoff_sim.HandoffDeniedError` (catch that) and an
    ``AgentsException``, which the SDK re-raises from a tool as it is instead of
    wrapping it in ``UserError``.
    """


def in_run(exc: HandoffDeniedError) -> HandoffDeniedInRunError:
    """``exc`` as the error the SDK lets out of a run unchanged (every attribute kept)."""
    if isinstance(exc, HandoffDeniedInRunError):
        return exc
    made = HandoffDeniedInRunError.__new__(HandoffDeniedInRunError)
    made.args = exc.args
    made.__dict__.update(vars(exc))
    return made


def _tool_context() -> ToolContext[Any]:
    found = _TOOL_CONTEXT.get()
    assert found is not None, "set by the governed tool for its call"
    return found


class _SdkMount(FrameworkMount):
    """An ``as_tool`` delegation: the SDK's retry classification and its tool-error wording."""

    __slots__ = ()

    def failure(self, call: ToolCall, error: BaseException) -> str:
        """An error of the SDK reads as ``as_tool`` words it; ours (a timeout...) as ours."""
        if isinstance(error, AgentsException):
            return default_tool_error_function(_tool_context(), error)
        return super().failure(call, error)


def _fallback(fallback: Fallback | FunctionTool | None) -> Fallback | None:
    if fallback is None or not isinstance(fallback, FunctionTool):
        return fallback
    tool = fallback

    def serve(call: ToolCall) -> Awaitable[Any]:
        return tool.on_invoke_tool(_tool_context(), call.arguments)

    return serve


def governed(
    agent: Agent[Any],
    *,
    policy: HandoffPolicy | None = None,
    tool_name: str | None = None,
    tool_description: str | None = None,
    fallback: Fallback | FunctionTool | None = None,
    envelope: bool = False,
    subagent: str | None = None,
    **as_tool: Any,
) -> FunctionTool:
    """``agent.as_tool(...)`` governed by a :class:`~handoff_sim.HandoffPolicy`, as in our runtime.

    The tool the model sees is the one ``agent.as_tool(tool_name, tool_description,
    **as_tool)`` makes (same name, schema and result: the sub-agent's final output).
    Each call is admitted by the allow/deny lists and ``max_depth`` (the depth of the
    calling run, held per task), filtered, and run in up to ``max_retries + 1``
    attempts, each bounded by ``timeout`` and cancelled when it runs out. A denial
    under ``FAIL`` raises :class:`HandoffDeniedInRunError` out of ``Runner.run``;
    failures and ``REPORT_TO_MODEL`` denials become the tool result; under
    ``FALLBACK_TO_PRIMARY`` the call goes to ``fallback`` (a ``FunctionTool`` or a
    function of the :class:`~handoff_sim.ToolCall`), and without one the result is
    ``handoff unavailable: ...``. ``envelope=True`` returns our JSON envelope
    (``{"subagent", "toolName", "output", "steps"}``) instead of the plain output.
    ``subagent`` is the sub-agent's name in the trace and the envelope (default: the
    agent's name). Without ``tool_description`` the tool is described by the agent's
    ``handoff_description`` (``as_tool`` itself would leave it empty).
    """
    if not isinstance(agent, Agent):
        raise GovernanceError(
            f"governed() takes an agents.Agent (the agent to use as a tool), got {agent!r}"
        )
    if policy is not None and not isinstance(policy, HandoffPolicy):
        raise GovernanceError(f"governed(): policy must be a HandoffPolicy, got {policy!r}")
    if tool_description is None:
        tool_description = agent.handoff_description  # what the model is told of the agent
    inner = agent.as_tool(
        tool_name=tool_name,
        tool_description=tool_description,
        failure_error_function=None,
        **as_tool,
    )

    async def attempt(call: ToolCall) -> str | None:
        output = await inner.on_invoke_tool(_tool_context(), call.arguments)
        return None if output is None else str(output)

    mount = _SdkMount(
        subagent or agent.name,
        inner.description,
        attempt,
        tool_name=inner.name,
        envelope=envelope,
        agent_name=agent.name,
    )
    mount.retryable = sdk_retryable  # a policy's retry_on still has the last word
    governor = Governor(mount, policy or HandoffPolicy(), _fallback(fallback))
    invoke = _invoker(governor, inner.name)
    return dataclasses.replace(inner, on_invoke_tool=invoke)


def _invoker(governor: Governor, name: str) -> Callable[[ToolContext[Any], str], Awaitable[str]]:
    async def invoke(ctx: ToolContext[Any], arguments: str) -> str:
        call_id = ctx.tool_call_id
        capture, tool = active_capture(), current_tool()
        if isinstance(capture, OpenAIAgentsCapture) and tool is not None:
            call_id = capture.ensure_tool(tool, arguments).call.id
        caller = ctx.agent.name if ctx.agent is not None else "agent"
        token = _TOOL_CONTEXT.set(ctx)
        try:
            result = await governor.invoke(ToolCall(call_id, name, arguments), caller)
        except HandoffDeniedError as exc:
            if isinstance(exc, AgentsException):
                raise
            raise in_run(exc) from None  # every attribute and note kept
        finally:
            _TOOL_CONTEXT.reset(token)
        if result.is_error and tool is not None:
            tool.failed = result.content
        return result.content

    return invoke
