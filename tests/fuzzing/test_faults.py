"""Test-only faults: a recorder that loses or alters events, leaving the runtime untouched."""

from __future__ import annotations

import msgspec

from handoff_sim import Agent, SubAgent, Violation, check_invariants
from handoff_sim.events import Event, HandoffEndEvent
from handoff_sim.fuzzing import FAULTS, FaultyRecorder
from handoff_sim.fuzzing._faults import DropEvents, Fault
from handoff_sim.simulation import Simulation
from handoff_sim.testing import ScriptedModel


def _pair() -> Agent:
    """A root that delegates twice, one call at a time, then answers."""
    child = Agent("child", ScriptedModel([{"text": "ok"}] * 2))
    calls = [{"tool_calls": [{"id": i, "name": "subagent_child", "arguments": {}}]} for i in "ab"]
    return Agent(
        "root",
        ScriptedModel([*calls, {"text": "done"}]),
        subagents=[SubAgent("child", agent=child)],
    )


def _observed(fault: Fault) -> tuple[Simulation, FaultyRecorder]:
    recorder = FaultyRecorder(fault)
    sim = Simulation(seed=1, wall_clock=False, observers=[recorder])
    try:
        sim.run(_pair(), "go")
    finally:
        sim.close()
    return sim, recorder


def test_drop_events_loses_only_the_first_count_events_of_its_type() -> None:
    sim, recorder = _observed(DropEvents("handoff_end"))
    full, faulty = sim.trace, recorder.trace
    assert [e.handoff_id for e in full.of_type(HandoffEndEvent)] == ["handoff:a", "handoff:b"]
    assert [e.handoff_id for e in faulty.of_type(HandoffEndEvent)] == ["handoff:b"]
    assert [e for e in full if e.type != "handoff_end" or e.handoff_id == "handoff:b"] == list(
        faulty
    )


def test_the_runtime_trace_stays_complete_and_sound_under_a_fault() -> None:
    sim, recorder = _observed(FAULTS["drop-handoff-end"]())
    assert check_invariants(sim.trace) == []
    start = recorder.trace.of_type("handoff_start")[0]
    assert check_invariants(recorder.trace) == [
        Violation("balance", "handoff:a: handoff_start without handoff_end", start.seq)
    ]


def test_a_fault_can_alter_what_is_recorded() -> None:
    def rename(event: Event) -> Event:
        if isinstance(event, HandoffEndEvent):
            return msgspec.structs.replace(event, handoff_id="handoff:elsewhere")
        return event

    sim, recorder = _observed(rename)
    assert len(recorder.trace) == len(sim.trace)
    assert {e.handoff_id for e in recorder.trace.of_type(HandoffEndEvent)} == {"handoff:elsewhere"}
    assert sorted(recorder.trace.unbalanced()) == [
        "handoff:a: handoff_start without handoff_end",
        "handoff:b: handoff_start without handoff_end",
        "handoff:elsewhere: handoff_end without handoff_start",
        "handoff:elsewhere: handoff_end without handoff_start",
    ]


def test_a_dropped_run_end_is_a_run_that_never_ended() -> None:
    _sim, recorder = _observed(FAULTS["drop-run-end"]())
    start = recorder.trace.of_type("run_start")[1]
    assert check_invariants(recorder.trace) == [
        Violation("termination", "run run-2 of 'child' never ended", start.seq)
    ]
