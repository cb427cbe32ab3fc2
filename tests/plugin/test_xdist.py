"""T1 with pytest-xdist: one ``-n 2`` session over a project that exercises every concern —
naming, variants, a failing scenario's report, a broken file, snapshots, a plugin hook.

Items are rebuilt on each worker and only reports travel, so this checks that
collection is identical everywhere and that reports survive serialisation.
It is one session because each xdist run starts three interpreters.
"""

from __future__ import annotations

import pytest

from tests.plugin._support import (
    BROKEN,
    ECHO_CONFTEST,
    ECHO_SCENARIO,
    FAILING,
    MATRIX,
    PASSING,
    SNAPSHOT_SCENARIO,
    run,
)
from tests.plugin.conftest import Write


def test_t1_everything_works_under_xdist(pytester: pytest.Pytester, write_scenario: Write) -> None:
    write_scenario("review.yaml", PASSING)
    write_scenario("retry.yaml", MATRIX)
    write_scenario("wrong.yaml", FAILING)
    write_scenario("broken.yaml", BROKEN)
    write_scenario("echo.yaml", ECHO_SCENARIO)
    write_scenario("snap.yaml", SNAPSHOT_SCENARIO)
    changed = write_scenario(
        "snap_changed.yaml", SNAPSHOT_SCENARIO.replace("scenario: snap", "scenario: snap-changed")
    )
    pytester.makeconftest(ECHO_CONFTEST)
    pytester.runpytest_inprocess("--handoff-scenarios", "scenarios", "--snapshot-update")
    changed.write_text(changed.read_text("utf-8").replace("250ms", "300ms"), encoding="utf-8")

    result = run(
        pytester, "xdist", "--handoff-scenarios", "scenarios", "-v", "-rfE", "--handoff-show-trace"
    )

    result.assert_outcomes(passed=5, failed=2, errors=1)
    passed = [line for line in result.outlines if "PASSED" in line]
    for nodeid in (
        "scenarios/review.yaml::delegate-review",
        "scenarios/retry.yaml::retry[no-retry]",
        "scenarios/retry.yaml::retry[one-retry]",
        "scenarios/echo.yaml::echo-kind",
        "scenarios/snap.yaml::snap",
    ):
        assert any(nodeid in line for line in passed), nodeid
    for pattern in (  # one by one: workers finish in any order
        "scenarios/broken.yaml:6:7: agents.manager.policy.max_depth: must be >= 0",
        "scenarios/wrong.yaml:14: expect.output: output differs",
        "└─ manager → reviewer via subagent_reviewer [[]handoff:c1] status=completed*",
        "scenarios/snap_changed.yaml:13: "
        "expect.snapshot: the trace differs from the stored snapshot *",
        '+   9      300ms   model_response        reviewer: step=1 text="LGTM" calls=[[][]]',
        "FAILED scenarios/wrong.yaml::wrong-expectations - expect.output: *",
        "*= handoff traces =*",
        "*_ retry[[]one-retry[]] _*",
    ):
        result.stdout.fnmatch_lines([pattern])
    assert "Traceback" not in result.stdout.str()


def test_t1_selection_and_last_failed_work_under_xdist(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("review.yaml", PASSING)
    write_scenario("retry.yaml", MATRIX)
    write_scenario("wrong.yaml", FAILING)

    by_marker = run(pytester, "xdist", "--handoff-scenarios", "scenarios", "-m", "smoke")
    by_marker.assert_outcomes(passed=1)
    # The keyword run selects the failing scenario too, so it is also the run --lf repeats
    # (a whole project under xdist is test_t1_everything_works_under_xdist).
    by_keyword = run(
        pytester, "xdist", "--handoff-scenarios", "scenarios", "-k", "retry or wrong", "-v"
    )
    by_keyword.assert_outcomes(passed=2, failed=1)
    by_keyword.stdout.fnmatch_lines(["*PASSED scenarios/retry.yaml::retry[[]no-retry[]]*"])
    by_keyword.stdout.fnmatch_lines(["*PASSED scenarios/retry.yaml::retry[[]one-retry[]]*"])
    by_keyword.stdout.no_fnmatch_line("*delegate-review*")
    again = run(pytester, "xdist", "--handoff-scenarios", "scenarios", "--lf", "-v")
    again.assert_outcomes(failed=1)
    again.stdout.fnmatch_lines(["*FAILED scenarios/wrong.yaml::wrong-expectations*"])


def test_t3_snapshots_are_created_under_xdist(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("snap.yaml", SNAPSHOT_SCENARIO)
    created = run(pytester, "xdist", "--handoff-scenarios", "scenarios", "--snapshot-update")
    created.assert_outcomes(passed=1)
    stored = list(pytester.path.rglob("*.trace.txt"))
    assert len(stored) == 1
    assert "handoff_start" in stored[0].read_text(encoding="utf-8")
    run(pytester, "xdist", "--handoff-scenarios", "scenarios").assert_outcomes(passed=1)
