"""Simulations in several threads at once: each sees its own clock, the rest the real one.

Eight threads run ``simulate()`` concurrently. A barrier holds every simulation
inside a tool at the same moment, so the eight wall clocks overlap for certain;
meanwhile the main thread, which runs no simulation, reads the real clock.
"""

from __future__ import annotations

import datetime
import threading
import time
from collections.abc import Callable
from typing import Any

from handoff_sim import Agent, Tool
from handoff_sim.simulation import Simulation
from handoff_sim.testing import ScriptedModel
from tests._helpers import call, turn

THREADS = 8
UTC = datetime.UTC
START = datetime.datetime(2001, 2, 3, tzinfo=UTC)


def real_now() -> float:
    """The real clock, through a function no wall-clock patch replaces."""
    return time.clock_gettime(time.CLOCK_REALTIME)


def is_real(stamp: float) -> bool:
    return abs(stamp - real_now()) < 60


def clock_agent(read: Callable[[], str], latency: float) -> Agent:
    """An agent that waits ``latency`` virtual seconds, then calls ``read`` as a tool."""
    return Agent(
        name="clock",
        model=ScriptedModel([turn(call("read"), latency=latency), {"text": "done"}]),
        tools=[Tool("read", read)],
    )


def reader(into: list[float]) -> Callable[[], str]:
    """A tool body that records ``time.time()`` and ``datetime.now(UTC)`` as seen."""

    def read() -> str:
        into.append(time.time())
        into.append(datetime.datetime.now(UTC).timestamp())
        return "read"

    return read


def run_threads(targets: list[Callable[[], None]]) -> list[BaseException]:
    """Run each target in a thread of its own; return what they raised (joins time out)."""
    errors: list[BaseException] = []

    def guarded(target: Callable[[], None]) -> None:
        try:
            target()
        except BaseException as exc:  # reported to the test below
            errors.append(exc)

    threads = [threading.Thread(target=guarded, args=(t,)) for t in targets]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a simulation thread hung"
    return errors


def test_i10_eight_threads_simulate_at_once_each_on_its_own_clock() -> None:
    inside = threading.Barrier(THREADS + 1, timeout=30)
    seen: dict[int, tuple[Any, ...]] = {}
    outside: list[tuple[float, datetime.datetime]] = []

    def simulation(i: int) -> Callable[[], None]:
        start = START + datetime.timedelta(days=i)

        def read() -> str:
            before = (time.time(), datetime.datetime.now(UTC))
            inside.wait()  # all eight simulations are in a tool now
            inside.wait()  # the main thread has read its clock
            seen[i] = (*before, time.time(), datetime.datetime.now(UTC), time.monotonic())
            return "read"

        def run() -> None:
            with Simulation(start=start, seed=i) as sim:
                sim.run(clock_agent(read, latency=i + 1), "go")

        return run

    def main_thread_reads_while_all_simulate() -> None:
        inside.wait()
        outside.append((time.time(), datetime.datetime.now(UTC)))
        inside.wait()

    watcher = threading.Thread(target=main_thread_reads_while_all_simulate)
    watcher.start()
    errors = run_threads([simulation(i) for i in range(THREADS)])
    watcher.join(timeout=60)
    assert errors == []
    for i in range(THREADS):
        moment = START + datetime.timedelta(days=i, seconds=i + 1)
        assert seen[i] == (moment.timestamp(), moment, moment.timestamp(), moment, i + 1.0)
    [(stamp, now)] = outside
    assert is_real(stamp)
    assert is_real(now.timestamp())


def test_i10_simulations_starting_and_ending_in_many_threads_never_disturb_each_other() -> None:
    rounds = 25
    wrong: list[str] = []
    done = threading.Event()

    def simulations(i: int) -> Callable[[], None]:
        def run() -> None:
            for r in range(rounds):
                latency = 1 + (i * rounds + r) % 7
                moment = START + datetime.timedelta(seconds=latency)
                got: list[float] = []
                with Simulation(start=START) as sim:
                    sim.run(clock_agent(reader(got), latency), "go")
                if got != [moment.timestamp()] * 2:
                    wrong.append(f"thread {i} round {r}: {got}")

        return run

    def real_clock_meanwhile() -> None:
        while not done.is_set():
            if not (is_real(time.time()) and is_real(datetime.datetime.now().timestamp())):
                wrong.append("a thread outside any simulation saw a simulated clock")
                return

    watcher = threading.Thread(target=real_clock_meanwhile)
    watcher.start()
    try:
        errors = run_threads([simulations(i) for i in range(THREADS)])
    finally:
        done.set()
        watcher.join(timeout=60)
    assert errors == []
    assert wrong == []
    assert is_real(time.time())
    assert type(datetime.datetime.now()) is datetime.datetime
