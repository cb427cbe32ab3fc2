"""``--handoff-record-mode`` and ``--handoff-block-models``: what a test's recording does.

The test project's agents are handoff-sim agents whose "real" models are
``FunctionModel``s standing in for a provider client; every call of one prints a
``REAL <agent>`` line, so each session shows whether the real models ran.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

import handoff_sim.recording  # noqa: F401  (imported once here, the inner sessions keep it)
from tests.plugin._support import run

AGENTS = """
import json
import os

from handoff_sim import Agent, SubAgent, ToolCall
from handoff_sim.testing import FunctionModel


def _triage(request):
    print("REAL", request.agent)
    last = request.messages[-1]
    if last.role == "user":
        task = json.dumps({"task": "refund " + last.content})
        return [ToolCall("c1", "subagent_billing", task)]
    return "triage: " + last.content


def _billing(request):
    print("REAL", request.agent)
    return os.environ.get("BILLING_ANSWER", "approved") + " " + request.messages[-1].content


def build():
    billing = Agent("billing", FunctionModel(_billing))
    if os.environ.get("ROUTE") != "v2":
        sub = SubAgent("billing", "refunds", billing, tool_name="subagent_billing")
        return Agent("triage", FunctionModel(_triage), subagents=[sub])
    # the code now routes refunds to a new agent; the old one stays, under another tool
    billing_v2 = Agent("billing_v2", FunctionModel(_billing))
    subs = [
        SubAgent("billing", "refunds", billing_v2, tool_name="subagent_billing"),
        SubAgent("legacy", "old refunds", billing, tool_name="subagent_legacy"),
    ]
    return Agent("triage", FunctionModel(_triage), subagents=subs)
"""

TESTS = """
import os

from agents_app import build
from handoff_sim import simulate


def test_refund(handoff_recording):
    triage = build()
    with handoff_recording.use(triage):
        result = simulate(triage, os.environ.get("ORDER", "order 42"))
    print("RECORDS" if handoff_recording.records else "REPLAYS", handoff_recording.mode)
    assert result.output.startswith("triage: ")
