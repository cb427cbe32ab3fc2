"""``VirtualTimeLoop``: an asyncio loop whose clock jumps to the next timer.

Rules (see docs/virtual-time.md):

* time is an integer count of microseconds; ``time()`` returns seconds;
* when nothing is ready, the clock jumps straight to the next timer;
* timers due at the same instant fire in the order they were scheduled (FIFO);
* while executor (thread) work is pending, time stands still and the loop waits for it
  (the work reads the simulation's wall clock, standing still too);
* no timer, nothing ready, no thread work: a deadlock, raised as VirtualDeadlockError;
* passing ``deadline`` seconds of virtual time raises VirtualDeadlineError.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import heapq
import selectors
import weakref
from asyncio import events
from collections.abc import Callable, Sequence
from contextvars import Context
from typing import Any, cast

from handoff_sim.errors import VirtualDeadlineError, VirtualDeadlockError
from handoff_sim.simulation._wallclock import carry

__all__ = ["VirtualTimeLoop"]

_US = 1_000_000
_INF = float("inf")


class _FifoTimerHandle(events.TimerHandle):
    """A timer handle that breaks deadline ties by scheduling order.

    The heap compares timers on every push and pop, so two of these compare inline.
    """

    __slots__ = ("_order",)
    _when: float

    def __init__(
        self,
        order: int,
        when: float,
        callback: Callable[..., object],
        args: Sequence[Any],
        loop: asyncio.AbstractEventLoop,
        context: Context | None,
    ) -> None:
        events.TimerHandle.__init__(self, when, callback, args, loop, context)
        self._order = order

    def _key(self) -> tuple[float, int]:
        return (self._when, self._order)

    def __lt__(self, other: object) -> bool:
        if isinstance(other, _FifoTimerHandle):
            when, other_when = self._when, other._when
            return when < other_when or (when == other_when and self._order < other._order)
        return self._key() < _key_of(other)

    def __le__(self, other: object) -> bool:
        return self._key() <= _key_of(other)

    def __gt__(self, other: object) -> bool:
        return self._key() > _key_of(other)

    def __ge__(self, other: object) -> bool:
        return self._key() >= _key_of(other)


def _key_of(handle: object) -> tuple[float, int]:
    if not isinstance(handle, events.TimerHandle):
        raise TypeError(f"cannot compare a timer with {type(handle).__name__}")
    return (handle.when(), getattr(handle, "_order", 0))


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    """A selector event loop with a virtual clock that starts at 0."""

    def __init__(self, *, deadline: float | None = None, grace: float = 0.05) -> None:
        super().__init__()
        # Timers fall on whole microseconds: one is due when it is less than half of one
        # ahead. asyncio's default (the monotonic clock's 1 ns) is lost in a float past 104
        # virtual days, and a timer due then would never be taken off the heap.
        self._clock_resolution = 0.5 / _US
        self._now_us = 0
        self._now = 0.0  # _now_us in seconds, kept beside it: time() is read on every event
        self._timer_order = 0
        self._deadline_us = None if deadline is None else round(deadline * _US)
        self._grace = grace
        self._threads: weakref.WeakSet[asyncio.Future[Any]] = weakref.WeakSet()
        selector = cast("selectors.BaseSelector", getattr(self, "_selector"))  # noqa: B009
        real_select = selector.select
        # What the selector watches. While that is only the loop's own wake-up pipe and no
        # signal handler reads signals from it, a poll that may not block finds nothing to
        # do: a callback another thread schedules is already queued, and the pipe only
        # wakes a loop that would wait.
        watched = selector.get_map()
        signal_handlers: dict[int, object] = getattr(self, "_signal_handlers", {})

        def select(timeout: float | None = None) -> list[Any]:
            if timeout == 0 and len(watched) == 1 and not signal_handlers:
                return []
            ready = real_select(0)
            if ready or timeout == 0:
                return ready
            if self._threads and any(not f.done() for f in self._threads):
                return real_select(0.001 if timeout is None else min(timeout, 0.001))
            if timeout is None:
                ready = real_select(self._grace)
                if ready:
                    return ready
                raise VirtualDeadlockError(
                    f"virtual deadlock at t={self._now_us / _US:g}s: every task is waiting "
                    "and no timer is pending"
                )
            self._advance(max(1, round(timeout * _US)))
            return []

        selector.select = select  # type: ignore[method-assign]

    def time(self) -> float:
        """Virtual seconds since the loop was created."""
        return self._now

    @property
    def now_us(self) -> int:
        """Virtual microseconds since the loop was created."""
        return self._now_us

    def lift_deadline(self) -> None:
        """Let time run past the deadline (to unwind a run that hit it)."""
        self._deadline_us = None

    def shut_down(self) -> None:
        """Finish async generators and the default executor, as ``asyncio.run`` does.

        Each step runs the loop only when it has something to finish: a run of the loop
        costs more than a short simulated run.
        """
        if getattr(self, "_asyncgens"):  # noqa: B009 - a private set of the base loop
            self.run_until_complete(self.shutdown_asyncgens())
        executor = getattr(self, "_default_executor")  # noqa: B009
        if isinstance(executor, concurrent.futures.ThreadPoolExecutor) and not executor._threads:
            # No worker thread to wait for (an executor that runs work inline, or one never
            # used): shut it down here. asyncio's way starts a thread to join none of them.
            self._executor_shutdown_called = True
            executor.shutdown(wait=True)
        elif executor is not None:
            self.run_until_complete(self.shutdown_default_executor())

    def _advance(self, delta_us: int) -> None:
        target = self._now_us + delta_us
        if self._deadline_us is not None and target > self._deadline_us:
            self._now_us = self._deadline_us
            self._now = self._now_us / _US
            raise VirtualDeadlineError(
                f"virtual time passed the deadline of {self._deadline_us / _US:g}s"
            )
        self._now_us = target
        self._now = target / _US

    def call_at(  # type: ignore[override]
        self,
        when: float,
        callback: Callable[..., object],
        *args: Any,
        context: Context | None = None,
    ) -> events.TimerHandle:
        """Schedule at ``when`` rounded to the microsecond; ties fire first-scheduled first."""
        self._check_closed()  # type: ignore[attr-defined]
        self._timer_order += 1
        if when != _INF:
            when = round(when * _US) / _US
        timer = _FifoTimerHandle(self._timer_order, when, callback, args, self, context)
        heapq.heappush(self._scheduled, timer)  # type: ignore[attr-defined]
        timer._scheduled = True  # type: ignore[attr-defined]
        return timer

    def run_in_executor(  # type: ignore[override]
        self, executor: concurrent.futures.Executor | None, func: Callable[..., Any], *args: Any
    ) -> asyncio.Future[Any]:
        """Track thread work so the clock stands still while it runs.

        The work sees the submitting simulation's wall clock (standing still meanwhile).
        """
        future = super().run_in_executor(executor, carry(func), *args)
        self._threads.add(future)
        return future
