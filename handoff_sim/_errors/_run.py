"""Errors of a run: the run stopped, one tool call failed, a check or stored data failed."""

from __future__ import annotations

from handoff_sim._errors._families import CheckFailedError, DataError, RunError, ToolCallError

__all__ = [
    "BudgetExceededError",
    "HandoffDeniedError",
    "HandoffTimeoutError",
    "MaxStepsExceededError",
    "OtlpError",
    "OtlpFormatError",
    "PatternTimeoutError",
    "RealTimeDeadlineError",
    "SessionStoreError",
    "UnknownToolError",
    "VirtualDeadlineError",
    "VirtualDeadlockError",
    "VirtualTimeError",
]


class BudgetExceededError(RunError):
    """A run used up its budget: model calls, handoffs, or agent runs nested in one another.

    ``resource`` is ``"model_calls"``, ``"handoffs"`` or ``"nesting"``; ``limit`` is the
    cap that was reached. It is never retried and never becomes a tool result.
    """

    def __init__(self, resource: str, limit: int, message: str) -> None:
        super().__init__(message)
        self.resource = resource
        self.limit = limit


class HandoffDeniedError(RunError):
    """A handoff was refused by policy and the policy says FAIL.

    ``reason`` is the code the trace records (``not_allowed``, ``denied_tool``,
    ``max_depth``), ``detail`` the text (``tool is in denied_tools``); the message is
    ``handoff denied for subagent tool <tool>: <detail>``. ``from_defaults`` names the
    policy fields left at their default that made the denial raise (``max_depth``,
    ``on_denied``); each gets a note saying how to change it.
    """

    def __init__(
        self,
        tool: str,
        reason: str,
        detail: str,
        *,
        depth: int | None = None,
        from_defaults: tuple[str, ...] = (),
    ) -> None:
        super().__init__(f"handoff denied for subagent tool {tool}: {detail}")
        self.tool = tool
        self.reason = reason
        self.detail = detail
        self.depth = depth
        self.from_defaults = from_defaults
        for field in from_defaults:
            note = _default_note(field, depth)
            if note is not None:
                self.add_note(note)


def _default_note(field: str, depth: int | None) -> str | None:
    """How to change the policy default ``field`` that made a denial raise."""
    if field == "max_depth":
        allows = (
            f"HandoffPolicy(max_depth={depth}) allows this depth"
            if depth is not None
            else "a larger max_depth allows deeper handoffs"
        )
        return (
            f"max_depth 1 is HandoffPolicy's default (it was not set): {allows}, "
            "max_depth=0 removes the limit"
        )
    if field == "on_denied":
        return (
            "on_denied=FAIL is HandoffPolicy's default (it was not set): "
            "on_denied=FailureAction.REPORT_TO_MODEL gives the model the denial as a failed "
            "tool result and the run goes on; FALLBACK_TO_PRIMARY sends the call to the "
            "primary tool executor"
        )
    return None


class MaxStepsExceededError(RunError):
    """An agent asked its model more than ``max_steps`` times in one run."""

    def __init__(self, agent: str, max_steps: int) -> None:
        super().__init__(f"agent {agent!r} exceeded max_steps={max_steps}")
        self.agent = agent
        self.max_steps = max_steps


class VirtualTimeError(RunError):
    """A simulated run cannot go on: it would hang, or it ran past its virtual deadline."""


class VirtualDeadlockError(VirtualTimeError):
    """Under simulation every task waits and no timer is pending: it would hang forever."""


class RealTimeDeadlineError(RunError):
    """A ``clock: real`` scenario ran past its real-time deadline.

    Raised however the run ended: cancelled at the deadline, still running after it
    (its work ignored the cancellation) or finished late (blocked the loop). It fails
    the scenario whatever ``expect.error`` says.
    """


class VirtualDeadlineError(VirtualTimeError):
    """Virtual time passed the simulation's deadline (a guard against endless runs)."""


class PatternTimeoutError(CheckFailedError):
    """A user's regular expression took longer than its time budget on one text.

    Catastrophic backtracking (``^(a|a)+$`` on sixty ``a`` and a ``!``) would run for
    hours; the match is stopped instead, and the expectation it served fails. ``pattern``
    is the expression, ``length`` the characters of the text, ``seconds`` the budget.
    """

    def __init__(self, pattern: str, length: int, seconds: float, *, spent: bool = False) -> None:
        if spent:
            why = f"was not tried: the patterns of this check already took {seconds:g}s together"
        else:
            why = f"took longer than {seconds:g}s on a text of {length} characters"
        shown = repr(pattern) if len(pattern) <= 60 else repr(pattern[:57]) + "..."
        super().__init__(
            f"pattern {shown} {why} (it backtracks too much: avoid a repeat "
            "inside a repeat, such as (a+)+ or (a|a)*)"
        )
        self.pattern = pattern
        self.length = length
        self.seconds = seconds


class SessionStoreError(DataError):
    """A session could not be saved (the store failed), or a stored file is corrupt or foreign."""


class HandoffTimeoutError(ToolCallError, TimeoutError):
    """One handoff attempt ran past the policy's per-attempt timeout."""

    def __init__(self, tool: str, timeout: float) -> None:
        ms = timeout * 1000
        shown = int(ms) if ms == int(ms) else ms
        super().__init__(f"handoff timeout for subagent tool {tool} after {shown} ms")
        self.tool = tool
        self.timeout = timeout


class UnknownToolError(ToolCallError, LookupError):
    """A tool executor was asked to run a tool name it does not serve."""

    def __init__(self, name: str, detail: str | None = None) -> None:
        super().__init__(detail or f"unknown tool: {name}")
        self.name = name


class OtlpError(DataError, ValueError):
    """OTLP trace data cannot be read as asked (see :class:`OtlpFormatError`)."""


class OtlpFormatError(OtlpError):
    """Ill-formed OTLP/JSON: ``source`` (the file), ``where`` (a field path) and ``what``."""

    def __init__(self, source: str, where: str, what: str) -> None:
        super().__init__(f"{source}: {where}: {what}" if where else f"{source}: {what}")
        self.source = source
        self.where = where
        self.what = what
