"""One handoff attempt under a deadline that holds whatever the sub-agent does when cancelled.

The attempt runs in a task of its own. At the deadline that task is cancelled and given a
grace of loop iterations, no time: until it ends, or until nothing else on the loop is
ready to run (it waits for a timer or I/O, which a cancelled attempt has no reason to do).
A sub-agent still running then ignored its cancellation: :class:`AttemptAbandoned` (a
``BaseException``, so neither ``except Exception`` nor ``except CancelledError`` takes it)
is thrown into its coroutine, in the task's own context, so its cleanup (every ``*_end``
event, a session's rollback, a lock's release) runs now, at the deadline, and it can never
resume to write into the trace or a session later. Code that catches even that and awaits
again is never resumed: its task is detached from what it waits for and left pending. A
result produced after the deadline is discarded. Either way the attempt is a timeout, and
its error says what happened.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Coroutine
from typing import Any, TypeVar

from handoff_sim.errors import HandoffTimeoutError

__all__ = ["LATE_RESULT", "STOPPED", "UNSTOPPABLE", "AttemptAbandoned", "within_deadline"]

T = TypeVar("T")

_GRACE_TICKS = 10_000  # loop iterations at most, for a loop whose ready queue cannot be read
_IDLE_TICKS = 3  # iterations with nothing else ready: the cancelled attempt waits for time
_THROWS = 100  # times AttemptAbandoned is thrown into a sub-agent that catches it and waits

LATE_RESULT = (
    "the sub-agent ignored its cancellation and finished after the deadline: what it "
    "returned or raised was discarded"
)
STOPPED = (
    "the sub-agent ignored its cancellation and was stopped at the deadline: anything it "
    "returns later is discarded"
)
UNSTOPPABLE = (
    "the sub-agent ignored its cancellation and even the exception that stops it: it is "
    "never resumed, and anything it would return is discarded"
)

# Coroutines that could not be stopped are kept here, never finalised: finalising one
# would run its code again (a late write) whenever the garbage collector got to it.
_UNSTOPPED: list[object] = []


class AttemptAbandoned(BaseException):
    """Thrown into a sub-agent that ignored its attempt's cancellation; never leaves the attempt.

    Runs and calls it interrupts end ``cancelled``, with this as their error.
    """


class _Interrupt(Exception):
    """A ``KeyboardInterrupt`` or ``SystemExit`` out of the attempt's task, boxed so that the
    loop does not re-raise it from the task's step; unboxed by the attempt's caller."""

    def __init__(self, original: BaseException) -> None:
        super().__init__(type(original).__name__)
        self.original = original


async def _boxed(body: Coroutine[Any, Any, T]) -> T:
    try:
        return await body
    except (KeyboardInterrupt, SystemExit) as exc:
        raise _Interrupt(exc) from None


class _Attempt:
    """The task of one attempt, its context and how it ended."""

    def __init__(self, body: Coroutine[Any, Any, Any]) -> None:
        self.coro = _boxed(body)
        self.context = contextvars.copy_context()
        self.task = asyncio.get_running_loop().create_task(self.coro, context=self.context)
        self.task.add_done_callback(_retrieve)
        self.note: str | None = None

    async def stop(self, *, cancel: bool = True) -> None:
        """Cancel the task (unless the deadline did); abandon it if the grace did not end it."""
        if cancel:
            self.task.cancel()
        try:
            ended = await _settled(self.task)
        except BaseException:
            self.abandon()
            raise
        if not ended:
            self.abandon()
            if self.note is STOPPED:
                await asyncio.wait({self.task})  # its coroutine finished: it ends at once

    def abandon(self) -> None:
        """Throw :class:`AttemptAbandoned` into the task's coroutine, in its context.

        Thrown again each time the coroutine catches it and waits anew (a tool that
        returns from ``except BaseException`` lets its run go on to its next wait), a
        bounded number of times; what still resists is never resumed.
        """
        if self.task.done():
            return
        waiting = getattr(self.task, "_fut_waiter", None)
        for _ in range(_THROWS):
            chain = _awaited(self.coro)
            stop = AttemptAbandoned(
                "stopped at its attempt's deadline: it ignored its cancellation"
            )
            try:
                self.context.run(self.coro.throw, stop)
            except BaseException:  # it ended: by the exception thrown, or by its own
                self.note = STOPPED
                self.task.cancel()  # wakes the task, whose finished coroutine then ends it
                return
        _UNSTOPPED.append(chain)  # it caught that too and awaited again: never resume it
        self.note = UNSTOPPABLE
        if isinstance(waiting, asyncio.Future):
            for callback, _ in list(getattr(waiting, "_callbacks", None) or ()):
                if getattr(callback, "__self__", None) is self.task:
                    waiting.remove_done_callback(callback)


def _awaited(coro: object) -> list[object]:
    """``coro`` and every coroutine or generator it is suspended in, outermost first."""
    chain: list[object] = []
    while coro is not None and (hasattr(coro, "cr_await") or hasattr(coro, "gi_yieldfrom")):
        chain.append(coro)
        coro = getattr(coro, "cr_await", None) or getattr(coro, "gi_yieldfrom", None)
    return chain


def _retrieve(task: asyncio.Task[Any]) -> None:
    """Mark an abandoned or timed-out attempt's exception retrieved: no 'never retrieved' log."""
    if not task.cancelled():
        task.exception()


