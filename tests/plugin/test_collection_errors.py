"""Y4: a malformed scenario file is an error naming file:line:col and field; the other
files still run, and the session still fails with exit 2.

A file whose scenario names can be read is validated when its items run: each fails its
setup with the file's problems. A file whose names cannot be read (a YAML syntax error)
is one collection error; ``--collect-only`` validates every file at collection.
"""

from __future__ import annotations

import pytest

from tests.plugin._support import BROKEN, MATRIX, PASSING
from tests.plugin.conftest import Write


def test_y4_broken_file_is_one_error_and_the_others_still_run(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("broken.yaml", BROKEN)
    write_scenario("ok.yaml", PASSING)
    write_scenario("retry.yaml", MATRIX)
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios")
    result.assert_outcomes(passed=3, errors=1)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        [
            "*ERROR at setup of broken*",
            "scenarios/broken.yaml:6:7: agents.manager.policy.max_depth: must be >= 0",
            "ERROR scenarios/broken.yaml::broken - agents.manager.policy.max_depth*",
        ]
    )
    assert "Traceback" not in result.stdout.str()


def test_y4_yaml_syntax_error_points_at_its_line(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("syntax.yaml", "scenario: x\nagents: [unclosed\nrun: [go]\n")
    write_scenario("ok.yaml", PASSING)
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios")
    result.assert_outcomes(passed=1, errors=1)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        [
            "*ERROR collecting scenarios/syntax.yaml*",
            "scenarios/syntax.yaml:3:4: <yaml>: invalid YAML: *",
        ]
    )


def test_y4_python_collection_errors_still_stop_the_session(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("broken.yaml", BROKEN)
    write_scenario("ok.yaml", PASSING)
    pytester.makepyfile(test_bad="import no_such_module_here\n")
    result = pytester.runpytest_inprocess("test_bad.py", "--handoff-scenarios", "scenarios")
    result.assert_outcomes(errors=1)  # the scenario files are not validated: nothing runs
    result.stdout.fnmatch_lines(["*Interrupted: 1 error during collection*"])


def test_y4_collect_only_reports_the_broken_file(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("broken.yaml", BROKEN)
    write_scenario("ok.yaml", PASSING)
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios", "--collect-only")
    result.stdout.fnmatch_lines(
        [
            "*ERROR collecting scenarios/broken.yaml*",
            "scenarios/broken.yaml:6:7: agents.manager.policy.max_depth: must be >= 0",
            "*1 test collected, 1 error*",
        ]
    )
    assert result.ret == pytest.ExitCode.INTERRUPTED
