"""V1–V3: latency and timeouts in virtual time, deadlock detection, FIFO ties, frozen wall clock."""

from __future__ import annotations

import asyncio
import random
import signal
import socket
import threading
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest

from handoff_sim import Agent, HandoffPolicy, SubAgent, Tool, simulate
from handoff_sim.errors import RunError, VirtualDeadlineError, VirtualDeadlockError
from handoff_sim.events import HandoffAttemptEndEvent, HandoffAttemptStartEvent
from handoff_sim.messages import ModelRequest
from handoff_sim.simulation import Simulation, VirtualTimeLoop
from handoff_sim.simulation._simulation import DEFAULT_START
from handoff_sim.testing import FunctionModel, ScriptedModel
from tests._helpers import call, delegate, leaf, parent_of, turn

HOUR = 3600


async def _never(request: ModelRequest) -> str:
    await asyncio.Event().wait()
    return "unreachable"


# --- V1: virtual latency --------------------------------------------------------------------


def test_v1_hours_of_model_latency_pass_in_virtual_time() -> None:
    child = leaf("child", {"text": "ok", "latency": 5 * HOUR})
    parent = parent_of(
        [SubAgent("child", agent=child)],
        turn(delegate("subagent_child"), latency="1m"),
        {"text": "done", "latency": 2 * HOUR},
        final=None,
    )
    result = simulate(parent, "go")
    assert result.elapsed_ms == (60 + 7 * HOUR) * 1000
    assert result.trace.handoffs()[0].duration_ms == 5 * HOUR * 1000


def test_v1_tool_sleeps_are_virtual_too() -> None:
    async def nap() -> str:
        await asyncio.sleep(24 * HOUR)
        return "rested"

    agent = Agent(
        name="sleeper",
        model=ScriptedModel([turn(call("nap")), {"text": "done"}]),
        tools=[Tool("nap", nap)],
    )
    assert simulate(agent, "go").elapsed_ms == 24 * HOUR * 1000


def test_v1_virtual_clock_starts_at_zero_and_moves_only_by_timers() -> None:
    loop = VirtualTimeLoop()
    try:

        async def main() -> list[float]:
            seen = [loop.time()]
            await asyncio.sleep(0)
            seen.append(loop.time())
            await asyncio.sleep(2.5)
            seen.append(loop.time())
            return seen

        assert loop.run_until_complete(main()) == [0.0, 0.0, 2.5]
    finally:
        loop.close()


def test_v1_a_deadlock_raises_instead_of_hanging() -> None:
    agent = Agent(name="stuck", model=FunctionModel(_never))
    with pytest.raises(VirtualDeadlockError, match="virtual deadlock at t=0s"):
        simulate(agent, "go")


def test_v1_a_deadlock_inside_a_handoff_without_timeout_raises() -> None:
    child = Agent(name="stuck", model=FunctionModel(_never))
    parent = parent_of(
        [SubAgent("stuck", agent=child)], turn(delegate("subagent_stuck"), latency=7)
    )
    with pytest.raises(VirtualDeadlockError, match="t=7s"):
        simulate(parent, "go")


def test_v1_a_bare_loop_detects_a_deadlock() -> None:
    loop = VirtualTimeLoop()
    try:
        with pytest.raises(VirtualDeadlockError):
            loop.run_until_complete(loop.create_future())
    finally:
        loop.close()


def test_v1_virtual_time_past_the_deadline_raises() -> None:
    agent = Agent(name="slow", model=ScriptedModel([{"text": "late", "latency": 1000}]))
    with pytest.raises(VirtualDeadlineError, match="deadline of 100s"):
        simulate(agent, "go", deadline=100)


def test_v1_thread_work_does_not_advance_the_virtual_clock() -> None:
    with Simulation() as sim:

        async def main() -> tuple[int, float]:
            loop = asyncio.get_running_loop()
            value = await loop.run_in_executor(None, sum, [1, 2, 3])
            return value, loop.time()

        assert sim.run_coroutine(main()) == (6, 0.0)


def test_v1_a_callback_from_another_thread_wakes_a_waiting_loop() -> None:
    loop = VirtualTimeLoop(grace=60)  # far longer than the thread needs: it is the one waking
    try:
        future: asyncio.Future[int] = loop.create_future()
        worker = threading.Thread(target=loop.call_soon_threadsafe, args=(future.set_result, 42))

        async def main() -> tuple[int, float]:
            worker.start()
            return await future, loop.time()

        assert loop.run_until_complete(main()) == (42, 0.0)
        worker.join()
    finally:
        loop.close()


def test_v1_a_callback_from_another_thread_runs_in_order_while_the_loop_is_busy() -> None:
    order: list[str] = []

    async def main() -> list[str]:
        loop = asyncio.get_running_loop()
        worker = threading.Thread(target=loop.call_soon_threadsafe, args=(order.append, "thread"))
        worker.start()
        worker.join()  # queued now, while the loop has other work ready
        order.append("before")
        await asyncio.sleep(0)
        order.append("after")
        return order

    with Simulation() as sim:
        assert sim.run_coroutine(main()) == ["before", "thread", "after"]


