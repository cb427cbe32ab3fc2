"""Y2/T3: ``expect.snapshot: true`` and the ``handoff_snapshot`` fixture store one readable
text trace per test with syrupy: create, match, mismatch, update."""

from __future__ import annotations

import pytest

from tests.plugin._support import SNAPSHOT_SCENARIO
from tests.plugin.conftest import Write

STORED = "scenarios/__snapshots__/snap/snap.trace.txt"


def _scenario_session(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_inprocess("--handoff-scenarios", "scenarios", *args)


def test_y2_missing_snapshot_fails_until_created_with_snapshot_update(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("snap.yaml", SNAPSHOT_SCENARIO)
    missing = _scenario_session(pytester)
    missing.assert_outcomes(failed=1)
    missing.stdout.fnmatch_lines(
        [
            "scenarios/snap.yaml:13: expect.snapshot: no snapshot */snap.trace.txt yet: "
            "run pytest with --snapshot-update to create it",
        ]
    )
    created = _scenario_session(pytester, "--snapshot-update")
    created.assert_outcomes(passed=1)
    created.stdout.fnmatch_lines(["1 snapshot generated."])
    text = (pytester.path / STORED).read_text(encoding="utf-8")
    assert "handoff_end           manager: subagent_reviewer [handoff:c1] completed" in text
    assert "  250ms" in text


def test_y2_snapshot_matches_then_a_changed_trace_shows_a_line_diff(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    path = write_scenario("snap.yaml", SNAPSHOT_SCENARIO)
    _scenario_session(pytester, "--snapshot-update").assert_outcomes(passed=1)
    pytester.runpytest_inprocess("--handoff-scenarios", "scenarios").assert_outcomes(passed=1)
    path.write_text(SNAPSHOT_SCENARIO.replace("250ms", "300ms"), encoding="utf-8")
    changed = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios")
    changed.assert_outcomes(failed=1)
    changed.stdout.fnmatch_lines(
        [
            "scenarios/snap.yaml:13: expect.snapshot: "
            "the trace differs from the stored snapshot */snap*",
            "--- snapshot",
            "+++ actual trace",
            '-   9      250ms   model_response        reviewer: step=1 text="LGTM" calls=[[][]]',
            '+   9      300ms   model_response        reviewer: step=1 text="LGTM" calls=[[][]]',
        ]
    )


def test_y2_snapshot_update_rewrites_a_changed_trace(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    path = write_scenario("snap.yaml", SNAPSHOT_SCENARIO)
    _scenario_session(pytester, "--snapshot-update").assert_outcomes(passed=1)
    path.write_text(SNAPSHOT_SCENARIO.replace("250ms", "300ms"), encoding="utf-8")
    updated = _scenario_session(pytester, "--snapshot-update")
    updated.assert_outcomes(passed=1)
    updated.stdout.fnmatch_lines(["1 snapshot updated."])
    assert "  300ms" in (pytester.path / STORED).read_text(encoding="utf-8")
    _scenario_session(pytester).assert_outcomes(passed=1)


PYTHON_TEST = """
from handoff_sim import simulate

def test_trace(agent_builder, handoff_snapshot):
    reviewer = agent_builder("reviewer", [{"text": "LGTM", "latency": LATENCY}])
    manager = agent_builder(
        "manager",
        [agent_builder.delegate("subagent_reviewer", "review", id="c1"), "done"],
        subagents=[reviewer],
    )
    assert simulate(manager, "go") == handoff_snapshot
"""


def test_t3_handoff_snapshot_fixture_creates_matches_and_updates(
    pytester: pytest.Pytester,
) -> None:
    test_file = pytester.makepyfile(test_snap=PYTHON_TEST.replace("LATENCY", "0.25"))
    pytester.runpytest_inprocess().assert_outcomes(failed=1)
    created = pytester.runpytest_inprocess("--snapshot-update")
    created.assert_outcomes(passed=1)
    stored = pytester.path / "__snapshots__" / "test_snap" / "test_trace.trace.txt"
    assert 'model_response        reviewer: step=1 text="LGTM"' in stored.read_text("utf-8")
    pytester.runpytest_inprocess().assert_outcomes(passed=1)
    test_file.write_text(PYTHON_TEST.replace("LATENCY", "0.5"), encoding="utf-8")
    changed = pytester.runpytest_inprocess()
    changed.assert_outcomes(failed=1)
    changed.stdout.fnmatch_lines(["*250ms*", "*500ms*"])
    pytester.runpytest_inprocess("--snapshot-update").assert_outcomes(passed=1)
    assert "500ms" in stored.read_text("utf-8")


def test_t3_a_trace_on_the_left_compares_with_the_snapshot(pytester: pytest.Pytester) -> None:
    source = PYTHON_TEST.replace("LATENCY", "0.25").replace(
        'simulate(manager, "go") == handoff_snapshot',
        'simulate(manager, "go").trace == handoff_snapshot',
    )
    pytester.makepyfile(test_snap=source)
    pytester.runpytest_inprocess("--snapshot-update").assert_outcomes(passed=1)
    pytester.runpytest_inprocess().assert_outcomes(passed=1)
