"""The scenario generator behind both the strategies and ``handoff-sim fuzz``, and its shrinker.

One description of a generated case, fed either by hypothesis' draws or by a seeded
``random.Random``: every choice counted from its simplest value, so lowering or
dropping choices gives simpler cases.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import msgspec
import pytest

from handoff_sim.events import Event
from handoff_sim.fuzzing import FuzzFailure
from handoff_sim.fuzzing._case import check_case
from handoff_sim.fuzzing._generate import (
    RandomChoices,
    ReplayChoices,
    ScenarioOptions,
    scenario,
)
from handoff_sim.fuzzing._seeded import seeded_search, shrink_choices
from handoff_sim.fuzzing._stats import FuzzStats
from handoff_sim.scenarios import ScenarioSpec

OPTIONS = ScenarioOptions()


def test_the_same_seed_generates_the_same_case_and_choices() -> None:
    first, again = RandomChoices(7), RandomChoices(7)

    assert scenario(first, OPTIONS) == scenario(again, OPTIONS)
    assert first.made == again.made
    assert scenario(RandomChoices(8), OPTIONS) != scenario(RandomChoices(7), OPTIONS)


def test_replaying_the_choices_a_case_made_gives_the_same_case() -> None:
    made = RandomChoices(11)
    case = scenario(made, OPTIONS)

    replay = ReplayChoices(made.made)

    assert scenario(replay, OPTIONS) == case
    assert replay.made == made.made


def test_no_choices_at_all_give_the_simplest_valid_case() -> None:
    replay = ReplayChoices([])
    case = scenario(replay, OPTIONS)

    ScenarioSpec.model_validate(case)
    assert set(replay.made) == {0}
    assert list(case["agents"]) == ["manager", "reviewer"]  # the entry agent delegates once
    assert case["run"] == ["analyze"]


def test_out_of_range_choices_are_clamped_not_refused() -> None:
    case = scenario(ReplayChoices([10**6] * 400), OPTIONS)

    ScenarioSpec.model_validate(case)
    assert len(case["agents"]) == 7  # breadth 2 at every level of depth 2: 1 + 2 + 4


@pytest.mark.parametrize("seed", range(40))
def test_random_cases_keep_the_bounds_of_their_options(seed: int) -> None:
    options = ScenarioOptions(max_depth=1, max_breadth=3, models=("script",), unicode=False)
    case = scenario(RandomChoices(seed), options)

    ScenarioSpec.model_validate(case)
    mounts = [m for a in case["agents"].values() for m in a.get("subagents", [])]
    assert 1 <= len(mounts) <= 3
    assert all("script" in a["model"] for a in case["agents"].values())
    assert all(name.isascii() for name in case["agents"])


def test_unknown_model_kinds_are_refused() -> None:
    with pytest.raises(ValueError, match="models must name 'adversarial' and/or 'script'"):
        ScenarioOptions(models=("gpt",))


def test_a_second_run_that_differs_is_a_determinism_violation() -> None:
    runs = itertools.count()

    def late_second_run() -> Any:
        late = next(runs) == 1

        def fault(event: Event) -> Event:
            return msgspec.structs.replace(event, t=event.t + 1) if late else event

        return fault

    case = scenario(ReplayChoices([]), OPTIONS)
    result = check_case(case, fault=late_second_run)

    assert [v.invariant for v in result.violations] == ["determinism"]
    assert "different trace at event 1" in result.violations[0].message


def test_the_same_case_twice_is_no_determinism_violation() -> None:
    for seed in range(20):
        result = check_case(scenario(RandomChoices(seed), OPTIONS))
        assert not [v for v in result.violations if v.invariant == "determinism"], seed


def test_the_seeded_search_runs_the_examples_it_is_given() -> None:
    stats = FuzzStats()

    assert seeded_search(OPTIONS, examples=12, seconds=None, seed=3, stats=stats) is None
    assert stats.runs == 12


def _drop_handoff_ends(event: Event) -> Event | None:
    return None if event.type == "handoff_end" else event


def test_shrinking_keeps_a_smaller_case_that_breaks_the_same_invariant() -> None:
    """Every handoff loses its end: any case with a handoff fails, so it shrinks small."""
    options = ScenarioOptions(max_breadth=3)
    for seed in itertools.count():
        made = RandomChoices(seed)
        case = scenario(made, options)
        found = check_case(case, fault=lambda: _drop_handoff_ends)
        if len(case["agents"]) >= 5 and found.violations:
            break
    failure = FuzzFailure(case, found.violations)

    shrunk = shrink_choices(made.made, failure, options, FuzzStats(), lambda: _drop_handoff_ends)

    assert len(shrunk.case["agents"]) < len(case["agents"])
    assert len(json.dumps(shrunk.case)) < len(json.dumps(case))
    assert "balance" in {v.invariant for v in shrunk.violations}
