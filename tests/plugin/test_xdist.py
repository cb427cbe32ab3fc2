"""T1 and T3 with pytest-xdist: one project that exercises every concern — naming,
variants, a failing scenario's report, a broken file, snapshots, a plugin hook — run
with ``-n 2`` under ``-k`` and ``-m``, whole, and under ``--lf``.

Items are rebuilt on each worker and only reports travel, so this checks that
collection is identical everywhere and that reports survive serialisation.
It is one test over one project because each xdist run starts two worker interpreters:
every session checks its own facts, and a later one reads what an earlier one left
(snapshots, the last-failed cache).
"""

from __future__ import annotations

from pathlib import Path

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

XDIST = ("xdist", "--handoff-scenarios", "scenarios")


def _write_project(pytester: pytest.Pytester, write_scenario: Write) -> Path:
    """Every scenario file and the plugin hook; returns the snapshot file changed later."""
    write_scenario("review.yaml", PASSING)
    write_scenario("retry.yaml", MATRIX)
    write_scenario("wrong.yaml", FAILING)
    write_scenario("broken.yaml", BROKEN)
    write_scenario("echo.yaml", ECHO_SCENARIO)
    write_scenario("snap.yaml", SNAPSHOT_SCENARIO)
    pytester.makeconftest(ECHO_CONFTEST)
    return write_scenario(
        "snap_changed.yaml", SNAPSHOT_SCENARIO.replace("scenario: snap", "scenario: snap-changed")
    )


def _selected_run_creates_snapshots(pytester: pytest.Pytester) -> None:
    """-k leaves out one scenario, -m another (by its tag); the snapshots are created."""
    selected = ("-k", "not echo", "-m", "not nightly")
    created = run(pytester, *XDIST, *selected, "--snapshot-update", "-v")

    created.assert_outcomes(passed=5, errors=1)  # the broken file is refused all the same
    for nodeid in (
        "scenarios/review.yaml::delegate-review",
        "scenarios/retry.yaml::retry[[]no-retry[]]",
        "scenarios/retry.yaml::retry[[]one-retry[]]",
        "scenarios/snap.yaml::snap",
        "scenarios/snap_changed.yaml::snap-changed",
    ):
        created.stdout.fnmatch_lines([f"*PASSED {nodeid}*"])
    created.stdout.no_fnmatch_line("*echo-kind*")  # by its name
    created.stdout.no_fnmatch_line("*wrong-expectations*")  # by its tag
    stored = sorted(pytester.path.rglob("*.trace.txt"))
    assert len(stored) == 2, stored
    assert all("handoff_start" in path.read_text(encoding="utf-8") for path in stored)


def _whole_project_run(pytester: pytest.Pytester) -> None:
    """Every scenario runs: reports, refusals, a changed snapshot, traces of passing ones."""
    result = run(pytester, *XDIST, "-v", "-rfE", "--handoff-show-trace")

    result.assert_outcomes(passed=5, failed=2, errors=1)
    passed = [line for line in result.outlines if "PASSED" in line]
    for nodeid in (
        "scenarios/review.yaml::delegate-review",
        "scenarios/retry.yaml::retry[no-retry]",
        "scenarios/retry.yaml::retry[one-retry]",
        "scenarios/echo.yaml::echo-kind",
        "scenarios/snap.yaml::snap",  # matches the snapshot created under xdist
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


@pytest.mark.slow
def test_t1_t3_a_project_works_under_xdist_with_selection_last_failed_and_snapshots(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    changed = _write_project(pytester, write_scenario)
    _selected_run_creates_snapshots(pytester)
    changed.write_text(changed.read_text("utf-8").replace("250ms", "300ms"), encoding="utf-8")
    _whole_project_run(pytester)

    again = run(pytester, *XDIST, "--lf", "-v")
    again.assert_outcomes(failed=2, errors=1)
    again.stdout.fnmatch_lines(["*FAILED scenarios/wrong.yaml::wrong-expectations*"])
    again.stdout.fnmatch_lines(["*FAILED scenarios/snap_changed.yaml::snap-changed*"])
    again.stdout.no_fnmatch_line("*PASSED*")