def test_v1_a_ready_socket_is_served_while_the_loop_is_busy() -> None:
    seen: list[bytes] = []
    ours, theirs = socket.socketpair()

    async def main() -> int:
        loop = asyncio.get_running_loop()
        ours.setblocking(False)
        loop.add_reader(ours, lambda: seen.append(ours.recv(16)))
        theirs.send(b"ping")
        try:
            for spins in range(20):  # never idle: there is always a task ready to run
                if seen:
                    return spins
                await asyncio.sleep(0)
            return -1
        finally:
            loop.remove_reader(ours)

    try:
        with Simulation() as sim:
            assert sim.run_coroutine(main()) > 0
    finally:
        ours.close()
        theirs.close()
    assert seen == [b"ping"]


@pytest.mark.skipif(not hasattr(signal, "SIGUSR1"), reason="needs POSIX signals")
def test_v1_a_signal_handler_runs_while_the_loop_is_busy() -> None:
    seen: list[str] = []
    previous = signal.getsignal(signal.SIGUSR1)

    async def main() -> int:
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGUSR1, seen.append, "signal")
        signal.raise_signal(signal.SIGUSR1)
        for spins in range(20):  # never idle: there is always a task ready to run
            if seen:
                return spins
            await asyncio.sleep(0)
        return -1

    try:
        with Simulation() as sim:
            assert sim.run_coroutine(main()) > 0
    finally:
        signal.signal(signal.SIGUSR1, previous)
    assert seen == ["signal"]


# --- V2: one clock for asyncio and the wall clock -------------------------------------------


def test_v2_timers_due_at_the_same_instant_fire_in_scheduling_order() -> None:
    loop = VirtualTimeLoop()
    fired: list[str] = []
    try:
        for name in ("a", "b", "c", "d"):
            loop.call_later(5, fired.append, name)
        loop.call_at(5.0, fired.append, "e")
        loop.call_later(1, fired.append, "early")
        loop.call_later(5, loop.stop)
        loop.run_forever()
    finally:
        loop.close()
    assert fired == ["early", "a", "b", "c", "d", "e"]


def test_v2_many_timers_fire_by_due_time_then_scheduling_order() -> None:
    rng = random.Random(11)
    dues = [rng.choice((0.5, 1.0, 1.0000001, 2.0, 3.25)) for _ in range(300)]
    loop = VirtualTimeLoop()
    fired: list[tuple[float, int]] = []
    try:
        handles = [
            loop.call_at(due, lambda i=i: fired.append((loop.time(), i)))
            for i, due in enumerate(dues)
        ]
        for i in range(0, 300, 7):  # cancelled ones never fire, and leave the others in order
            handles[i].cancel()
        loop.call_at(4, loop.stop)
        loop.run_forever()
    finally:
        loop.close()
    expected = sorted((round(due, 6), i) for i, due in enumerate(dues) if i % 7)
    assert fired == expected


def test_v2_sleeping_tasks_due_together_resume_in_the_order_they_slept() -> None:
    order: list[int] = []

    async def sleeper(i: int) -> None:
        await asyncio.sleep(3)
        order.append(i)

    async def main() -> float:
        async with asyncio.TaskGroup() as group:
            for i in (4, 1, 3, 0, 2):
                group.create_task(sleeper(i))
        return asyncio.get_running_loop().time()

    with Simulation() as sim:
        assert sim.run_coroutine(main()) == 3.0
    assert order == [4, 1, 3, 0, 2]


def test_v2_asyncio_timeout_uses_the_virtual_clock() -> None:
    async def main() -> float:
        loop = asyncio.get_running_loop()
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(12.5):
                await asyncio.sleep(1_000)
        return loop.time()

    with Simulation() as sim:
        assert sim.run_coroutine(main()) == 12.5


def _clock_agent(seen: list[tuple[float, datetime, datetime]], latency: float) -> Agent:
    def read_clock() -> str:
        seen.append((time.time(), datetime.now(UTC), datetime.now()))
        return "read"

    return Agent(
        name="clock",
        model=ScriptedModel([turn(call("read_clock"), latency=latency), {"text": "done"}]),
        tools=[Tool("read_clock", read_clock)],
    )


def test_v2_time_and_datetime_in_a_tool_follow_virtual_time() -> None:
    seen: list[tuple[float, datetime, datetime]] = []
    simulate(_clock_agent(seen, latency=90), "go")
    [(stamp, aware, naive)] = seen
    expected = DEFAULT_START + timedelta(seconds=90)
    assert stamp == expected.timestamp()
    assert aware == expected
    assert naive == expected.replace(tzinfo=None)


