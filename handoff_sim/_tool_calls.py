"""Run one turn's tool calls: validate, execute (in order or fork-join), collect in call order.

A bad call (unknown tool, arguments that are not JSON or do not fit the schema) becomes an
error result the model sees; parallel calls join before the next model call, and one that
raises in a FAIL mode cancels its siblings.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence

from handoff_sim._context import Frame, RunEnvironment
from handoff_sim._errors._run import HandoffDeniedError
from handoff_sim._safe import JsonProblem, error_message, parse_arguments, text_of
from handoff_sim._tools import ToolOutput, format_tool_error
from handoff_sim.errors import BudgetExceededError, ScriptError, SessionStoreError
from handoff_sim.events import ToolEndEvent, ToolStartEvent, ToolStatus
from handoff_sim.messages import Message, ToolCall

__all__ = ["dedupe_call_ids", "execute_calls"]

Execute = Callable[[ToolCall], Awaitable[str | ToolOutput]]

# Raised out of the run instead of becoming a tool result.
_PROPAGATE = (HandoffDeniedError, ScriptError, BudgetExceededError, SessionStoreError)


def dedupe_call_ids(calls: Sequence[ToolCall], step: int, seen: set[str]) -> tuple[ToolCall, ...]:
    """Give every call a non-blank id unique within the agent run.

    A blank id becomes ``call_<step>_<index>``; a repeated one gets ``~2``, ``~3``…
    so handoff ids (``handoff:<call_id>``) and results stay unambiguous. The calls
    were checked already (``check_response``): names and arguments are text. When
    none is renamed, a plain tuple comes back as it is (no copy kept per turn).
    """
    out = []
    renamed = type(calls) is not tuple
    for index, call in enumerate(calls):
        base = call.id.strip() if isinstance(call.id, str) else ""
        base = base or f"call_{step}_{index}"
        unique, n = base, 1
        while unique in seen:
            n += 1
            unique = f"{base}~{n}"
        seen.add(unique)
        name = call.name or "tool"
        if unique != call.id or name != call.name:
            call = ToolCall(unique, name, call.arguments)
            renamed = True
        out.append(call)
    return tuple(out) if renamed else calls  # type: ignore[return-value]  # a plain tuple


def _arguments_problem(call: ToolCall) -> str | None:
    try:
        value = parse_arguments(call.arguments)
    except JsonProblem as exc:
        if exc.too_deep:
            return f"{call.name} arguments must be a JSON object (these are nested too deeply)"
        return f"{call.name} arguments must be a JSON object"
    return None if isinstance(value, dict) else f"{call.name} arguments must be a JSON object"


class _Interrupted(Exception):
    """Carries a KeyboardInterrupt or SystemExit out of one call's task.

    asyncio re-raises those two from the event loop itself when a task raises
    them, which would leave the turn's other tasks and every open start behind.
    Boxed, the turn sees an ordinary failure, cancels the siblings, and re-raises
    the original in the task that owns the turn.
    """

    def __init__(self, original: BaseException) -> None:
        super().__init__(type(original).__name__)
        self.original = original


class _Turn:
    """The calls of one model turn and where their results go."""

    def __init__(self, env: RunEnvironment, frame: Frame, execute: Execute) -> None:
        self.env = env
        self.frame = frame
        self.execute = execute

    def _end(self, call: ToolCall, status: ToolStatus, output: str | None) -> None:
        env = self.env
        env.publish(
            ToolEndEvent(
                *env.stamp(self.frame),
                call_id=call.id,
                tool=call.name,
                status=status,
                output=output,
            )
        )

    async def run_one(self, call: ToolCall) -> Message:
        """Run one call; every way it can end emits exactly one ``tool_end``.

        A ``KeyboardInterrupt``, ``SystemExit`` or ``GeneratorExit`` from user code
        ends the call ``cancelled`` and propagates: it is the user's, not a result.
        """
        env = self.env
        env.publish(
            ToolStartEvent(
                *env.stamp(self.frame), call_id=call.id, tool=call.name, arguments=call.arguments
            )
        )
        try:
            content, is_error = await self._outcome(call)
        except asyncio.CancelledError:
            self._end(call, "cancelled", None)
            raise
        except _PROPAGATE as exc:
            self._end(call, "error", error_message(exc))
            raise
        except BaseException:
            self._end(call, "cancelled", None)
            raise
        self._end(call, "error" if is_error else "ok", content)
        return Message(
            role="tool", content=content, tool_call_id=call.id, name=call.name, is_error=is_error
        )

    async def _outcome(self, call: ToolCall) -> tuple[str, bool]:
        """The result text and error flag of one call; a failing tool is an error result."""
        problem = _arguments_problem(call)
        if problem is not None:
            return problem, True
        try:
            result = await self.execute(call)
        except _PROPAGATE:
            raise
        except Exception as exc:
            return format_tool_error(exc), True
        if type(result) is str:  # the usual answer: nothing to turn into text
            return result, False
        if isinstance(result, ToolOutput):
            return text_of(result.content), bool(result.is_error)
        return text_of(result), False

    async def run_guarded(self, call: ToolCall) -> Message:
        """:meth:`run_one` for a task of its own: an interrupt travels boxed."""
        try:
            return await self.run_one(call)
        except (KeyboardInterrupt, SystemExit) as exc:
            raise _Interrupted(exc) from None


async def execute_calls(
    calls: Sequence[ToolCall],
    env: RunEnvironment,
    frame: Frame,
    execute: Execute,
    *,
    parallel: bool,
) -> list[Message]:
    """Run ``calls`` and return their result messages in the model's call order.

    With ``parallel`` every call runs concurrently and the turn waits for all
    (fork-join). If one raises an error that aborts the run (or the user's
    interrupt), its siblings are cancelled (each still ends with status
    ``cancelled``), every task is awaited, and then the error is raised.
    """
    turn = _Turn(env, frame, execute)
    if not parallel or len(calls) < 2:
        results = []
        for call in calls:  # a plain loop: an async comprehension is a coroutine of its own
            results.append(await turn.run_one(call))
        return results
    tasks = [asyncio.ensure_future(turn.run_guarded(call)) for call in calls]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
    except asyncio.CancelledError:
        await _cancel_in_order(tasks)
        raise
    failed = next((t for t in tasks if t.done() and not t.cancelled() and t.exception()), None)
    if failed is not None:
        await _cancel_in_order(tasks)
        error = failed.exception()
        assert error is not None
        raise error.original if isinstance(error, _Interrupted) else error
    return [task.result() for task in tasks]


async def _cancel_in_order(tasks: list[asyncio.Task[Message]]) -> None:
    """Cancel what is still running, in call order, and wait for every task to finish.

    Cancelling in call order (not in a set's order, as TaskGroup does) keeps the
    cancelled siblings' end events in a deterministic order: traces are byte-identical
    across runs.
    """
    for task in tasks:
        if not task.done():
            task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
