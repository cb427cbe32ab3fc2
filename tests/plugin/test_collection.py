"""T1: ``--handoff-scenarios DIR`` collects every scenario as ``path::scenario[variant]``."""

from __future__ import annotations

import pytest

from tests.plugin._support import MATRIX, PASSING
from tests.plugin.conftest import Write


def test_t1_items_are_named_path_scenario_and_variant(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("review.yaml", PASSING)
    write_scenario("nested/retry.yml", MATRIX)
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios", "-v")
    result.assert_outcomes(passed=3)
    passed = {line for line in result.outlines if "PASSED" in line}
    for nodeid in (
        "scenarios/nested/retry.yml::retry[no-retry]",
        "scenarios/nested/retry.yml::retry[one-retry]",
        "scenarios/review.yaml::delegate-review",
    ):
        assert any(nodeid in line for line in passed), nodeid


def test_t1_collect_only_lists_scenario_nodeids(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("retry.yaml", MATRIX)
    result = pytester.runpytest_inprocess(
        "--handoff-scenarios", "scenarios", "--collect-only", "-q"
    )
    assert result.outlines[:2] == [
        "scenarios/retry.yaml::retry[no-retry]",
        "scenarios/retry.yaml::retry[one-retry]",
    ]


def test_t1_option_is_repeatable(pytester: pytest.Pytester, write_scenario: Write) -> None:
    write_scenario("a.yaml", PASSING, folder="first")
    write_scenario("b.yaml", MATRIX, folder="second")
    result = pytester.runpytest_inprocess(
        "--handoff-scenarios", "first", "--handoff-scenarios", "second"
    )
    result.assert_outcomes(passed=3)


def test_t1_yaml_outside_the_scenario_dirs_is_not_collected(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("a.yaml", PASSING)
    write_scenario("config.yaml", "not: a scenario\n", folder="other")
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios", "other")
    result.assert_outcomes(passed=1)


def test_t1_option_without_test_paths_runs_only_the_scenarios(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("a.yaml", PASSING)
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    pytester.makeini("[pytest]\ntestpaths = .\n")
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios", "-v")
    result.assert_outcomes(passed=1)
    result.stdout.no_fnmatch_line("*test_plain*")


def test_t1_scenarios_run_alongside_python_tests(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("a.yaml", PASSING)
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    result = pytester.runpytest_inprocess("test_plain.py", "--handoff-scenarios", "scenarios")
    result.assert_outcomes(passed=2)


def test_t1_explicit_scenario_path_runs_only_that_scenario(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("a.yaml", PASSING)
    write_scenario("retry.yaml", MATRIX)
    result = pytester.runpytest_inprocess(
        "scenarios/retry.yaml::retry[one-retry]", "--handoff-scenarios", "scenarios", "-v"
    )
    result.assert_outcomes(passed=1)
    result.stdout.re_match_lines([r".*retry\.yaml::retry\[one-retry\] PASSED.*"])


def test_t1_ini_key_names_the_scenario_dirs(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("a.yaml", PASSING)
    pytester.makeini("[pytest]\nhandoff_scenarios = scenarios\n")
    result = pytester.runpytest_inprocess()
    result.assert_outcomes(passed=1)


def test_t1_command_line_overrides_the_ini_key(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("a.yaml", PASSING, folder="from_ini")
    write_scenario("b.yaml", MATRIX, folder="from_cli")
    pytester.makeini("[pytest]\nhandoff_scenarios = from_ini\n")
    result = pytester.runpytest_inprocess("--handoff-scenarios", "from_cli", "-v")
    result.assert_outcomes(passed=2)
    result.stdout.no_fnmatch_line("*from_ini*")


def test_t1_ini_dirs_are_not_added_when_paths_are_given(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("a.yaml", PASSING)
    pytester.makeini("[pytest]\nhandoff_scenarios = scenarios\n")
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    result = pytester.runpytest_inprocess("test_plain.py")
    result.assert_outcomes(passed=1)


def test_t1_missing_scenario_dir_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_inprocess("--handoff-scenarios", "nowhere")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--handoff-scenarios: no such file or directory: *nowhere*"])


def test_t1_options_share_one_group_and_prefix(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_inprocess("--help")
    result.stdout.fnmatch_lines(
        ["handoff-sim scenarios:", "  --handoff-scenarios=DIR*", "*handoff_scenarios (paths):*"]
    )
