"""The stateful fuzzer: generated configurations keep every invariant; faults are caught."""

from __future__ import annotations

import pytest

from handoff_sim.fuzzing import FuzzFailure
from handoff_sim.fuzzing._machine import HandoffFuzzMachine, machine_settings, run_fuzz_machine

TestHandoffFuzzMachine = HandoffFuzzMachine.TestCase
TestHandoffFuzzMachine.settings = machine_settings(max_examples=12, step_count=5)


def test_machine_reports_a_dropped_handoff_end_with_reproducers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the shrink budget only bounds how small the reproducer gets, not what it must say
    monkeypatch.setattr("handoff_sim.fuzzing._engine.SHRINK_SECONDS", 0.25)
    with pytest.raises(FuzzFailure) as caught:
        run_fuzz_machine(max_examples=40, step_count=6, fault="drop-handoff-end", derandomize=True)
    message = str(caught.value)
    assert "[balance]" in message
    assert "handoff_start without handoff_end" in message
    assert "replay(CASE, fault='drop-handoff-end')" in message
    assert "scenario: fuzz-" in message


def test_machine_refuses_an_unknown_fault() -> None:
    with pytest.raises(ValueError, match="unknown fault 'nope'; known: drop-handoff-end"):
        HandoffFuzzMachine(fault="nope")
