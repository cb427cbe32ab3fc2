"""Phase 5: compare what a run did with what the scenario expects, as readable mismatches.

It reads a scenario and a run through two small protocols (:class:`CheckedScenario`,
:class:`CheckedRun`), so that it sits below the load and run phases that provide them.
"""

from handoff_sim.scenarios.expect._check import (
    CheckedRun,
    CheckedScenario,
    Mismatch,
    check_expectations,
    describe_error,
    show,
)
from handoff_sim.scenarios.expect._match import text_matches

__all__ = [
    "CheckedRun",
    "CheckedScenario",
    "Mismatch",
    "check_expectations",
    "describe_error",
    "show",
    "text_matches",
]
