"""The search of ``handoff-sim fuzz``: cases from a seeded generator, shrunk by their choices.

A hypothesis draw costs tens of microseconds and a case makes about 140 choices, so
the command draws them from ``random.Random`` instead (a fraction of a millisecond a
case) and keeps the list of choices each case made. A failing case is shrunk on that
list, the way hypothesis shrinks: cut the list short, then lower each choice, keeping
a change when the case it generates is smaller (fewer choices, or smaller ones) and
still breaks one of the same invariants. This module imports no hypothesis.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence

from handoff_sim.fuzzing import _generate as gen
from handoff_sim.fuzzing._case import CaseResult, check_case
from handoff_sim.fuzzing._faults import FAULTS, Fault
from handoff_sim.fuzzing._repro import FuzzFailure
from handoff_sim.fuzzing._stats import FuzzStats

__all__ = ["SHRINK_RUNS", "SHRINK_SECONDS", "seeded_search", "shrink_choices"]

SHRINK_RUNS = 400
"""Runs spent shrinking a failure before the smallest case found so far is kept."""
SHRINK_SECONDS = 3.0
"""Wall-clock seconds spent shrinking, likewise."""


class _OutOfBudget(Exception):
    """The shrink budget is spent."""


def seeded_search(
    options: gen.ScenarioOptions,
    *,
    examples: int | None,
    seconds: float | None,
    seed: int,
    stats: FuzzStats,
    fault: str | None = None,
) -> FuzzFailure | None:
    """Run generated cases until ``examples`` ran or ``seconds`` passed; the shrunk failure."""
    make_fault = FAULTS[fault] if fault is not None else None
    rng = random.Random(seed)
    stop = None if seconds is None else time.monotonic() + seconds
    done = 0
    while (examples is None or done < examples) and (stop is None or time.monotonic() < stop):
        choices = gen.RandomChoices(rng.getrandbits(64))
        case = gen.scenario(choices, options)
        result = check_case(case, fault=make_fault)
        stats.record(result)
        done += 1
        if result.violations:
            failure = FuzzFailure(case, result.violations, fault)
            return shrink_choices(choices.made, failure, options, stats, make_fault)
    return None


def _shortlex_smaller(a: Sequence[int], b: Sequence[int]) -> bool:
    return (len(a), list(a)) < (len(b), list(b))


class _Shrinker:
    """Keeps the smallest failing choice list found and what is left of the budget."""

    def __init__(
        self,
        choices: list[int],
        failure: FuzzFailure,
        options: gen.ScenarioOptions,
        stats: FuzzStats,
        make_fault: Callable[[], Fault] | None,
    ) -> None:
        self.best, self.failure = choices, failure
        self.options, self.stats, self.make_fault = options, stats, make_fault
        self.wanted = {v.invariant for v in failure.violations}
        self.runs_left = SHRINK_RUNS
        self.stop = time.monotonic() + SHRINK_SECONDS

    def attempt(self, candidate: list[int]) -> bool:
        """Keep ``candidate`` if it makes a smaller case that still fails the same way."""
        replay = gen.ReplayChoices(candidate)
        case = gen.scenario(replay, self.options)
        if not _shortlex_smaller(replay.made, self.best):
            return False
        if self.runs_left <= 0 or time.monotonic() > self.stop:
            raise _OutOfBudget
        self.runs_left -= 1
        result: CaseResult = check_case(case, fault=self.make_fault)
        self.stats.record(result)
        if not self.wanted & {v.invariant for v in result.violations}:
            return False
        self.best = replay.made
        self.failure = FuzzFailure(case, result.violations, self.failure.fault)
        return True

    def cut_short(self) -> bool:
        """Binary search for the shortest prefix that still fails (the rest at its minimum)."""
        low, high, improved = 0, len(self.best), False
        while low < high:
            middle = (low + high) // 2
            if self.attempt(self.best[:middle]):
                high, improved = min(middle, len(self.best)), True
            else:
                low = middle + 1
        return improved

    def lower_each(self) -> bool:
        """Try each choice at its smallest value, then at half of it."""
        improved, index = False, 0
        while index < len(self.best):
            value = self.best[index]
            for lower in dict.fromkeys((0, value // 2, value - 1)):
                if 0 <= lower < value and self.attempt(
                    [*self.best[:index], lower, *self.best[index + 1 :]]
                ):
                    improved = True
                    break
            index += 1
        return improved


def shrink_choices(
    choices: list[int],
    failure: FuzzFailure,
    options: gen.ScenarioOptions,
    stats: FuzzStats,
    make_fault: Callable[[], Fault] | None = None,
) -> FuzzFailure:
    """The smallest failing case found from ``choices`` within the budget."""
    shrinker = _Shrinker(choices, failure, options, stats, make_fault)
    try:
        while shrinker.cut_short() | shrinker.lower_each():
            pass
    except _OutOfBudget:
        pass
    return shrinker.failure
