"""Timers due late in virtual time: a latency of most of a virtual year still answers.

asyncio takes a timer off its heap when it is due within the clock's resolution; with the
monotonic clock's 1 ns, a float time past 104 virtual days cannot hold the difference,
so a timer due then stayed on the heap and the loop spun forever at that instant. Each
case runs in a thread under an outer limit, which fails it if the loop never gets there
(under the old code none of them ended).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import msgspec
import pytest

from handoff_sim import ModelRequest
from handoff_sim.messages import Message
from handoff_sim.recording import ReplayModel, fingerprint
from handoff_sim.simulation import Simulation
from handoff_sim.testing import ScriptedModel

OUTER_LIMIT = 60.0  # seconds of wall time for a case the old code never ended
DAY = 24 * 3600
REQUEST = ModelRequest(agent="a", model="m", messages=[Message(role="user", content="hi")])


def _within_the_outer_limit(work: Callable[[], Any]) -> Any:
    """``work()`` in a thread of its own; a failure if it has not ended in the limit."""
    done: list[Any] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            done.append(work())
        except BaseException as exc:  # handed to the test below
            failed.append(exc)

    worker = threading.Thread(target=run, name="far-virtual-timer", daemon=True)
    worker.start()
    worker.join(OUTER_LIMIT)
    assert not worker.is_alive(), f"the simulation did not end in {OUTER_LIMIT:g}s of wall time"
    if failed:
        raise failed[0]
    return done[0]


def _answered_at(model: Any) -> tuple[str | None, float]:
    with Simulation(deadline=None) as sim:
        response = sim.run_coroutine(model.complete(REQUEST))
        return response.text, sim.now


@pytest.mark.parametrize("days", [105, 200, 364])
def test_a_plain_sleep_of_months_of_virtual_time_ends(days: int) -> None:
    async def sleeping() -> float:
        await asyncio.sleep(days * DAY)
        return asyncio.get_running_loop().time()

    def simulated() -> float:
        with Simulation(deadline=None) as sim:
            woke: float = sim.run_coroutine(sleeping())
            return woke

    assert _within_the_outer_limit(simulated) == days * DAY


def test_a_recorded_step_of_300_virtual_days_answers_after_its_latency() -> None:
    asked = msgspec.to_builtins(fingerprint(REQUEST))
    model = ReplayModel([{"text": "late", "latency": f"{300 * DAY}s", "request": asked}], agent="a")
    assert _within_the_outer_limit(lambda: _answered_at(model)) == ("late", 300 * DAY)


def test_a_scripted_step_of_300_virtual_days_answers_after_its_latency() -> None:
    model = ScriptedModel([{"text": "late", "latency": f"{300 * DAY}s"}])
    assert _within_the_outer_limit(lambda: _answered_at(model)) == ("late", 300 * DAY)
