"""T2: a failing scenario shows file:line of the failed expectation, expected vs actual,
the trace as a tree, and no internal traceback."""

from __future__ import annotations

import pytest

from tests.plugin._support import ECHO_SCENARIO, FAILING, PASSING
from tests.plugin.conftest import Write


def test_t2_failure_names_the_expectation_line_and_shows_the_tree(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("wrong.yaml", FAILING)
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*_ wrong-expectations _*",
            "scenario wrong-expectations failed (1 mismatch(es)) — scenarios/wrong.yaml:1",
            "scenarios/wrong.yaml:14: expect.output: output differs",
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


ONE_LINE = (
    "FAILED scenarios/wrong.yaml::wrong-expectations - "
    "expect.output: output differs (expected 'finished', actual 'done')"
)


@pytest.mark.parametrize("ci", ["", "1"])
def test_short_summary_is_one_line_naming_the_failed_expectation(
    pytester: pytest.Pytester, write_scenario: Write, monkeypatch: pytest.MonkeyPatch, ci: str
) -> None:
    """On CI (or with -vv) pytest prints the whole message: it must be one line."""
    monkeypatch.setenv("CI", ci)
    write_scenario("wrong.yaml", FAILING)
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios", "-rf", "-vv")
    summary = result.outlines[result.outlines.index(ONE_LINE) :]
    assert summary[1].startswith("===")
    assert "1 failed" in summary[1]


def test_tb_line_and_junit_xml_carry_the_failed_expectation(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("wrong.yaml", FAILING)
    result = pytester.runpytest_inprocess(
        "--handoff-scenarios", "scenarios", "--tb=line", "--junitxml=junit.xml"
    )
    result.stdout.fnmatch_lines(
        [
            "scenarios/wrong.yaml:14: expect.output: output differs "
            "(expected 'finished', actual 'done')"
        ]
    )
    assert "actual events:" not in result.stdout.str()
    junit = (pytester.path / "junit.xml").read_text(encoding="utf-8")
    assert 'message="expect.output: output differs (expected' in junit


def test_short_summary_counts_the_other_failed_expectations_and_leaves_long_values_out(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario(
        "several.yaml",
        FAILING.replace(
            "expect:\n", "expect:\n  handoffs: [{tool: subagent_reviewer, attempts: 2}]\n"
        ).replace("output: finished", "output: finished\n  elapsed: 1s"),
    )
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios", "-rf", "-vv")
    result.stdout.fnmatch_lines(
        [
            "FAILED scenarios/several.yaml::wrong-expectations - expect.output: output differs "
            "(expected 'finished', actual 'done'); 2 more failed expectations",
        ]
    )
    write_scenario("several.yaml", FAILING.replace("output: finished", "handoffs: []"))
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios", "-rf", "-vv")
    result.stdout.fnmatch_lines(
        [
            "FAILED scenarios/several.yaml::wrong-expectations - "
            "expect.handoffs: expected 0 handoff(s), got 1",
        ]
    )


def test_a_scenario_given_by_absolute_path_is_still_shown_relative_to_the_rootdir(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    path = write_scenario("wrong.yaml", FAILING)
    result = pytester.runpytest_inprocess("--handoff-scenarios", str(path.parent), "-rf")
    result.stdout.fnmatch_lines(["scenarios/wrong.yaml:14: expect.output: output differs"])
    assert str(path) not in result.stdout.str()


def test_a_run_scenario_fixture_failure_names_the_expectation_in_the_summary(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("wrong.yaml", FAILING)
    pytester.makepyfile(
        test_fixture="""
        def test_it(run_scenario):
            run_scenario("scenarios/wrong.yaml")
        """
    )
    result = pytester.runpytest_inprocess("test_fixture.py", "-rf", "-vv")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "scenarios/wrong.yaml:14: expect.output: output differs",
            "FAILED test_fixture.py::test_it - expect.output: output differs "
            "(expected 'finished', actual 'done')",
        ]
    )


def test_a_scenario_error_names_its_field_in_the_summary(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("echo.yaml", ECHO_SCENARIO)
    pytester.makeconftest(
        """
        from handoff_sim.testing import FunctionModel

        CALLS = []

        def pytest_handoff_make_model(config, scenario, agent_name, model_spec):
            CALLS.append(agent_name)
            return FunctionModel(lambda request: "first") if len(CALLS) == 1 else None
        """
    )
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios", "-rf", "--tb=line")
    result.stdout.fnmatch_lines(
        [
            "scenarios/echo.yaml:4: agents.bot.model: no model factory for kind 'echo'*",
            "FAILED scenarios/echo.yaml::echo-kind - agents.bot.model: no model factory*",
        ]
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
