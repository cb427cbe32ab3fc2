"""Fuzzing handoff configurations: generated scenarios, adversarial models, invariant checks.

``handoff-sim fuzz`` runs it from the command line (:func:`seeded_search`, counted in
:class:`FuzzStats`);
:mod:`handoff_sim.fuzzing.generate` makes the scenario dicts, from hypothesis' draws or a
seeded ``random.Random``; :class:`~handoff_sim.fuzzing.machine.HandoffFuzzMachine` is
the hypothesis state machine; :mod:`handoff_sim.fuzzing.policy` (the ``handoff_fuzz``
fixture of the pytest plugin, in a test) fuzzes your own policy. Importing this package
does not import hypothesis.
See docs/fuzzing.md.
"""

from handoff_sim.fuzzing._case import (
    ADVERSARIAL_KNOBS,
    CaseResult,
    build_case,
    case_of,
    check_case,
)
from handoff_sim.fuzzing._faults import FAULTS, DropEvents, Fault, FaultyRecorder
from handoff_sim.fuzzing._repro import (
    FuzzFailure,
    python_reproducer,
    replay,
    scenario_yaml,
    write_reproducer,
)
from handoff_sim.fuzzing._seeded import seeded_search
from handoff_sim.fuzzing._stats import FuzzStats

__all__ = [
    "ADVERSARIAL_KNOBS",
    "FAULTS",
    "CaseResult",
    "DropEvents",
    "Fault",
    "FaultyRecorder",
    "FuzzFailure",
    "FuzzStats",
    "build_case",
    "case_of",
    "check_case",
    "python_reproducer",
    "replay",
    "scenario_yaml",
    "seeded_search",
    "write_reproducer",
]
