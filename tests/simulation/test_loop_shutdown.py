"""Shutting the virtual-time loop down: a default executor with no thread is closed in place."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from typing import Any

import pytest

from handoff_sim.simulation import VirtualTimeLoop


class _InlineExecutor(concurrent.futures.ThreadPoolExecutor):
    """Runs submitted work at once on the caller's thread (as the adapters' executor does)."""

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> concurrent.futures.Future[Any]:
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        future.set_result(fn(*args, **kwargs))
        return future


def _started_threads(monkeypatch: pytest.MonkeyPatch) -> list[threading.Thread]:
    started: list[threading.Thread] = []
    real_start = threading.Thread.start

    def start(self: threading.Thread) -> None:
        started.append(self)
        real_start(self)

    monkeypatch.setattr(threading.Thread, "start", start)
    return started


def test_shut_down_starts_no_thread_for_a_default_executor_that_never_started_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    loop = VirtualTimeLoop()
    executor = _InlineExecutor()
    loop.set_default_executor(executor)
    try:
        assert loop.run_until_complete(loop.run_in_executor(None, lambda: 6 * 7)) == 42
        started = _started_threads(monkeypatch)
        loop.shut_down()
        assert started == []
        with pytest.raises(RuntimeError, match="shutdown"):
            loop.run_until_complete(loop.run_in_executor(None, print))
    finally:
        loop.close()


def test_shut_down_still_waits_for_the_threads_of_a_thread_pool_that_ran_work() -> None:
    loop = VirtualTimeLoop()
    executor = concurrent.futures.ThreadPoolExecutor(max_workers=1)
    loop.set_default_executor(executor)
    release = threading.Event()
    try:

        async def main() -> str:
            work = loop.run_in_executor(None, lambda: release.wait(5) and "done")
            await asyncio.sleep(0)
            release.set()
            return await work

        assert loop.run_until_complete(main()) == "done"
        workers = list(executor._threads)
        assert workers, "the pool ran its work on a thread of its own"
        loop.shut_down()
        assert not any(worker.is_alive() for worker in workers)
        with pytest.raises(RuntimeError, match="shutdown"):
            loop.run_until_complete(loop.run_in_executor(None, print))
    finally:
        loop.close()
