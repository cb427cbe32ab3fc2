"""``HandoffFuzzMachine``: a hypothesis state machine that builds configurations and runs them.

Rules generate scenario dicts (agent trees, policies, adversarial and scripted
models), vary them (another policy, another seed, more turns) and run each in a
fresh virtual-time Simulation, checking every invariant after each run. A
failure raises :class:`~handoff_sim.fuzzing.FuzzFailure`, whose message holds a
Python and a YAML reproducer of the shrunk case::

    from handoff_sim.fuzzing import run_fuzz_machine
    run_fuzz_machine(max_examples=30)
"""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.errors import Flaky
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    rule,
    run_state_machine_as_test,
)

from handoff_sim.fuzzing import _strategies as hs
from handoff_sim.fuzzing._case import check_case
from handoff_sim.fuzzing._engine import SHRINK_BUDGET, ShrinkBudget, StopShrinking, with_policy
from handoff_sim.fuzzing._faults import FAULTS
from handoff_sim.fuzzing._repro import FuzzFailure

__all__ = ["HandoffFuzzMachine", "machine_settings", "run_fuzz_machine"]

_INPUTS = st.lists(st.sampled_from(["more", "and again", "ещё"]), min_size=1, max_size=2)


class HandoffFuzzMachine(RuleBasedStateMachine):
    """Builds agent trees and policies; runs them against adversarial and scripted models."""

    cases = Bundle("cases")

    def __init__(self, fault: str | None = None, shrink: ShrinkBudget | None = None) -> None:
        super().__init__()
        self.shrink = shrink
        if fault is not None and fault not in FAULTS:
            raise ValueError(f"unknown fault {fault!r}; known: {', '.join(FAULTS)}")
        self.fault = fault
        self.runs = 0

    @rule(target=cases, case=hs.scenarios(max_depth=2, max_breadth=2))
    def generate(self, case: dict[str, Any]) -> dict[str, Any]:
        """A new configuration: an agent tree with tools, policies and models."""
        return case

    @rule(target=cases, case=cases, policy=hs.policy_dicts())
    def swap_policy(self, case: dict[str, Any], policy: dict[str, Any]) -> dict[str, Any]:
        """The same tree under one policy for every delegating agent."""
        return with_policy(case, policy)

    @rule(target=cases, case=cases, seed=st.integers(0, 2**16))
    def reseed(self, case: dict[str, Any], seed: int) -> dict[str, Any]:
        """The same configuration with another simulation seed."""
        return {**copy.deepcopy(case), "seed": seed}

    @rule(case=cases)
    def run(self, case: dict[str, Any]) -> None:
        """Run every turn in a fresh Simulation; check every invariant, determinism too."""
        self._check(case)

    @rule(case=cases, inputs=_INPUTS)
    def run_more_turns(self, case: dict[str, Any], inputs: list[str]) -> None:
        """A longer conversation: the same session over more turns."""
        self._check({**copy.deepcopy(case), "run": [*case["run"], *inputs]})

    def _check(self, case: dict[str, Any]) -> None:
        if self.shrink is not None:
            self.shrink.spend()
        result = check_case(case, fault=FAULTS[self.fault] if self.fault else None)
        self.runs += 1
        if result.violations:
            failure = FuzzFailure(case, result.violations, self.fault)
            if self.shrink is not None:
                self.shrink.failed(failure, len(json.dumps(case, default=str)))
            raise failure


def machine_settings(
    max_examples: int = 25, step_count: int = 6, *, derandomize: bool = False
) -> settings:
    """Bounded settings for the normal test suite: fast, no deadline, shrinking on.

    ``derandomize`` draws the same examples on every run, for tests that must find
    a planted fault within a small budget whatever the random seed.
    """
    return settings(
        max_examples=max_examples,
        derandomize=derandomize,
        stateful_step_count=step_count,
        deadline=None,
        database=None,
        phases=(Phase.explicit, Phase.generate, Phase.shrink),
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
    )


def run_fuzz_machine(
    *,
    max_examples: int = 25,
    step_count: int = 6,
    fault: str | None = None,
    derandomize: bool = False,
) -> None:
    """Run the machine; raise FuzzFailure (shrunk, with reproducers) on a violation.

    Shrinking is bounded (``SHRINK_BUDGET`` runs, ``SHRINK_SECONDS``): the smallest
    failing case found by then is raised.
    """
    shrink = ShrinkBudget(SHRINK_BUDGET)
    try:
        run_state_machine_as_test(
            lambda: HandoffFuzzMachine(fault, shrink),  # type: ignore[arg-type]
            settings=machine_settings(max_examples, step_count, derandomize=derandomize),
        )
    except (StopShrinking, Flaky):
        # See search(): after the shrink budget runs out hypothesis may call replays flaky.
        if shrink.best is None:
            raise
        raise shrink.best from None
