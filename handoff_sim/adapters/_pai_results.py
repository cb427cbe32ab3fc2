"""What a governed pydantic-ai delegation gives back: pydantic-ai's own forms, not ours.

A delegate's output reaches the calling model as pydantic-ai serialises any tool return
(a str as is, anything else as JSON). A failed handoff is a failed tool return
(``ToolFailed``), pydantic-ai's way of telling the model a call is done and has failed;
a ``ModelRetry`` (and pydantic-ai's other tool signals) raised inside is handed back to
pydantic-ai unchanged, so the model gets pydantic-ai's own retry prompt. Which errors a
retry cannot fix is :func:`retryable`, the mount's classification.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from pydantic_ai.exceptions import (
    AgentRunError,
    ApprovalRequired,
    CallDeferred,
    ModelQuotaExceededError,
    ModelRequestRejectedError,
    ModelRetry,
    RunCancelled,
    RunTimedOut,
    ToolFailed,
    UsageLimitExceeded,
    UserError,
)
from pydantic_ai.messages import ToolReturnPart

from handoff_sim._tools import ToolOutput
from handoff_sim.adapters._governed import Attempt, FrameworkMount
from handoff_sim.messages import ToolCall

__all__ = [
    "CallOutcome",
    "PydanticAIMount",
    "call_outcome",
    "framework_text",
    "new_outcome",
    "retryable",
]

_TOOL_SIGNALS = (ModelRetry, ToolFailed, CallDeferred, ApprovalRequired)
"""What a pydantic-ai tool raises to tell pydantic-ai what to do with its call."""

_PASSED_ON = (*_TOOL_SIGNALS, UserError)
"""Errors a governed tool hands back to pydantic-ai as raised (a UserError is a mistake in
code: it ends the run, as it does without governance)."""

_NOT_RETRYABLE = (
    *_PASSED_ON,
    UsageLimitExceeded,
    ModelRequestRejectedError,
    ModelQuotaExceededError,
)


def retryable(error: BaseException) -> bool:
    """Whether another attempt can fix ``error`` of a governed pydantic-ai delegate.

    Not retried: pydantic-ai's tool signals (``ModelRetry``, ``ToolFailed``,
    ``CallDeferred``, ``ApprovalRequired``: the call's answer, not a failure), a
    ``UserError`` (a mistake in code), ``UsageLimitExceeded`` (usage only grows), a
    request the provider rejected or a quota it ran out of
    (``ModelRequestRejectedError``, ``ModelQuotaExceededError``: the same request is
    refused again) and a run the application cancelled (``RunCancelled``). Everything
    else is retried, a run's own ``RunTimedOut`` included. ``HandoffPolicy(retry_on=...)``
    overrides this.
    """
    if isinstance(error, RunTimedOut):
        return True
    return not isinstance(error, (*_NOT_RETRYABLE, RunCancelled))


def framework_text(value: object) -> str:
    """``value`` as pydantic-ai sends a tool's return to the model: a str as is, else JSON."""
    if isinstance(value, str):
        return value
    return ToolReturnPart(tool_name="result", content=value).model_response_str()


@dataclass(slots=True, eq=False)
class CallOutcome:
    """What one governed call's attempts left: the delegate's value, the last error."""

    value: object = None
    completed: bool = False
    error: BaseException | None = None
    args: tuple[object, ...] = ()
    kwargs: dict[str, object] = field(default_factory=dict)
    arguments: str = ""


_OUTCOME: ContextVar[CallOutcome | None] = ContextVar("handoff_adapter_pai_outcome", default=None)


@contextmanager
def new_outcome(
    args: tuple[object, ...] = (), kwargs: dict[str, object] | None = None, arguments: str = ""
) -> Iterator[CallOutcome]:
    """A fresh outcome for the governed call run in the block (with the tool's arguments)."""
    outcome = CallOutcome(args=args, kwargs=kwargs or {}, arguments=arguments)
    token = _OUTCOME.set(outcome)
    try:
        yield outcome
    finally:
        _OUTCOME.reset(token)


def call_outcome() -> CallOutcome:
    """The outcome of the governed call in progress (see :func:`new_outcome`)."""
    found = _OUTCOME.get()
    assert found is not None, "set by the governed tool for its call"
    return found


class PydanticAIMount(FrameworkMount):
    """A pydantic-ai delegation on our executor, answering in pydantic-ai's forms."""

    def __init__(
        self,
        name: str,
        description: str,
        attempt: Attempt,
        *,
        tool_name: str,
        envelope: bool = False,
        agent_name: str | None = None,
    ) -> None:
        super().__init__(
            name,
            description,
            attempt,
            tool_name=tool_name,
            envelope=envelope,
            agent_name=agent_name,
        )
        self.retryable = retryable

    def result(self, call: ToolCall, output: str | None, steps: int) -> str:
        call_outcome().completed = True
        return super().result(call, output, steps)

    def failure(self, call: ToolCall, error: BaseException) -> str:
        """pydantic-ai's own wording of its errors; others as our runtime words them."""
        call_outcome().error = error
        if isinstance(error, (AgentRunError, *_PASSED_ON)):
            return str(error)
        return super().failure(call, error)

    def deliver(self, result: ToolOutput, outcome: CallOutcome) -> object:
        """The governed tool's return: the delegate's value, our text, or pydantic-ai's error.

        A completed call returns the delegate's value itself (pydantic-ai serialises
        it, as for any tool) unless the envelope was asked for. A failed one raises
        the pydantic-ai signal raised inside, or ``ToolFailed`` with the tool result.
        """
        if not result.is_error:
            if outcome.completed and not self.envelope:
                return outcome.value
            return result.content
        if isinstance(outcome.error, _PASSED_ON):
            raise outcome.error
        raise ToolFailed(result.content)
