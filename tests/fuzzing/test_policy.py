"""Fuzzing your own policy configuration: ``fuzz_policy`` and the policy block it fuzzes.

The ``handoff_fuzz`` fixture that hands it out is tested in tests/plugin/test_fuzz_fixture.py.
"""

from __future__ import annotations

import pytest

from handoff_sim import ConfigurationError, HandoffPolicy
from handoff_sim.fuzzing._policy import fuzz_policy, policy_dict


def test_fuzz_policy_accepts_a_handoff_policy() -> None:
    stats = fuzz_policy(HandoffPolicy(max_retries=1, timeout=1.0), examples=8, seed=1)
    assert stats.runs >= 8
    assert stats.checks == stats.runs * 9


def test_policy_dict_is_a_scenario_policy_block() -> None:
    policy = HandoffPolicy(denied_tools=["b", "a"], on_error="report_to_model", timeout="250ms")
    assert policy_dict(policy) == {
        "enabled": True,
        "max_depth": 1,
        "max_retries": 0,
        "timeout": 0.25,
        "denied_tools": ["a", "b"],
        "on_denied": "fail",
        "on_error": "report_to_model",
    }


def test_a_callable_input_filter_cannot_be_fuzzed_as_a_scenario() -> None:
    with pytest.raises(ConfigurationError, match="callable input_filter"):
        policy_dict(HandoffPolicy(input_filter=lambda call: call))
