"""A real Ctrl-C (SIGINT through the default handler) during a simulation unwinds cleanly.

The signal reaches the event loop wherever it is: in its own code between callbacks,
in a task the user created, or while it waits for thread work. Whatever the spot,
every open start gets its end (``cancelled``), every task is cancelled and awaited,
and then the ``KeyboardInterrupt`` propagates.
"""

from __future__ import annotations

import asyncio
import datetime
import gc
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from typing import Any

import pytest

from handoff_sim import Agent, HandoffPolicy, SubAgent, Tool
from handoff_sim.testing import ScriptedModel
from tests._helpers import call, delegate, leaf, parent_of, turn
from tests.hostile._support import HostileOutcome, run_hostile

START = datetime.datetime(2001, 2, 3, tzinfo=datetime.UTC)
DEEP = HandoffPolicy(max_depth=4)


def _sigint() -> None:
    os.kill(os.getpid(), signal.SIGINT)


@pytest.fixture(autouse=True)
def default_sigint_handler() -> Iterator[None]:
    """Python's own SIGINT handler (raise KeyboardInterrupt), whatever the runner set."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.fixture
def asyncio_errors(caplog: pytest.LogCaptureFixture) -> Callable[[], list[str]]:
    """What asyncio logged as an error (a task destroyed pending, an exception unread)."""
    caplog.set_level(logging.ERROR, logger="asyncio")

    def errors() -> list[str]:
        gc.collect()
        return [r.getMessage() for r in caplog.records if r.name == "asyncio"]

    return errors


def _tree(interrupt: Callable[[], Coroutine[Any, Any, str]]) -> Agent:
    """top -> (mid -> inner [runs ``interrupt``]) in parallel with a slow sibling."""
    inner = Agent(
        name="inner",
        model=ScriptedModel([turn(call("interrupt")), {"text": "inner-done"}]),
        tools=[Tool("interrupt", interrupt)],
    )
    slow = leaf("slow", {"text": "slow-done", "latency": 50})
    mid = parent_of(
        [SubAgent("inner", agent=inner)], turn(delegate("subagent_inner")), name="mid", policy=DEEP
    )
    return parent_of(
        [SubAgent("mid", agent=mid), SubAgent("slow", agent=slow)],
        turn(delegate("subagent_mid"), delegate("subagent_slow")),
        name="top",
        policy=DEEP,
        parallel_tool_calls=True,
    )


def _interrupted(interrupt: Callable[[], Coroutine[Any, Any, str]]) -> HostileOutcome:
    outcome = run_hostile(_tree(interrupt), expect=KeyboardInterrupt, start=START)
    handoffs = outcome.trace.handoffs()
    assert {h.subagent for h in handoffs} == {"mid", "inner", "slow"}
    assert [h.status for h in handoffs] == ["cancelled"] * 3
    return outcome


def test_i3_sigint_from_a_timer_ends_every_open_start_cancelled(
    asyncio_errors: Callable[[], list[str]],
) -> None:
    async def interrupt() -> str:
        asyncio.get_running_loop().call_later(1, _sigint)
        await asyncio.sleep(10)
        return "unreachable"

    outcome = _interrupted(interrupt)
    assert {e.t for e in outcome.trace if e.type.endswith("_end")} == {1.0}
    assert asyncio_errors() == []


def test_i3_sigint_raised_by_a_loop_callback_ends_every_open_start(
    asyncio_errors: Callable[[], list[str]],
) -> None:
    async def interrupt() -> str:
        asyncio.get_running_loop().call_soon(signal.raise_signal, signal.SIGINT)
        await asyncio.sleep(10)
        return "unreachable"

    _interrupted(interrupt)
    assert asyncio_errors() == []


def test_i3_sigint_inside_a_task_the_tool_created_ends_every_open_start(
    asyncio_errors: Callable[[], list[str]],
) -> None:
    async def interrupt() -> str:
        async def helper() -> None:
            await asyncio.sleep(1)
            signal.raise_signal(signal.SIGINT)

        await asyncio.create_task(helper())
        await asyncio.sleep(10)
        return "unreachable"

    _interrupted(interrupt)
    assert asyncio_errors() == []


def test_i3_sigint_while_the_loop_waits_for_thread_work_ends_every_open_start(
    asyncio_errors: Callable[[], list[str]],
) -> None:
    def sigint_once(ready: threading.Event) -> None:
        ready.wait(timeout=30)
        _sigint()

    async def interrupt() -> str:
        await asyncio.sleep(1)  # every other task is asleep now: only the loop runs
        loop = asyncio.get_running_loop()
        ready = threading.Event()
        work = loop.run_in_executor(None, sigint_once, ready)
        loop.call_soon(ready.set)  # the signal comes once this tool is waiting
        await work
        await asyncio.sleep(10)
        return "unreachable"

    _interrupted(interrupt)
    assert asyncio_errors() == []


def test_i3_system_exit_from_a_loop_callback_unwinds_the_same_way(
    asyncio_errors: Callable[[], list[str]],
) -> None:
    async def interrupt() -> str:
        asyncio.get_running_loop().call_soon(sys.exit, 3)
        await asyncio.sleep(10)
        return "unreachable"

    outcome = run_hostile(_tree(interrupt), expect=SystemExit)
    assert isinstance(outcome.error, SystemExit)
    assert outcome.error.code == 3
    assert [h.status for h in outcome.trace.handoffs()] == ["cancelled"] * 3
    assert asyncio_errors() == []


def test_i3_clean_up_after_sigint_still_reads_the_virtual_wall_clock() -> None:
    seen: list[float] = []

    async def interrupt() -> str:
        asyncio.get_running_loop().call_later(2, _sigint)
        try:
            await asyncio.sleep(10)
        finally:
            seen.append(time.time())
        return "unreachable"

    _interrupted(interrupt)
    assert seen == [START.timestamp() + 2]
    assert abs(time.time() - time.clock_gettime(time.CLOCK_REALTIME)) < 60
