"""The hypothesis search of ``fuzz_policy`` and the ``handoff_fuzz`` fixture: it draws, we check.

It runs as a ``@given`` test would under the active settings profile: its
``max_examples``, ``derandomize``, database, phases and verbosity, pytest's
``--hypothesis-seed`` and ``--hypothesis-profile``. (``handoff-sim fuzz`` draws its
cases from a seeded generator instead: see ``_seeded``.)
"""

from __future__ import annotations

import copy
import hashlib
import json
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.database import ExampleDatabase
from hypothesis.errors import Flaky

from handoff_sim.fuzzing._case import check_case
from handoff_sim.fuzzing._faults import FAULTS
from handoff_sim.fuzzing._repro import FuzzFailure
from handoff_sim.fuzzing._stats import FuzzStats

__all__ = [
    "FuzzStats",
    "KeyedDatabase",
    "ShrinkBudget",
    "StopShrinking",
    "profile_settings",
    "search",
    "with_policy",
]

SHRINK_BUDGET = 80
"""Runs spent shrinking a failure before the smallest case found so far is kept."""
SHRINK_SECONDS = 3.0
"""Wall-clock seconds spent shrinking, likewise."""


def profile_settings(examples: int | None, database_key: str | None) -> settings:
    """The active profile's settings, with what a fuzz search cannot use switched off.

    ``examples`` (when given) replaces ``max_examples``. Off: the deadline (a case is
    a whole simulated run), health checks (generated trees are large and slowish by
    design) and the ``@reproduce_failure`` blob (it would name our inner test; the
    failure's own message holds the reproducers). The example database is kept, its
    keys prefixed with ``database_key`` so that each policy keeps its own examples.
    """
    active = settings()  # the active profile, as a @given test without settings sees it
    database = active.database
    if database is not None and database_key is not None:
        database = KeyedDatabase(database, database_key)
    return settings(
        active,
        max_examples=examples if examples is not None else active.max_examples,
        deadline=None,
        database=database,
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
        print_blob=False,
    )


class KeyedDatabase(ExampleDatabase):
    """Another database seen through a key prefix: one inner test, many fuzzed policies."""

    def __init__(self, inner: ExampleDatabase, key: str) -> None:
        super().__init__()
        self.inner = inner
        self.prefix = hashlib.sha256(key.encode()).hexdigest()[:16].encode() + b"."

    def __repr__(self) -> str:
        return f"KeyedDatabase({self.inner!r}, prefix={self.prefix!r})"

    def save(self, key: bytes, value: bytes) -> None:
        self.inner.save(self.prefix + key, value)

    def fetch(self, key: bytes) -> Iterable[bytes]:
        return self.inner.fetch(self.prefix + key)

    def delete(self, key: bytes, value: bytes) -> None:
        self.inner.delete(self.prefix + key, value)

    def move(self, src: bytes, dest: bytes, value: bytes) -> None:
        self.inner.move(self.prefix + src, self.prefix + dest, value)


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
    examples: int | None,
    seed: int | None,
    stats: FuzzStats,
    fault: str | None = None,
    database_key: str | None = None,
    shrink_budget: int = SHRINK_BUDGET,
) -> FuzzFailure | None:
    """Run generated cases as the active profile says; the (shrunk) failure if one broke.

    ``seed`` fixes the search's random seed (else hypothesis chooses, as for any
    ``@given`` test). Shrinking stops after ``shrink_budget`` runs or
    ``SHRINK_SECONDS``; the smallest failing case found by then is returned.
    """
    make_fault = FAULTS[fault] if fault is not None else None
    shrink = ShrinkBudget(shrink_budget)

    @profile_settings(examples, database_key)
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
        (body if seed is None else hypothesis_seed(seed)(body))()
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
    """A copy of ``case`` where every agent that mounts sub-agents uses ``policy``.

    Only what changes is copied: the agents mapping, each changed agent and its policy.
    """
    agents = {
        name: {**agent, "policy": copy.deepcopy(dict(policy))} if agent.get("subagents") else agent
        for name, agent in case["agents"].items()
    }
    return {**case, "agents": agents}
