"""The search loop shared by the CLI and the pytest helper: hypothesis draws, we run and check."""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.errors import Flaky

from handoff_sim.fuzzing._case import check_case
from handoff_sim.fuzzing._faults import FAULTS
from handoff_sim.fuzzing._repro import FuzzFailure
from handoff_sim.fuzzing._stats import FuzzStats

__all__ = [
    "FuzzStats",
    "ShrinkBudget",
    "StopShrinking",
    "fuzz_settings",
    "search",
    "with_policy",
]

SHRINK_BUDGET = 80
"""Runs spent shrinking a failure before the smallest case found so far is kept."""
SHRINK_SECONDS = 3.0
"""Wall-clock seconds spent shrinking, likewise."""


def fuzz_settings(examples: int) -> settings:
    """Settings for one search: no database, no deadline, shrink on failure, quiet."""
    return settings(
        max_examples=examples,
        deadline=None,
        database=None,
        phases=(Phase.explicit, Phase.generate, Phase.shrink),
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
        verbosity=Verbosity.quiet,
        print_blob=False,
    )


class StopShrinking(BaseException):
    """Raised through hypothesis to end a shrink that ran out of budget (not an Exception)."""


@dataclass
class ShrinkBudget:
    """The failures seen while shrinking, and what is left of the budget."""

    runs_left: int
    deadline: float | None = None
    best: FuzzFailure | None = None
    best_size: int = 0

    def failed(self, failure: FuzzFailure, size: int) -> None:
        """Remember ``failure`` if it is the smallest so far; start the shrink clock."""
        if self.best is None or size < self.best_size:
            self.best, self.best_size = failure, size
        if self.deadline is None:
            self.deadline = time.monotonic() + SHRINK_SECONDS

    def spend(self) -> None:
        """Count one run; raise StopShrinking once a failure's shrink budget is used up."""
        if self.best is None:
            return
        self.runs_left -= 1
        if self.runs_left < 0 or time.monotonic() > (self.deadline or 0):
            raise StopShrinking


def search(
    strategy: st.SearchStrategy[dict[str, Any]],
    *,
    examples: int,
    seed: int,
    stats: FuzzStats,
    fault: str | None = None,
    shrink_budget: int = SHRINK_BUDGET,
) -> FuzzFailure | None:
    """Run up to ``examples`` generated cases; the (shrunk) failure if an invariant broke.

    Shrinking stops after ``shrink_budget`` runs or ``SHRINK_SECONDS``; the
    smallest failing case found by then is returned.
    """
    make_fault = FAULTS[fault] if fault is not None else None
    shrink = ShrinkBudget(shrink_budget)

    @fuzz_settings(examples)
    @given(case=strategy)
    def body(case: dict[str, Any]) -> None:
        shrink.spend()
        result = check_case(case, fault=make_fault)
        stats.record(result)
        if result.violations:
            failure = FuzzFailure(case, result.violations, fault)
            shrink.failed(failure, len(json.dumps(case, default=str)))
            raise failure

    try:
        hypothesis_seed(seed)(body)()
    except FuzzFailure as failure:
        return failure
    except (StopShrinking, Flaky):
        # The shrink budget is state outside hypothesis: once it runs out, a replay
        # can end differently and hypothesis calls that flaky. The failure stands.
        if shrink.best is None:
            raise
        return shrink.best
    return None


def with_policy(case: Mapping[str, Any], policy: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``case`` where every agent that mounts sub-agents uses ``policy``."""
    changed = copy.deepcopy(dict(case))
    for agent in changed["agents"].values():
        if agent.get("subagents"):
            agent["policy"] = copy.deepcopy(dict(policy))
    return changed
