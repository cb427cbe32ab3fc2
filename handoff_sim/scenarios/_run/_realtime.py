"""``clock: real``: a scenario's turns on a real asyncio event loop, through ``Agent.arun``.

One loop (``asyncio.Runner``) and one seeded run environment serve every turn, as one
``Simulation`` does in virtual time, so ids, event numbers and sessions carry on from
turn to turn. The whole run has a real deadline, measured on its own clock whatever the
loop does: a turn still running at the deadline is cancelled; work that ignores the
cancellation is given a short grace, then abandoned; a turn that blocked the loop
(a synchronous sleep) and so ran past the deadline fails as soon as it returns. Each
ends the run with a ``RealTimeDeadlineError``, so a scenario can never hang a CI job,
nor pass late.
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections.abc import Callable, Coroutine, Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, Any, TypeVar

from handoff_sim._context import RunEnvironment, use_environment
from handoff_sim._limits import MAX_REAL_GRACE_SECONDS, MAX_REAL_RUN_SECONDS
from handoff_sim.errors import RealTimeDeadlineError, RunError
from handoff_sim.trace import Trace

if TYPE_CHECKING:
    from handoff_sim._agent import Agent, RunResult
    from handoff_sim._sessions import Session

__all__ = ["RealTimeRun", "real_time"]

T = TypeVar("T")

_now: Callable[[], float] = time.monotonic
"""The clock the deadline is measured on (real seconds; the loop's own clock is not trusted)."""


class RealTimeRun:
    """The real loop, the run environment and the deadline shared by a scenario's turns."""

    def __init__(self, runner: asyncio.Runner, environment: RunEnvironment) -> None:
        self._runner = runner
        self.environment = environment
        self.limit = MAX_REAL_RUN_SECONDS
        self.grace = MAX_REAL_GRACE_SECONDS
        self.started = _now()
        self.expired = False

    @property
    def trace(self) -> Trace:
        """Every event of every turn so far."""
        return Trace(self.environment.events)

    @property
    def now(self) -> float:
        """Real seconds since the first turn could start."""
        return self.environment.now_us() / 1_000_000

    def run(self, agent: Agent, user_input: str, *, session: Session | str | None) -> RunResult:
        """One turn of ``agent`` to its answer, on the real loop, before the deadline."""
        return self._run(agent.arun(user_input, session=session))

    def _left(self) -> float:
        return self.started + self.limit - _now()

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        try:
            result = self._runner.run(self._bounded(coro))
        except RealTimeDeadlineError:
            raise
        except Exception as exc:  # raised after the deadline: the deadline is the failure
            if self._left() < 0:
                raise self._late() from exc
            raise
        if self._left() < 0:  # the loop was blocked: the deadline could not stop the turn
            raise self._late()
        return result

    async def _bounded(self, coro: Coroutine[Any, Any, T]) -> T:
        """The turn as a task of its own, waited for until the deadline and no longer."""
        with use_environment(self.environment):
            context = contextvars.copy_context()
        task = asyncio.get_running_loop().create_task(coro, context=context)
        try:
            await asyncio.wait({task}, timeout=max(self._left(), 0))
        except asyncio.CancelledError:  # Ctrl-C: the turn is cancelled too
            await _stop(task, self.grace, context)
            raise
        if not task.done():
            self.expired = True
            ended = await _stop(task, self.grace, context)
            how = "every handoff was ended" if ended else _ABANDONED.format(self.grace)
            raise RealTimeDeadlineError(
                f"the run went over {self.limit:g}s of real time (clock: real); {how}"
            )
        return task.result()

    def _late(self) -> RealTimeDeadlineError:
        self.expired = True
        return RealTimeDeadlineError(
            f"the run went over {self.limit:g}s of real time (clock: real): it took "
            f"{self.limit - self._left():.1f}s, as something blocked the event loop (a "
            "synchronous sleep or computation), so the deadline was checked only once it returned"
        )


_ABANDONED = "its work ignored the cancellation and was closed {:g}s later"


async def _stop(
    task: asyncio.Task[Any], grace: float, context: contextvars.Context | None = None
) -> bool:
    """Cancel ``task`` and wait ``grace`` seconds at most; whether it ended by itself.

    A task still running then ignores its cancellation: its coroutine is closed (its
    ``finally`` blocks run, in ``context``, the one it runs in), so nothing of it runs
    on after the turn.
    """
    task.cancel()
    await asyncio.wait({task}, timeout=grace)
    if task.done():
        _retrieve(task)
        return True
    _close_coroutine(task, context)
    await asyncio.wait({task}, timeout=grace)
    _retrieve(task)
    return False


def _close_coroutine(task: asyncio.Task[Any], context: contextvars.Context | None) -> None:
    """End a task that ignores cancellation: close its coroutine (in the task's own context,
    where its ``finally`` blocks expect to run), then cancel it again."""
    coro = task.get_coro()
    if context is None:  # Task.get_context is new in Python 3.12
        context = getattr(task, "get_context", lambda: None)()
    with suppress(Exception):  # what its finally blocks raise; the run has failed anyway
        if context is not None:
            context.run(coro.close)
        else:
            coro.close()
    task.cancel()


def _retrieve(task: asyncio.Task[Any]) -> None:
    """Mark a finished task's outcome as seen (the turn's error is the deadline's)."""
    if task.done() and not task.cancelled():
        task.exception()


@contextmanager
def real_time(seed: int, observers: Sequence[object]) -> Iterator[RealTimeRun]:
    """A :class:`RealTimeRun` on a fresh event loop, closed (leftover tasks cancelled) after."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        raise RunError(
            "a clock: real scenario starts its own event loop and cannot run inside a "
            "running one; run it from synchronous code (a plain test function)"
        )
    runner = asyncio.Runner(loop_factory=asyncio.new_event_loop)  # not made the thread's loop

    async def environment() -> RunEnvironment:  # its clock is the running loop's
        return RunEnvironment(seed=seed, observers=tuple(observers))

    try:
        yield RealTimeRun(runner, runner.run(environment()))
    finally:
        _close(runner, MAX_REAL_GRACE_SECONDS)


def _close(runner: asyncio.Runner, grace: float) -> None:
    """Close the loop in bounded time, unlike ``Runner.close``, which waits for every task
    and every executor thread however long they take: leftover tasks are cancelled and
    given ``grace`` seconds, then closed; threads are not waited for."""
    loop = runner.get_loop()
    try:
        leftover = asyncio.all_tasks(loop)
        if leftover:
            loop.run_until_complete(_stop_all(leftover, grace))
        loop.run_until_complete(_within(loop.shutdown_asyncgens(), grace))
    finally:
        loop.close()  # shuts the default executor down without waiting for its threads


async def _stop_all(tasks: Iterable[asyncio.Task[Any]], grace: float) -> None:
    await asyncio.gather(*(_stop(task, grace) for task in tasks))


async def _within(coro: Coroutine[Any, Any, None], seconds: float) -> None:
    task = asyncio.ensure_future(coro)
    done, _ = await asyncio.wait({task}, timeout=seconds)
    if not done:
        await _stop(task, seconds)