def _idle(loop: asyncio.AbstractEventLoop) -> bool | None:
    """Whether nothing but the caller is ready to run (None: this loop does not say)."""
    ready = getattr(loop, "_ready", None)
    scheduled = getattr(loop, "_scheduled", None)
    if ready is None or scheduled is None:
        return None
    return not ready and not (scheduled and scheduled[0].when() <= loop.time())


async def _settled(task: asyncio.Task[Any]) -> bool:
    """Whether ``task`` ends within the grace: loop iterations, no time."""
    loop = asyncio.get_running_loop()
    idle = 0
    for _ in range(_GRACE_TICKS):
        if task.done():
            return True
        idle = idle + 1 if _idle(loop) else 0
        if idle >= _IDLE_TICKS:
            return False
        await asyncio.sleep(0)
    return task.done()


async def within_deadline(body: Coroutine[Any, Any, T], tool: str, timeout: float) -> T:
    """``await body`` in a task of its own; HandoffTimeoutError once ``timeout`` seconds pass.

    The error raised at the deadline carries a note when the sub-agent ignored its
    cancellation (stopped, finished late, or not stoppable). Cancelled from outside, the
    attempt is cancelled too and waited for within the same grace.
    """
    loop = asyncio.get_running_loop()
    attempt = _Attempt(body)
    task = attempt.task
    woken = loop.create_future()
    expired = False

    def wake(_: object = None) -> None:
        if not woken.done():
            woken.set_result(None)

    def expire() -> None:
        nonlocal expired
        if not task.done():
            expired = True
            task.cancel()
            wake()

    task.add_done_callback(wake)
    timer = loop.call_at(loop.time() + timeout, expire)
    try:
        await woken
    except asyncio.CancelledError:
        timer.cancel()
        await attempt.stop()
        raise
    except BaseException:  # thrown in by an outer attempt's abandonment: no awaiting now
        timer.cancel()
        attempt.abandon()
        raise
    timer.cancel()
    if not expired:
        result: T = _result(task)
        return result
    await attempt.stop(cancel=False)  # cancelled once, at the deadline: ignoring it is noted
    error = HandoffTimeoutError(tool, timeout)
    if attempt.note is None and task.done() and not task.cancelled():
        attempt.note = LATE_RESULT
    if attempt.note is not None:
        error.add_note(attempt.note)
    raise error


def _result(task: asyncio.Task[T]) -> T:
    """The task's result; its error raised as it is (an interrupt unboxed)."""
    try:
        return task.result()
    except _Interrupt as boxed:
        raise boxed.original from None
