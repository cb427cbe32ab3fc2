"""Phase 5: compare what a run did with what the scenario expects, as readable mismatches.

It reads a scenario and a run through two small protocols (:class:`CheckedScenario`,
:class:`CheckedRun`), so that it sits below the load and run phases that provide them.
"""

from handoff_sim.scenarios._expect._captures import TurnSessions
from handoff_sim.scenarios._expect._check import (
    CheckedRun,
    CheckedScenario,
    Mismatch,
    check_expectations,
    describe_error,
    show,
)
from handoff_sim.scenarios._expect._findings import expect_findings
from handoff_sim.scenarios._expect._values import text_matches, value_matches

__all__ = [
    "CheckedRun",
    "CheckedScenario",
    "Mismatch",
    "TurnSessions",
    "check_expectations",
    "describe_error",
    "expect_findings",
    "show",
    "text_matches",
    "value_matches",
]
