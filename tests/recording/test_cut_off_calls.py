"""A call recorded cut off (``cancelled: true``) never answers, and time runs on meanwhile:
a simulation's deadline passes as it did in the recorded run, for replays and scripts."""

from __future__ import annotations

import threading
from typing import Any

import msgspec
import pytest

from handoff_sim import ModelRequest
from handoff_sim.errors import VirtualDeadlineError, VirtualDeadlockError
from handoff_sim.messages import Message
from handoff_sim.recording import ReplayModel, fingerprint
from handoff_sim.simulation import Simulation
from handoff_sim.testing import ScriptedModel

REQUEST = ModelRequest(agent="a", model="m", messages=[Message(role="user", content="hi")])


def _cut_off_models() -> list[Any]:
    asked = msgspec.to_builtins(fingerprint(REQUEST))
    return [
        ReplayModel([{"cancelled": True, "latency": "5s", "request": asked}], agent="a"),
        ScriptedModel([{"cancelled": True, "latency": "5s"}]),
    ]


@pytest.mark.parametrize("model", _cut_off_models(), ids=["replay", "scripted"])
def test_a_call_recorded_cut_off_waits_until_the_simulation_deadline_passes(model: Any) -> None:
    sim = Simulation(deadline=3600)
    with pytest.raises(VirtualDeadlineError, match="deadline of 3600s"), sim:
        sim.run_coroutine(model.complete(REQUEST))
    assert sim.now == 3600


@pytest.mark.parametrize("model", _cut_off_models(), ids=["replay", "scripted"])
def test_without_a_deadline_a_call_recorded_cut_off_ends_in_a_deadlock_not_a_hang(
    model: Any,
) -> None:
    sim = Simulation(deadline=None)
    ended: list[BaseException] = []

    def waited() -> None:
        try:
            with sim:
                sim.run_coroutine(model.complete(REQUEST))
        except BaseException as exc:  # looked at below, in the test's thread
            ended.append(exc)

    worker = threading.Thread(target=waited, daemon=True)  # an outer limit: never a hang
    worker.start()
    worker.join(60)
    assert not worker.is_alive()
    (error,) = ended
    assert isinstance(error, VirtualDeadlockError)
    assert "every task is waiting" in str(error)
    assert sim.now > 9 * 365 * 24 * 3600  # time ran on for years first, as a real wait would