def test_v2_simulation_start_moment_is_configurable() -> None:
    seen: list[tuple[float, datetime, datetime]] = []
    start = datetime(2030, 6, 1, 12, 0, tzinfo=UTC)
    with Simulation(start=start) as sim:
        sim.run(_clock_agent(seen, latency=1.5), "go")
    assert seen[0][1] == start + timedelta(seconds=1.5)


def test_v2_wall_clock_can_be_left_alone() -> None:
    seen: list[tuple[float, datetime, datetime]] = []
    simulate(_clock_agent(seen, latency=90), "go", wall_clock=False)
    assert seen[0][1] != DEFAULT_START + timedelta(seconds=90)


def test_v2_multi_turn_simulation_shares_one_clock() -> None:
    agent = Agent(
        name="a",
        model=ScriptedModel([{"text": "one", "latency": 10}, {"text": "two", "latency": 5}]),
    )
    with Simulation() as sim:
        first = sim.run(agent, "hello")
        second = sim.run(agent, "again", session=first.session_id)
        assert sim.now == 15.0
        assert [e.t for e in sim.trace if e.type == "run_end"] == [10.0, 15.0]
    assert (first.elapsed_ms, second.elapsed_ms) == (10_000, 5_000)


# --- V3: exact timeouts ---------------------------------------------------------------------


def test_v3_timeout_30_with_two_retries_against_a_silent_child_takes_exactly_90_s() -> None:
    child = Agent(name="silent", model=FunctionModel(_never))
    parent = parent_of(
        [SubAgent("silent", agent=child)],
        turn(delegate("subagent_silent")),
        policy=HandoffPolicy(timeout=30, max_retries=2),
    )
    result = simulate(parent, "go")
    [record] = result.trace.handoffs()
    assert (record.attempts, record.reason, record.status) == (3, "timeout", "failed")
    assert record.duration_ms == 90_000
    assert (record.started_at, record.ended_at) == (0.0, 90.0)
    assert result.elapsed_ms == 90_000
    starts = [e.t for e in result.trace if isinstance(e, HandoffAttemptStartEvent)]
    durations = [e.duration_ms for e in result.trace if isinstance(e, HandoffAttemptEndEvent)]
    assert starts == [0.0, 30.0, 60.0]
    assert durations == [30_000, 30_000, 30_000]


def test_v3_durations_are_exact_for_fractional_latencies() -> None:
    child = leaf("child", {"text": "ok", "latency": "333ms"})
    parent = parent_of([SubAgent("child", agent=child)], turn(delegate("subagent_child")))
    [record] = simulate(parent, "go").trace.handoffs()
    assert record.duration_ms == 333.0


def test_v3_completion_exactly_at_the_timeout_counts_as_a_timeout() -> None:
    child = leaf("child", {"text": "just-in-time", "latency": 5})
    parent = parent_of(
        [SubAgent("child", agent=child)],
        turn(delegate("subagent_child")),
        policy=HandoffPolicy(timeout=5),
    )
    [record] = simulate(parent, "go").trace.handoffs()
    assert (record.status, record.reason, record.duration_ms) == ("failed", "timeout", 5000)


def test_v3_completion_one_microsecond_before_the_timeout_completes() -> None:
    child = leaf("child", {"text": "in-time", "latency": 4.999999})
    parent = parent_of(
        [SubAgent("child", agent=child)],
        turn(delegate("subagent_child")),
        policy=HandoffPolicy(timeout=5),
    )
    [record] = simulate(parent, "go").trace.handoffs()
    assert (record.status, record.output) == ("completed", "in-time")


# --- closing a Simulation -------------------------------------------------------------------


def test_closing_a_simulation_finalises_an_async_generator_left_open() -> None:
    finalised: list[float] = []

    async def ticks() -> AsyncIterator[int]:
        try:
            for i in range(10):
                await asyncio.sleep(1)
                yield i
        finally:
            finalised.append(asyncio.get_running_loop().time())

    generator = ticks()

    async def main() -> int:
        return await anext(generator)

    with Simulation() as sim:
        assert sim.run_coroutine(main()) == 0
        assert finalised == []
    assert finalised == [1.0]


def test_closing_a_simulation_waits_for_its_executor_threads_to_end() -> None:
    workers: list[threading.Thread] = []

    async def main() -> None:
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, lambda: workers.append(threading.current_thread()))

    with Simulation() as sim:
        sim.run_coroutine(main())
        assert workers[0].is_alive()
    assert not workers[0].is_alive()


def test_a_simulation_with_nothing_left_to_finish_closes_cleanly() -> None:
    sim = Simulation()
    sim.run(leaf("quiet", {"text": "ok"}), "go")
    sim.close()
    sim.close()  # closing twice is harmless
    with pytest.raises(RunError, match="this Simulation is closed"):
        sim.run(leaf("quiet", {"text": "ok"}), "go")
