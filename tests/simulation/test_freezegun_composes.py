"""A user's own ``freezegun.freeze_time`` composes with a simulation, as docs/virtual-time.md says.

Around a simulation: the simulation's clock inside, the frozen (or ticking) time again after.
Inside one (a block in a tool, or a decorated tool): the frozen time for the block, the
simulation's clock again after it. After a simulation: freezegun freezes as without one.
"""

from __future__ import annotations

import asyncio
import datetime
import pickle
import sys
import time
import types
from collections.abc import Callable
from typing import Any

import pytest

from handoff_sim import Agent, RunResult, Tool, simulate
from handoff_sim.simulation._simulation import DEFAULT_START
from handoff_sim.testing import ScriptedModel
from tests._helpers import call, turn

freezegun = pytest.importorskip("freezegun", reason="freezegun is in the test extra")
freeze_time = freezegun.freeze_time

UTC = datetime.UTC
FROZEN = datetime.datetime(2010, 1, 1, tzinfo=UTC)
TOOL_AT = DEFAULT_START.timestamp() + 2  # the tool runs after the model's 2 s latency


def real_now() -> float:
    """The real clock, through a function neither freezegun nor the simulation replaces."""
    return time.clock_gettime(time.CLOCK_REALTIME)


def run_tool(tool: Callable[[], Any]) -> RunResult:
    """Simulate an agent that calls ``tool`` once, 2 virtual seconds in, then answers."""
    agent = Agent(
        name="clock",
        model=ScriptedModel([turn(call("read"), latency=2), {"text": "done", "latency": 3}]),
        tools=[Tool("read", tool)],
    )
    return simulate(agent, "go")


def event_times(result: RunResult) -> list[tuple[str, float]]:
    return [(event.type, event.t) for event in result.trace]


def test_a_freeze_around_a_simulation_is_back_after_it_and_not_seen_inside() -> None:
    inside: list[object] = []
    with freeze_time(FROZEN):
        run_tool(lambda: inside.extend([time.time(), datetime.datetime.now()]) or "read")
        after = (time.time(), datetime.datetime.now(), datetime.date.today())
    assert inside == [TOOL_AT, datetime.datetime(2026, 1, 1, 0, 0, 2)]
    assert after == (FROZEN.timestamp(), datetime.datetime(2010, 1, 1), datetime.date(2010, 1, 1))


def test_a_ticking_freeze_around_a_simulation_ticks_on_after_it_and_not_inside() -> None:
    inside: list[float] = []
    with freeze_time(FROZEN, tick=True):
        run_tool(lambda: inside.append(time.time()) or "read")
        after = time.time()
    assert inside == [TOOL_AT]
    assert FROZEN.timestamp() <= after < FROZEN.timestamp() + 3600  # real seconds, ticking


def test_a_freeze_inside_a_tool_holds_for_its_block_then_the_simulation_clock_is_back() -> None:
    seen: list[object] = []

    def tool() -> str:
        seen.append(time.time())
        with freeze_time(FROZEN):
            seen.extend([time.time(), datetime.datetime.now(), datetime.date.today()])
        seen.extend([time.time(), time.monotonic(), datetime.datetime.now(UTC)])
        return "read"

    result = run_tool(tool)
    assert seen == [
        TOOL_AT,
        FROZEN.timestamp(),
        datetime.datetime(2010, 1, 1),
        datetime.date(2010, 1, 1),
        TOOL_AT,
        2.0,
        DEFAULT_START + datetime.timedelta(seconds=2),
    ]
    assert event_times(result) == event_times(run_tool(lambda: "read"))
    assert abs(time.time() - real_now()) < 60, "the real clock is back after the simulation"


def test_a_ticking_freeze_inside_a_simulation_ticks_with_virtual_time() -> None:
    seen: list[float] = []

    async def tool() -> str:
        with freeze_time(FROZEN, tick=True):
            seen.append(time.time() - FROZEN.timestamp())
            await asyncio.sleep(5)
            seen.append(time.time() - FROZEN.timestamp())
        seen.append(time.time())
        return "read"

    run_tool(tool)
    assert seen == [0.0, 5.0, TOOL_AT + 5]


def test_a_tool_decorated_with_freeze_time_sees_the_frozen_time_and_only_it() -> None:
    seen: list[object] = []

    @freeze_time("2000-01-01")
    def frozen_tool() -> str:
        seen.append(datetime.date.today())
        return "read"

    agent = Agent(
        name="clock",
        model=ScriptedModel(
            [turn(call("frozen"), latency=2), turn(call("plain"), latency=1), {"text": "done"}]
        ),
        tools=[Tool("frozen", frozen_tool), Tool("plain", lambda: seen.append(time.time()) or "x")],
    )
    simulate(agent, "go")
    assert seen == [datetime.date(2000, 1, 1), DEFAULT_START.timestamp() + 3]


def test_a_freeze_inside_a_simulation_inside_a_freeze_leaves_the_simulation_clock() -> None:
    seen: list[float] = []

    def tool() -> str:
        with freeze_time("2000-01-01"):
            seen.append(time.time())
        return "read"

    with freeze_time(FROZEN):
        run_tool(tool)
        seen.append(time.time())
    assert seen == [TOOL_AT, FROZEN.timestamp()]


def test_freezegun_after_a_simulation_freezes_names_imported_by_name_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reader = types.ModuleType("freezegun_composes_reader")
    exec("from time import time\nfrom datetime import datetime", reader.__dict__)
    monkeypatch.setitem(sys.modules, reader.__name__, reader)
    run_tool(lambda: "read")
    with freeze_time(FROZEN):
        frozen = (reader.time(), reader.datetime.now(), time.time())
    assert frozen == (FROZEN.timestamp(), datetime.datetime(2010, 1, 1), FROZEN.timestamp())
    assert abs(reader.time() - real_now()) < 60


def test_a_datetime_pickled_inside_a_freeze_inside_a_simulation_reads_back() -> None:
    seen: list[object] = []

    def tool() -> str:
        with freeze_time(FROZEN):
            seen.append(pickle.loads(pickle.dumps(datetime.datetime.now())))
        return "read"

    run_tool(tool)
    assert seen == [datetime.datetime(2010, 1, 1)]
