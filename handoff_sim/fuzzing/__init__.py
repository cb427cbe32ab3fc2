"""Fuzzing handoff configurations: generated scenarios, adversarial models, invariant checks.

``handoff-sim fuzz`` runs it from the command line (:func:`seeded_search`, counted in
:class:`FuzzStats`); :func:`scenario` makes the scenario dicts from a source of choices
(:class:`RandomChoices`, :class:`ReplayChoices`, or hypothesis' draws);
:class:`HandoffFuzzMachine` is the hypothesis state machine; :func:`fuzz_policy` (the
``handoff_fuzz`` fixture of the pytest plugin, in a test) fuzzes your own policy.
Importing this package does not import hypothesis: the state machine's names load on
first use. See docs/fuzzing.md.
"""

from typing import TYPE_CHECKING

from handoff_sim.fuzzing._case import build_case
from handoff_sim.fuzzing._faults import FAULTS, FaultyRecorder
from handoff_sim.fuzzing._generate import (
    Choices,
    RandomChoices,
    ReplayChoices,
    ScenarioOptions,
    scenario,
)
from handoff_sim.fuzzing._policy import fuzz_policy
from handoff_sim.fuzzing._repro import FuzzFailure, replay

if TYPE_CHECKING:
    from handoff_sim.fuzzing._machine import HandoffFuzzMachine, machine_settings, run_fuzz_machine

__all__ = [
    "FAULTS",
    "Choices",
    "FaultyRecorder",
    "FuzzFailure",
    "HandoffFuzzMachine",
    "RandomChoices",
    "ReplayChoices",
    "ScenarioOptions",
    "build_case",
    "fuzz_policy",
    "machine_settings",
    "replay",
    "run_fuzz_machine",
    "scenario",
]

_MACHINE = frozenset({"HandoffFuzzMachine", "machine_settings", "run_fuzz_machine"})


def __getattr__(name: str) -> object:
    """The state machine's names, imported on first use because they import hypothesis."""
    if name in _MACHINE:
        from handoff_sim.fuzzing import _machine

        return getattr(_machine, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_MACHINE})
