"""Fuzz your own policy configuration in a few lines, from a test suite or a script.

    from handoff_sim.fuzzing import fuzz_policy

    fuzz_policy({"max_depth": 2, "max_retries": 1, "timeout": 5}, examples=100)

In pytest the ``handoff_fuzz`` fixture of the ``pytest_handoff`` plugin hands out a
:class:`PolicyFuzzer`. A violation raises :class:`~handoff_sim.fuzzing.FuzzFailure`,
whose message holds the shrunk case as a Python and a YAML reproducer. The search is
a hypothesis test: the active settings profile, ``--hypothesis-seed`` and the example
database apply. hypothesis is imported when a fuzz runs, not when this module is.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from handoff_sim._errors._families import ConfigurationError
from handoff_sim.subagents._policy import HandoffPolicy

if TYPE_CHECKING:
    from hypothesis import strategies as st

    from handoff_sim.fuzzing._engine import FuzzStats

__all__ = ["PolicyFuzzer", "fuzz_policy", "policy_dict"]


def policy_dict(policy: HandoffPolicy | Mapping[str, Any]) -> dict[str, Any]:
    """A policy as a scenario-file policy block (a callable input filter cannot be one)."""
    if isinstance(policy, Mapping):
        return dict(policy)
    if policy.input_filter is not None:
        raise ConfigurationError(
            "a HandoffPolicy with a callable input_filter cannot be fuzzed as a scenario; "
            "pass a policy dict with a declarative input_filter block instead"
        )
    data = policy.model_dump(exclude={"input_filter"})
    for key in ("allowed_tools", "denied_tools"):
        if data[key] is not None:
            data[key] = sorted(data[key])
    data["on_denied"] = policy.on_denied.value
    data["on_error"] = policy.on_error.value
    return {k: v for k, v in data.items() if v is not None}


def fuzz_policy(
    policy: HandoffPolicy | Mapping[str, Any],
    *,
    examples: int | None = None,
    seed: int | None = None,
    max_depth: int = 2,
    max_breadth: int = 2,
    models: Sequence[str] = ("adversarial", "script"),
    fault: str | None = None,
) -> FuzzStats:
    """Run generated agent trees under ``policy``; raise FuzzFailure on any violation.

    It runs as a hypothesis test under the active settings profile: ``examples``
    defaults to its ``max_examples``; without ``seed`` the examples are hypothesis'
    choice (random, ``--hypothesis-seed``, or fixed when the profile derandomizes);
    failures are saved to and replayed from the profile's example database, under a
    key made of the policy and these options. ``fault`` names a test-only fault of
    ``handoff_sim.fuzzing.FAULTS``.
    """
    from handoff_sim.fuzzing import _strategies as hs
    from handoff_sim.fuzzing._engine import FuzzStats, search, with_policy

    block = policy_dict(policy)
    strategy = hs.scenarios(max_depth=max_depth, max_breadth=max_breadth, models=models).map(
        lambda case: with_policy(case, block)
    )
    key = {"policy": block, "shape": [max_depth, max_breadth, list(models)], "fault": fault}
    stats = FuzzStats()
    failure = search(
        strategy,
        examples=examples,
        seed=random.Random(seed).getrandbits(32) if seed is not None else None,
        stats=stats,
        fault=fault,
        database_key=json.dumps(key, sort_keys=True, default=str),
    )
    if failure is not None:
        raise failure
    return stats


class PolicyFuzzer:
    """What the ``handoff_fuzz`` fixture gives a test: :meth:`check` a policy.

    ``examples`` and ``seed`` default to ``None``: the active hypothesis profile and
    hypothesis' own seeding decide, as for a ``@given`` test.
    """

    def __init__(self, *, examples: int | None = None, seed: int | None = None) -> None:
        self.examples = examples
        self.seed = seed

    def check(
        self,
        policy: HandoffPolicy | Mapping[str, Any],
        *,
        examples: int | None = None,
        **options: Any,
    ) -> FuzzStats:
        """Fuzz ``policy`` (see :func:`fuzz_policy` for ``options``); fail on a violation."""
        options.setdefault("seed", self.seed)
        return fuzz_policy(policy, examples=examples or self.examples, **options)

    def strategy(self, **options: Any) -> st.SearchStrategy[dict[str, Any]]:
        """Generated scenario dicts, for tests that drive ``@given`` themselves."""
        from handoff_sim.fuzzing import _strategies as hs

        return hs.scenarios(**options)