"""

RECORDING = Path("recordings/test_refund/test_refund.yaml")


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """The agents and one test bound to its recording (not recorded yet)."""
    pytester.makepyfile(agents_app=AGENTS, test_refund=TESTS)
    return pytester


def _session(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_inprocess("-s", "-p", "no:cacheprovider", *args)


def _real_calls(result: pytest.RunResult) -> list[str]:
    """The agents whose real model ran, in call order."""
    return [line.split("REAL ", 1)[1] for line in result.outlines if "REAL " in line]


def _tree(root: Path) -> dict[str, str]:
    """Every file under ``root`` (caches left out) with a hash of its bytes."""
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def test_r5_once_records_a_missing_recording_and_then_replays_it(
    project: pytest.Pytester,
) -> None:
    recorded = _session(project, "--handoff-record-mode=once")
    recorded.assert_outcomes(passed=1)
    assert _real_calls(recorded) == ["triage", "billing", "triage"]
    recorded.stdout.fnmatch_lines(
        ["*handoff recordings written: 1*", f"{RECORDING.as_posix()} (recorded)"]
    )
    path = project.path / RECORDING
    written = path.read_bytes()
    assert b"recorded:" in written
    assert b"latency:" in written

    again = _session(project, "--handoff-record-mode=once")  # the file is there: replay
    again.assert_outcomes(passed=1)
    assert _real_calls(again) == []
    again.stdout.fnmatch_lines(["*REPLAYS once*"])
    assert path.read_bytes() == written


def test_r5_none_replays_without_the_real_models_and_writes_nothing(
    project: pytest.Pytester,
) -> None:
    _session(project, "--handoff-record-mode=once").assert_outcomes(passed=1)
    before = _tree(project.path)

    replayed = _session(project)  # the default mode is none
    replayed.assert_outcomes(passed=1)
    assert _real_calls(replayed) == []
    replayed.stdout.fnmatch_lines(["*REPLAYS none*"])
    replayed.stdout.no_fnmatch_line("*handoff recordings written*")
    assert _tree(project.path) == before


def test_r5_none_with_a_missing_recording_fails_naming_the_file_and_writes_nothing(
    project: pytest.Pytester,
) -> None:
    before = _tree(project.path)
    result = _session(project, "--handoff-record-mode=none")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            f"*MissingRecordingError: no recording at {RECORDING.as_posix()}: "
            "--handoff-record-mode=none replays only; record it once with "
            "--handoff-record-mode=once*"
        ]
    )
    assert _real_calls(result) == []
    assert _tree(project.path) == before
    assert not (project.path / "recordings").exists()


def test_r5_all_re_records_an_existing_recording(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _session(project, "--handoff-record-mode=once").assert_outcomes(passed=1)
    path = project.path / RECORDING
    first = path.read_text(encoding="utf-8")
    monkeypatch.setenv("BILLING_ANSWER", "denied")

    again = _session(project, "--handoff-record-mode=all")
    again.assert_outcomes(passed=1)
    assert _real_calls(again) == ["triage", "billing", "triage"]
    second = path.read_text(encoding="utf-8")
    assert "denied" in second
    assert "denied" not in first

    replayed = _session(project)
    replayed.assert_outcomes(passed=1)
    assert _real_calls(replayed) == []


def test_r5_ini_key_sets_the_mode_and_the_option_wins(project: pytest.Pytester) -> None:
    project.makeini("[pytest]\nhandoff_record_mode = once\n")
    _session(project).assert_outcomes(passed=1)  # recorded by the ini's mode
    assert (project.path / RECORDING).is_file()
    (project.path / RECORDING).unlink()
    result = _session(project, "--handoff-record-mode=none")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*MissingRecordingError*"])


@pytest.mark.parametrize("value", ["1", "true", "yes", "GitHub Actions"])
def test_r5_ci_allows_only_replay(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("CI", value)
    result = _session(project, "--handoff-record-mode=once")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*--handoff-record-mode=once: the CI environment variable is set, and CI only "
            "replays recordings (mode none)*"
        ]
    )
    assert not (project.path / "recordings").exists()


def test_r5_ci_refuses_a_recording_mode_from_the_ini(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    project.makeini("[pytest]\nhandoff_record_mode = all\n")
    result = _session(project)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*handoff_record_mode (ini)=all: the CI environment*"])


@pytest.mark.parametrize("value", ["", "0", "false", "False"])
def test_r5_ci_switched_off_allows_recording(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("CI", value)
    _session(project, "--handoff-record-mode=once").assert_outcomes(passed=1)
    assert (project.path / RECORDING).is_file()


def test_r5_unknown_mode_is_a_usage_error(project: pytest.Pytester) -> None:
    project.makeini("[pytest]\nhandoff_record_mode = rewrite\n")
    result = _session(project)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*handoff_record_mode (ini): unknown record mode 'rewrite'; choose one of none, once*"]
    )
    cli = _session(project, "--handoff-record-mode=rewrite")
    assert cli.ret == pytest.ExitCode.USAGE_ERROR


def test_r5_block_models_refuses_an_agent_the_recording_has_no_lane_for(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.makepyfile(  # order only: the new tool list does not stop triage's replay
        test_refund='import pytest\npytestmark = pytest.mark.handoff_recording(match="order")\n'
        + TESTS
    )
    _session(project, "--handoff-record-mode=once").assert_outcomes(passed=1)
    monkeypatch.setenv("ROUTE", "v2")  # the recorded call now reaches an agent with no lane

    unblocked = _session(project)
    unblocked.assert_outcomes(failed=1)  # billing's lane went unused
    unblocked.stdout.fnmatch_lines(["*UnusedRecordingError*"])
    assert _real_calls(unblocked) == ["billing_v2"]  # its real model ran during the replay

    blocked = _session(project, "--handoff-block-models")
    blocked.assert_outcomes(failed=1)
    assert _real_calls(blocked) == []
    blocked.stdout.fnmatch_lines(
        [
            "*RealModelBlockedError: agent 'billing_v2' called its real model during the "
            f"replay of {RECORDING.as_posix()}*"
        ]
    )


def test_r5_block_models_lets_a_complete_replay_pass(project: pytest.Pytester) -> None:
    _session(project, "--handoff-record-mode=once").assert_outcomes(passed=1)
    result = _session(project, "--handoff-block-models")
    result.assert_outcomes(passed=1)


def test_r5_new_episodes_re_records_a_recording_the_code_no_longer_matches(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Five sessions in a row (record, replay, stale, re-record, replay): about 2 s."""
    first = _session(project, "--handoff-record-mode=new_episodes")  # missing: recorded
    first.assert_outcomes(passed=1)
    assert _real_calls(first) == ["triage", "billing", "triage"]
    path = project.path / RECORDING
    recorded = path.read_text(encoding="utf-8")

    same = _session(project, "--handoff-record-mode=new_episodes")  # matches: replayed
    same.assert_outcomes(passed=1)
    assert _real_calls(same) == []
    assert path.read_text(encoding="utf-8") == recorded

    monkeypatch.setenv("ORDER", "order 43")  # the test now asks something else
    stale = _session(project)
    stale.assert_outcomes(failed=1)
    stale.stdout.fnmatch_lines(["*ReplayMismatchError*"])

    renewed = _session(project, "--handoff-record-mode=new_episodes")
    renewed.assert_outcomes(passed=1)
    assert _real_calls(renewed) == ["triage", "billing", "triage"]
    renewed.stdout.fnmatch_lines(
        [f"{RECORDING.as_posix()} (re-recorded: the replay no longer matched)"]
    )
    assert "order 43" in path.read_text(encoding="utf-8")
    _session(project).assert_outcomes(passed=1)


