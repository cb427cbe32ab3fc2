"""The wall clock inside a simulation follows virtual time; outside it is the real clock."""

from __future__ import annotations

import asyncio
import datetime
import importlib
import pickle
import queue
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from freezegun import freeze_time

from handoff_sim import simulate
from handoff_sim.simulation import Simulation
from handoff_sim.simulation._simulation import DEFAULT_START
from tests._helpers import call, turn

UTC = datetime.UTC
START = datetime.datetime(2001, 2, 3, 4, 5, 6, tzinfo=UTC)
BEFORE_ANY_SIMULATION = pickle.dumps(datetime.datetime(2020, 5, 17, 1, 2, 3))

_READER = """
from datetime import date, datetime
from time import monotonic, time


def read():
    return time(), datetime.now(), date.today(), monotonic()
"""


def real_now() -> float:
    """The real clock, through a function no wall-clock patch replaces."""
    return time.clock_gettime(time.CLOCK_REALTIME)


def run_at(seconds: float, read: Callable[[], Any], *, start: datetime.datetime = START) -> Any:
    """``read()`` inside a simulation once ``seconds`` of virtual time have passed."""

    async def main() -> Any:
        await asyncio.sleep(seconds)
        return read()

    with Simulation(start=start) as sim:
        return sim.run_coroutine(main())


@pytest.fixture
def make_module(tmp_path: Path) -> Iterator[Callable[..., ModuleType]]:
    """Write a module (by default one importing ``time``/``datetime`` by name); import it."""
    names: list[str] = []
    sys.path.insert(0, str(tmp_path))

    def make(source: str = _READER) -> ModuleType:
        name = f"wall_clock_reader_{len(names)}"
        (tmp_path / f"{name}.py").write_text(source)
        names.append(name)
        importlib.invalidate_caches()
        return importlib.import_module(name)

    yield make
    sys.path.remove(str(tmp_path))
    for name in names:
        sys.modules.pop(name, None)


def test_v2_every_clock_reading_follows_virtual_time() -> None:
    def read() -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        return {
            "time": time.time(),
            "time_ns": time.time_ns(),
            "now": datetime.datetime.now(),
            "now_utc": datetime.datetime.now(UTC),
            "utcnow": datetime.datetime.utcnow(),
            "today": datetime.date.today(),
            "monotonic": (time.monotonic(), time.perf_counter(), loop.time()),
            "monotonic_ns": (time.monotonic_ns(), time.perf_counter_ns()),
            "struct": (time.gmtime()[:6], time.localtime()[:6]),
            "text": (time.strftime("%Y-%m-%d %H:%M:%S"), time.ctime(), time.asctime()),
            "mktime": time.mktime(time.localtime()),
        }

    seen = run_at(90.5, read)
    moment = START + datetime.timedelta(seconds=90.5)
    assert seen["time"] == moment.timestamp()
    assert seen["time_ns"] == round(moment.timestamp() * 1e6) * 1000
    assert seen["now"] == moment.replace(tzinfo=None)
    assert seen["now_utc"] == moment
    assert seen["utcnow"] == moment.replace(tzinfo=None)
    assert seen["today"] == datetime.date(2001, 2, 3)
    assert seen["monotonic"] == (90.5, 90.5, 90.5)
    assert seen["monotonic_ns"] == (90_500_000_000, 90_500_000_000)
    assert seen["struct"] == ((2001, 2, 3, 4, 6, 36),) * 2
    assert seen["text"] == (
        "2001-02-03 04:06:36",
        "Sat Feb  3 04:06:36 2001",
        "Sat Feb  3 04:06:36 2001",
    )
    assert seen["mktime"] == int(moment.timestamp())


def test_v2_a_time_zone_given_to_now_is_honoured() -> None:
    tokyo = datetime.timezone(datetime.timedelta(hours=9))
    seen = run_at(0, lambda: datetime.datetime.now(tokyo))
    assert seen == START
    assert seen.utcoffset() == datetime.timedelta(hours=9)
    assert seen.hour == 13


def test_v2_a_naive_start_is_read_as_utc() -> None:
    naive = datetime.datetime(2001, 2, 3, 4, 5, 6)
    assert run_at(1, lambda: time.time(), start=naive) == START.timestamp() + 1


def test_v2_values_made_inside_are_plain_datetimes() -> None:
    def read() -> tuple[Any, ...]:
        now = datetime.datetime.now()
        made = datetime.datetime(2020, 5, 17, 1, 2, 3)
        return now, type(now), repr(now), pickle.dumps(made), isinstance(made, datetime.date)

    now, kind, text, pickled, is_date = run_at(1, read)
    assert now == datetime.datetime(2001, 2, 3, 4, 5, 7)
    assert kind is datetime.datetime
    assert text == "datetime.datetime(2001, 2, 3, 4, 5, 7)"
    assert pickled == BEFORE_ANY_SIMULATION
    assert pickle.loads(pickled) == datetime.datetime(2020, 5, 17, 1, 2, 3)
    assert is_date


def test_v2_names_imported_before_inside_and_between_simulations_follow_virtual_time(
    make_module: Callable[[], ModuleType],
) -> None:
    early = make_module()
    inside: list[ModuleType] = []

    def import_and_read() -> tuple[Any, Any]:
        inside.append(make_module())
        return early.read(), inside[0].read()

    first, second = run_at(30, import_and_read)
    between = make_module()
    third = run_at(30, between.read)
    expected = (
        START.timestamp() + 30,
        datetime.datetime(2001, 2, 3, 4, 5, 36),
        datetime.date(2001, 2, 3),
        30.0,
    )
    assert first == second == third == expected


