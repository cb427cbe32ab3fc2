"""Fuzzing handoff configurations: generated scenarios, adversarial models, invariant checks.

``handoff-sim fuzz`` runs it from the command line (:mod:`handoff_sim.fuzzing.cli`);
:class:`~handoff_sim.fuzzing.machine.HandoffFuzzMachine` is the hypothesis state
machine; :mod:`handoff_sim.fuzzing.pytest_support` lets a test suite fuzz its own
policy. See docs/fuzzing.md.
"""

from handoff_sim.fuzzing._case import (
    ADVERSARIAL_KNOBS,
    FAULTS,
    CaseResult,
    DropEvents,
    Fault,
    build_case,
    case_of,
    check_case,
    run_case,
)
from handoff_sim.fuzzing._repro import (
    FuzzFailure,
    python_reproducer,
    replay,
    scenario_yaml,
    write_reproducer,
)

__all__ = [
    "ADVERSARIAL_KNOBS",
    "FAULTS",
    "CaseResult",
    "DropEvents",
    "Fault",
    "FuzzFailure",
    "build_case",
    "case_of",
    "check_case",
    "python_reproducer",
    "replay",
    "run_case",
    "scenario_yaml",
    "write_reproducer",
]