def test_r5_new_episodes_does_not_re_record_a_test_failing_for_another_reason(
    project: pytest.Pytester,
) -> None:
    _session(project, "--handoff-record-mode=once").assert_outcomes(passed=1)
    recorded = (project.path / RECORDING).read_bytes()
    project.makepyfile(test_refund=TESTS.replace('startswith("triage: ")', 'startswith("nothing")'))
    result = _session(project, "--handoff-record-mode=new_episodes")
    result.assert_outcomes(failed=1)
    assert _real_calls(result) == []
    assert (project.path / RECORDING).read_bytes() == recorded


@pytest.mark.slow  # two worker interpreters
def test_r5_recordings_replay_under_xdist(project: pytest.Pytester) -> None:
    project.makepyfile(test_second=TESTS.replace("def test_refund", "def test_other_refund"))
    _session(project, "--handoff-record-mode=once").assert_outcomes(passed=2)
    before = _tree(project.path)
    result = run(project, "xdist", "-p", "no:cacheprovider", "--handoff-block-models")
    result.assert_outcomes(passed=2)
    assert _tree(project.path) == before


def test_r5_one_recording_block_per_test_and_records_says_what_it_did(
    project: pytest.Pytester,
) -> None:
    project.makepyfile(
        test_twice="""
        import pytest
        from agents_app import build
        from handoff_sim import ConfigurationError, simulate

        def test_twice(handoff_recording):
            assert handoff_recording.records  # once, no file yet
            triage = build()
            with handoff_recording.use(triage):
                simulate(triage, "order 42")
            assert handoff_recording.records  # it recorded, though the file is there now
            with pytest.raises(ConfigurationError, match="already recorded .*test_twice.yaml"):
                with handoff_recording.use(triage):
                    pass
        """
    )
    _session(project, "--handoff-record-mode=once", "test_twice.py").assert_outcomes(passed=1)


def test_r5_run_records_in_real_time_and_replays_in_virtual_time(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_refund="""
        import asyncio

        from agents_app import build
        from handoff_sim import hookimpl


        class LoopKind:
            # notes the kind of event loop the run's events are published on

            def __init__(self):
                self.kinds = set()

            @hookimpl
            def handoff_sim_event(self, event):
                self.kinds.add(type(asyncio.get_running_loop()).__name__)


        def test_refund(handoff_recording):
            seen = LoopKind()
            result = handoff_recording.run(build(), "order 42", observers=[seen])
            assert "approved refund order 42" in result.output
            action = "RECORDS" if handoff_recording.records else "REPLAYS"
            print(action, handoff_recording.mode, "ON", *sorted(seen.kinds))
        """
    )
    recorded = _session(project, "--handoff-record-mode=once")
    recorded.assert_outcomes(passed=1)
    assert _real_calls(recorded) == ["triage", "billing", "triage"]
    recorded.stdout.fnmatch_lines(["*RECORDS once ON *EventLoop"])  # asyncio's own loop
    recorded.stdout.no_fnmatch_line("*VirtualTimeLoop*")
    replayed = _session(project)
    replayed.assert_outcomes(passed=1)
    assert _real_calls(replayed) == []
    replayed.stdout.fnmatch_lines(["*REPLAYS none ON VirtualTimeLoop"])


def test_r5_run_refuses_a_framework_agent_naming_use(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_refund="""
        import pytest
        from handoff_sim import ConfigurationError

        def test_refund(handoff_recording):
            with pytest.raises(ConfigurationError, match="run a framework agent yourself"):
                handoff_recording.run(object(), "order 42")
        """
    )
    _session(project).assert_outcomes(passed=1)
