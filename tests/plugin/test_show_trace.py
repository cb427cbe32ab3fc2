"""--handoff-show-trace (and the handoff_show_trace ini key): the trace of passing scenarios."""

from __future__ import annotations

import pytest

from tests.plugin._support import FAILING, PASSING
from tests.plugin.conftest import Write

TREE = "└─ manager → reviewer via subagent_reviewer [[]handoff:c1] status=completed*"
HEADER = "   #          t event                 agent: fields"
EVENT = "*handoff_start         manager: subagent_reviewer → reviewer [[]handoff:c1] new_session"


def test_passing_traces_are_not_shown_by_default(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("ok.yaml", PASSING)
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios")
    result.assert_outcomes(passed=1)
    assert "handoff traces" not in result.stdout.str()
    assert "handoff_start" not in result.stdout.str()


def test_show_trace_prints_each_passing_scenario_under_its_name(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("ok.yaml", PASSING)
    write_scenario("wrong.yaml", FAILING)
    result = pytester.runpytest_inprocess(
        "--handoff-scenarios", "scenarios", "--handoff-show-trace"
    )
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        ["*= handoff traces =*", "*_ delegate-review _*", "handoffs:", TREE, "events:", HEADER]
    )
    result.stdout.fnmatch_lines([EVENT])
    traces = result.stdout.str().split("handoff traces")[1]
    assert "wrong-expectations" not in traces.split("short test summary")[0]


def test_the_ini_key_turns_it_on(pytester: pytest.Pytester, write_scenario: Write) -> None:
    write_scenario("ok.yaml", PASSING)
    pytester.makeini("[pytest]\nhandoff_show_trace = true\n")
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios")
    result.stdout.fnmatch_lines(["*= handoff traces =*", "*_ delegate-review _*", "handoffs:"])


def test_with_rA_the_trace_is_a_section_of_the_passes_shown_once(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("ok.yaml", PASSING)
    result = pytester.runpytest_inprocess(
        "--handoff-scenarios", "scenarios", "--handoff-show-trace", "-rA"
    )
    result.stdout.fnmatch_lines(["*= PASSES =*", "*_ delegate-review _*", "*- handoff trace -*"])
    assert result.stdout.str().count("handoff_start ") == 1


def test_a_test_running_several_scenarios_shows_each_under_its_id(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("ok.yaml", PASSING)
    write_scenario("other.yaml", PASSING.replace("delegate-review", "second-review"))
    pytester.makepyfile(
        test_two="""
        def test_both(run_scenario):
            run_scenario("scenarios/ok.yaml")
            run_scenario("scenarios/other.yaml")
        """
    )
    result = pytester.runpytest_inprocess("test_two.py", "--handoff-show-trace")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "*_ test_both _*",
            "*- handoff trace delegate-review -*",
            "handoffs:",
            "*- handoff trace second-review -*",
        ]
    )
