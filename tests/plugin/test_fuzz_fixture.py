"""The ``handoff_fuzz`` fixture fuzzes a downstream policy configuration in a few lines."""

from __future__ import annotations

import pytest


def test_handoff_fuzz_fixture_checks_a_policy_in_a_test_project(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_policy="""
        def test_my_policy_keeps_every_invariant(handoff_fuzz):
            stats = handoff_fuzz.check({"max_depth": 2, "max_retries": 1, "timeout": 5}, examples=5)
            assert stats.runs >= 5
        """
    )
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
