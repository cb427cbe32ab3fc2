"""T2: a failing scenario shows file:line of the failed expectation, expected vs actual,
the trace as a tree, and no internal traceback."""

from __future__ import annotations

import pytest

from tests.plugin._support import FAILING, PASSING
from tests.plugin.conftest import Write


def test_t2_failure_names_the_expectation_line_and_shows_the_tree(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    path = write_scenario("wrong.yaml", FAILING)
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*_ wrong-expectations _*",
            f"{path}:14: expect.output: output differs",
            "    expected: 'finished'",
            "    actual:   'done'",
            "*actual handoffs:",
            "└─ manager → reviewer via subagent_reviewer [[]handoff:c1] status=completed*",
            "*actual events:",
            "*handoff_start * manager: subagent_reviewer → reviewer [[]handoff:c1] new_session",
        ]
    )
    output = result.stdout.str()
    for internal in ("Traceback", "ScenarioFailed", "_execute.py", "def run_handoff_scenario"):
        assert internal not in output


def test_t2_short_summary_names_the_scenario(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("wrong.yaml", FAILING)
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios", "-rf", "-vv")
    result.stdout.fnmatch_lines(
        ["FAILED scenarios/wrong.yaml::wrong-expectations - scenario wrong-expectations failed*"]
    )


def test_t2_scenario_location_is_the_yaml_line(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("both.yaml", "scenarios:\n  - " + PASSING.replace("\n", "\n    ").rstrip())
    items, _ = pytester.inline_genitems("--handoff-scenarios", "scenarios")
    (item,) = items
    assert item.location == ("scenarios/both.yaml", 1, "delegate-review")


def test_t2_a_bug_in_a_hook_keeps_its_traceback(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("ok.yaml", PASSING)
    pytester.makeconftest(
        """
        def pytest_handoff_scenario_result(config, result):
            raise KeyError("bug in my hook")
        """
    )
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*def pytest_handoff_scenario_result*", "E * KeyError*"])
