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
from collections.abc import Callable
from contextvars import Context
from typing import Any, cast

from handoff_sim.errors import VirtualDeadlineError, VirtualDeadlockError
from handoff_sim.simulation._wallclock import carry

__all__ = ["VirtualTimeLoop"]

_US = 1_000_000


class _FifoTimerHandle(events.TimerHandle):
    """A timer handle that breaks deadline ties by scheduling order."""

    __slots__ = ("_order",)

    def __init__(self, order: int, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._order = order

    def _key(self) -> tuple[float, int]:
        return (self.when(), self._order)

    def __lt__(self, other: object) -> bool:
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
        self._now_us = 0
        self._timer_order = 0
        self._deadline_us = None if deadline is None else round(deadline * _US)
        self._grace = grace
        self._threads: weakref.WeakSet[asyncio.Future[Any]] = weakref.WeakSet()
        selector = cast("selectors.BaseSelector", getattr(self, "_selector"))  # noqa: B009
        real_select = selector.select

        def select(timeout: float | None = None) -> list[Any]:
            ready = real_select(0)
            if ready or timeout == 0:
                return ready
            if any(not f.done() for f in self._threads):
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
        return self._now_us / _US

    @property
    def now_us(self) -> int:
        """Virtual microseconds since the loop was created."""
        return self._now_us

    def lift_deadline(self) -> None:
        """Let time run past the deadline (to unwind a run that hit it)."""
        self._deadline_us = None

    def _advance(self, delta_us: int) -> None:
        target = self._now_us + delta_us
        if self._deadline_us is not None and target > self._deadline_us:
            self._now_us = self._deadline_us
            raise VirtualDeadlineError(
                f"virtual time passed the deadline of {self._deadline_us / _US:g}s"
            )
        self._now_us = target

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
        when = round(when * _US) / _US if when != float("inf") else when
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
