"""Each read of the simulated wall clock gives what the caller's module should see, every time."""

from __future__ import annotations

import asyncio
import datetime
import time
from collections.abc import Callable
from typing import Any

from handoff_sim.simulation import Simulation

UTC = datetime.UTC
START = datetime.datetime(2001, 2, 3, 4, 5, 6, tzinfo=UTC)
REAL_DATETIME = datetime.datetime


def _reader(module_name: object) -> Callable[[], float]:
    """``time.time`` read from code whose module is called ``module_name``."""
    namespace: dict[str, Any] = {"__name__": module_name, "time": time}
    exec("def read():\n    return time.time()\n", namespace)  # a module by any name
    read: Callable[[], float] = namespace["read"]
    return read


def _inside(read: Callable[[], Any], seconds: float = 90) -> Any:
    async def main() -> Any:
        await asyncio.sleep(seconds)
        return [read() for _ in range(3)]

    with Simulation(start=START) as sim:
        return sim.run_coroutine(main())


def test_now_in_utc_inside_a_simulation_is_a_plain_aware_datetime_in_utc() -> None:
    seen = _inside(lambda: datetime.datetime.now(UTC))
    assert seen == [START + datetime.timedelta(seconds=90)] * 3
    assert all(type(value) is REAL_DATETIME and value.tzinfo is UTC for value in seen)


def test_a_module_of_the_real_clock_list_reads_the_real_clock_on_every_read() -> None:
    before = time.clock_gettime(time.CLOCK_REALTIME)
    seen = _inside(_reader("asyncio.made_up_submodule"))
    assert all(value >= before for value in seen)


def test_a_module_by_any_other_name_reads_virtual_time_on_every_read() -> None:
    expected = (START + datetime.timedelta(seconds=90)).timestamp()
    for name in ("asyncio_lookalike", "handoff_user_code", 42, ["not", "hashable"], None):
        assert _inside(_reader(name)) == [expected] * 3, name


def test_the_instant_read_moves_as_soon_as_virtual_time_does() -> None:
    async def main() -> list[datetime.datetime]:
        seen = [datetime.datetime.now(UTC), datetime.datetime.now(UTC)]
        await asyncio.sleep(0.000001)
        seen += [datetime.datetime.now(UTC), datetime.datetime.now()]
        await asyncio.sleep(3600)
        seen.append(datetime.datetime.now(datetime.timezone(datetime.timedelta(hours=2))))
        return seen

    with Simulation(start=START) as sim:
        first, again, moved, naive, later = sim.run_coroutine(main())
    assert first == again == START
    assert moved == START + datetime.timedelta(microseconds=1)
    assert naive == moved.replace(tzinfo=None)
    assert later == START + datetime.timedelta(hours=1, microseconds=1)
    assert later.utcoffset() == datetime.timedelta(hours=2)