def test_v2_a_pydantic_model_defined_inside_a_simulation_takes_datetimes(
    make_module: Callable[..., ModuleType],
) -> None:
    source = (
        "from datetime import date, datetime\n"
        "from pydantic import BaseModel\n\n\n"
        "class Stamp(BaseModel):\n"
        "    at: datetime\n"
        "    day: date\n"
    )

    def define_and_validate() -> tuple[ModuleType, Any]:
        module = make_module(source)
        return module, module.Stamp(at=datetime.datetime.now(), day=datetime.date.today())

    module, inside = run_at(60, define_and_validate)
    outside = module.Stamp(at="2020-01-01T00:00:00", day="2020-01-02")
    assert (inside.at, inside.day) == (datetime.datetime(2001, 2, 3, 4, 6, 6), START.date())
    assert (outside.at, outside.day) == (datetime.datetime(2020, 1, 1), datetime.date(2020, 1, 2))


def test_v2_outside_a_simulation_every_reading_is_real(
    make_module: Callable[[], ModuleType],
) -> None:
    early = make_module()
    run_at(30, early.read)
    inside = run_at(30, make_module)
    stamp, now, today, _ = early.read()
    late_stamp = inside.read()[0]
    for value in (stamp, late_stamp, time.time(), datetime.datetime.now(UTC).timestamp()):
        assert abs(value - real_now()) < 60
    assert abs(now - datetime.datetime.now()) < datetime.timedelta(seconds=60)
    assert today == datetime.date.today()
    assert type(datetime.datetime.now()) is datetime.datetime
    assert pickle.dumps(datetime.datetime(2020, 5, 17, 1, 2, 3)) == BEFORE_ANY_SIMULATION


def test_v2_a_second_turn_continues_the_same_wall_clock() -> None:
    async def later(seconds: float) -> float:
        await asyncio.sleep(seconds)
        return time.time()

    with Simulation(start=START) as sim:
        first = sim.run_coroutine(later(10))
        outside = time.time()
        second = sim.run_coroutine(later(5))
    assert (first, second) == (START.timestamp() + 10, START.timestamp() + 15)
    assert abs(outside - real_now()) < 60


def test_v2_thread_work_sees_the_clock_standing_still() -> None:
    async def main() -> tuple[float, float, float]:
        await asyncio.sleep(7)
        loop = asyncio.get_running_loop()
        by_executor = await loop.run_in_executor(None, time.time)
        by_to_thread = await asyncio.to_thread(time.time)
        return by_executor, by_to_thread, time.time()

    with Simulation(start=START) as sim:
        seen = sim.run_coroutine(main())
    assert seen == (START.timestamp() + 7,) * 3


def test_v2_a_thread_started_by_hand_keeps_the_real_clock() -> None:
    seen: list[float] = []

    def read_in_a_thread() -> float:
        worker = threading.Thread(target=lambda: seen.append(time.time()))
        worker.start()
        worker.join(timeout=10)
        return time.time()

    inside = run_at(5, read_in_a_thread)
    assert inside == START.timestamp() + 5
    assert abs(seen[0] - real_now()) < 60


def test_v2_standard_library_timeouts_still_expire_inside_a_simulation() -> None:
    def wait_on_an_empty_queue() -> str:
        try:
            queue.Queue[int]().get(timeout=0.001)
        except queue.Empty:
            return "timed out"
        return "unreachable"

    outcome: list[str] = []
    runner = threading.Thread(target=lambda: outcome.append(run_at(1, wait_on_an_empty_queue)))
    runner.start()
    runner.join(timeout=30)
    assert outcome == ["timed out"], "a queue timeout under simulation never expired"


def test_v2_a_freezegun_freeze_around_a_simulation_comes_back_after_it() -> None:
    frozen = datetime.datetime(2010, 1, 1, tzinfo=UTC)
    with freeze_time(frozen):
        inside = run_at(3, lambda: time.time())
        after = time.time()
    assert inside == START.timestamp() + 3
    assert after == frozen.timestamp()


def test_v2_freezegun_still_freezes_names_imported_before_a_simulation(
    make_module: Callable[[], ModuleType],
) -> None:
    early = make_module()
    run_at(3, early.read)
    frozen = datetime.datetime(2010, 1, 1, tzinfo=UTC)
    with freeze_time(frozen):
        assert early.read()[:3] == (
            frozen.timestamp(),
            datetime.datetime(2010, 1, 1),
            datetime.date(2010, 1, 1),
        )


def test_v2_default_start_is_the_first_of_january_2026() -> None:
    agent_seen: list[float] = []

    def read_clock() -> str:
        agent_seen.append(time.time())
        return "read"

    from handoff_sim import Agent, Tool
    from handoff_sim.testing import ScriptedModel

    agent = Agent(
        name="clock",
        model=ScriptedModel([turn(call("read_clock"), latency=2), {"text": "done"}]),
        tools=[Tool("read_clock", read_clock)],
    )
    simulate(agent, "go")
    assert agent_seen == [DEFAULT_START.timestamp() + 2]
