"""The one replay a freshly written recording gets: for the ``elapsed`` and the error it expects.

Both recorders (ours and the frameworks') replay the file they wrote once, in virtual
time, and may be inside a running event loop when they do (a ``record`` block in an
``async def`` test).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import TypeVar

from handoff_sim import Trace
from handoff_sim.errors import VirtualDeadlineError
from handoff_sim.recording._expect import elapsed_of, top_level_runs

__all__ = ["deadline_reached", "off_the_running_loop"]

T = TypeVar("T")


def deadline_reached(error: BaseException | None, elapsed_ms: float, trace: Trace) -> str | None:
    """``VirtualDeadlineError`` when the file's replay passed the simulation's deadline at the
    virtual time the recorded run ended unfinished: the recorded run ended at that deadline
    too (its trace shows the run cut off, not why), so the file expects that error."""
    if not isinstance(error, VirtualDeadlineError):
        return None
    runs = top_level_runs(trace)
    last = runs[-1][1] if runs else None
    if last is None or last.status == "completed" or last.error:
        return None
    if round(elapsed_of(trace), 3) != round(elapsed_ms / 1000, 3):
        return None
    return type(error).__name__


def off_the_running_loop(work: Callable[[], T]) -> T:
    """``work()``, in a thread of its own when this thread runs an event loop (a ``record``
    block inside ``async def``): a simulation cannot start inside a running loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return work()
    done: list[T] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            done.append(work())
        except BaseException as exc:  # handed back to the caller's thread below
            failed.append(exc)

    worker = threading.Thread(target=run, name="handoff-sim-replay")
    worker.start()
    worker.join()
    if failed:
        raise failed[0]
    return done[0]
