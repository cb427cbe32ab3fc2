"""T1: scenario items work with ``-k``, ``-m`` (tags), ``--strict-markers``, ``-x``, ``--lf``."""

from __future__ import annotations

import pytest

from tests.plugin._support import FAILING, MATRIX, PASSING
from tests.plugin.conftest import Write


@pytest.fixture
def project(write_scenario: Write) -> None:
    write_scenario("a_review.yaml", PASSING)
    write_scenario("b_wrong.yaml", FAILING)
    write_scenario("c_retry.yaml", MATRIX)


@pytest.mark.usefixtures("project")
def test_t1_dash_k_selects_by_scenario_name_and_variant(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios", "-k", "one-retry")
    result.assert_outcomes(passed=1, deselected=3)


@pytest.mark.usefixtures("project")
def test_t1_tags_become_markers_that_strict_markers_accepts(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_inprocess(
        "--handoff-scenarios", "scenarios", "--strict-markers", "-m", "smoke"
    )
    result.assert_outcomes(passed=1, deselected=3)


@pytest.mark.usefixtures("project")
def test_t1_every_scenario_item_carries_the_handoff_scenario_marker(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    result = pytester.runpytest_inprocess(
        ".", "--handoff-scenarios", "scenarios", "--strict-markers", "-m", "handoff_scenario"
    )
    result.assert_outcomes(passed=3, failed=1, deselected=1)


@pytest.mark.usefixtures("project")
def test_t1_tag_markers_are_listed_by_markers_option(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_inprocess("--markers")
    result.stdout.fnmatch_lines(["@pytest.mark.handoff_scenario(name):*"])


@pytest.mark.usefixtures("project")
def test_t1_dash_x_stops_after_the_first_failing_scenario(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios", "-x")
    result.assert_outcomes(passed=1, failed=1)


@pytest.mark.usefixtures("project")
def test_t1_last_failed_reruns_only_the_failing_scenario(pytester: pytest.Pytester) -> None:
    first = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios")
    first.assert_outcomes(passed=3, failed=1)
    again = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios", "--lf", "-v")
    again.assert_outcomes(failed=1)
    again.stdout.fnmatch_lines(
        ["run-last-failure: rerun previous 1 failure*", "*b_wrong.yaml::wrong-expectations FAILED*"]
    )
