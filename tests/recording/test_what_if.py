"""What-if replay: a recording replayed under another handoff policy, from Python, from
the command line and from a scenario's matrix, with the expectations the policy changed."""

from __future__ import annotations

from pathlib import Path

import pytest

from handoff_sim import ConfigurationError, HandoffPolicy
from handoff_sim.cli import main
from handoff_sim.errors import PolicyError
from handoff_sim.recording import what_if
from handoff_sim.recording._what_if import policy_options
from handoff_sim.scenarios import load_text, run_scenario

SLOW = Path(__file__).parent / "files" / "whatif_slow_subagent.yaml"
FALLBACK = {"timeout": "10s", "max_retries": 1, "on_error": "fallback_to_primary"}
OPTIONS = [
    "--policy",
    "manager.timeout=10s",
    "--policy",
    "manager.max_retries=1",
    "--policy",
    "manager.on_error=fallback_to_primary",
]


def test_R6_recording_passes_its_own_expectations_as_recorded() -> None:
    assert run_scenario(SLOW).passed


def test_R6_a_10s_timeout_times_out_twice_in_20_virtual_seconds_and_takes_the_fallback() -> None:
    report = what_if(SLOW, {"manager": FALLBACK})
    [handoff] = report.after.trace.handoffs()
    assert (handoff.status, handoff.reason, handoff.attempts) == ("fallback", "timeout", 2)
    assert handoff.duration_ms == 20_000
    assert handoff.attempt_outcomes == ("timeout", "timeout")
    assert handoff.output == "fallback answer"
    assert report.after.outputs == ["done"]  # the manager's recorded answer still comes


def test_R6_the_report_names_the_expectations_the_new_policy_changed() -> None:
    report = what_if(SLOW, {"manager": FALLBACK})
    assert report.before.passed
    assert not report.passed
    assert [c.expectation for c in report.broken] == ["expect.elapsed", "expect.handoffs.0"]
    assert report.fixed == ()
    text = report.render()
    assert "2 expectation(s) changed" in text
    assert "expect.handoffs.0: passed before, fails now" in text
    assert "differs in status, attempts, output" in text
    assert f"{SLOW}:" in text  # each change with its file:line


def test_R6_a_15s_timeout_passes_the_recorded_expectations() -> None:
    report = what_if(SLOW, {"manager": {"timeout": "15s"}})
    assert report.passed
    assert report.changes == ()
    assert "no expectation changed" in report.render()


def test_R6_a_whole_handoff_policy_replaces_the_agents_policy() -> None:
    policy = HandoffPolicy(timeout=10.0, max_retries=1, on_error="fallback_to_primary")
    report = what_if(SLOW, {"manager": policy})
    [handoff] = report.after.trace.handoffs()
    assert handoff.status == "fallback"
    assert report.policies["manager"]["timeout"] == 10.0


def test_R6_command_line_policy_options_print_the_changed_expectations(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["run", str(SLOW), *OPTIONS]) == 1
    out = capsys.readouterr().out
    assert "what-if manager: max_retries=1, timeout=10s, on_error=fallback_to_primary" in out
    assert "expect.elapsed: passed before, fails now" in out
    assert "expect.handoffs.0: passed before, fails now" in out


def test_R6_command_line_with_a_15s_timeout_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(SLOW), "--policy", "manager.timeout=15s"]) == 0
    assert "no expectation changed" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("option", "said"),
    [
        ("manager.timout=10s", "did you mean 'timeout'?"),
        ("manager.fallback=x", "did you mean on_error=fallback_to_primary?"),
        ("manager.max_retries=-1", "max_retries: Input should be greater than or equal to 0"),
        ("manager.timeout=soon", "invalid duration 'soon'"),
        ("timeout=10s", "expected AGENT.KEY=VALUE"),
        ("manager.max_retries=1000000000", "less than or equal to 100"),  # no hours of retries
        ("manager.timeout=100000000h", "at most"),
    ],
)
def test_R6_a_bad_policy_option_is_a_usage_error_naming_it(
    option: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", str(SLOW), "--policy", option]) == 2
    err = capsys.readouterr().err
    assert option in err
    assert said in err


def test_R6_a_policy_for_an_agent_the_recording_lacks_is_an_error_naming_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["run", str(SLOW), "--policy", "manger.timeout=1"]) == 2
    assert (
        "no agent 'manger' to set a policy on (did you mean 'manager'?)" in capsys.readouterr().err
    )
    with pytest.raises(ConfigurationError, match="no agent 'slo'"):
        what_if(SLOW, {"slo": {"timeout": 1}})


def test_R6_python_policies_are_checked_like_the_command_lines() -> None:
    with pytest.raises(PolicyError, match="'retries' is not a policy key"):
        what_if(SLOW, {"manager": {"retries": 1}})
    assert policy_options(["a.denied_tools=[x, y]"])["a"].denied_tools == ["x", "y"]


def test_R6_a_matrix_on_a_recording_runs_each_policy_variant() -> None:
    text = SLOW.read_text(encoding="utf-8") + (
        "matrix:\n"
        "  - id: fallback\n"
        "    policies:\n"
        "      manager: {timeout: 10s, max_retries: 1, on_error: fallback_to_primary}\n"
        "    expect:\n"
        "      elapsed: 22s\n"
        "      handoffs: [{tool: slow, status: fallback, reason: timeout, attempts: 2}]\n"
        "  - id: generous\n"
        "    policies:\n"
        "      manager: {timeout: 15s}\n"
    )
    variants = {s.variant: run_scenario(s) for s in load_text(text, SLOW)}
    assert variants["generous"].passed, variants["generous"].render_failure()
    assert variants["fallback"].passed, variants["fallback"].render_failure()


def test_R6_a_deny_list_leaves_the_unreached_sub_agents_steps_unused_without_failing() -> None:
    report = what_if(SLOW, {"manager": {"denied_tools": ["slow"], "on_denied": "report_to_model"}})
    assert report.after.error is None  # no UnusedRecordingError for the lane never reached
    [handoff] = report.after.trace.handoffs()
    assert (handoff.status, handoff.reason) == ("denied", "denied_tool")
    assert [c.expectation for c in report.broken] == ["expect.elapsed", "expect.handoffs.0"]


def _recorded_slow_run(path: Path) -> Path:
    """A recording written by record() around handoff-sim's own agents (with fingerprints)."""
    from handoff_sim import Agent, SubAgent, simulate
    from handoff_sim.recording import record
    from handoff_sim.testing import ScriptedModel

    slow = Agent(name="slow", model=ScriptedModel([{"text": "slow answer", "latency": 12}]))
    manager = Agent(
        name="manager",
        model=ScriptedModel(
            [
                {"tool_calls": [{"id": "c1", "name": "slow", "arguments": {"task": "look"}}]},
                {"text": "done", "latency": 0.5},
            ]
        ),
        subagents=[SubAgent(name="slow", description="slow one", agent=slow, tool_name="slow")],
    )
    with record(manager, path):
        simulate(manager, "look it up")
    return path


def test_R6_a_what_if_replay_matches_by_tool_names_as_the_callers_next_request_changes(
    tmp_path: Path,
) -> None:
    recording = _recorded_slow_run(tmp_path / "slow.yaml")
    policy = {"manager": {"timeout": "10s", "max_retries": 1}}
    by_tools = what_if(recording, policy)
    assert by_tools.after.outputs == ["done"]  # the manager's recorded answer, after the timeouts
    assert by_tools.after.trace.handoffs()[0].attempt_outcomes == ("timeout", "timeout")
    as_recorded = what_if(recording, policy, match=None)  # the file's own: fingerprints
    assert type(as_recorded.after.error).__name__ == "ReplayMismatchError"
    assert "the last message changed" in str(as_recorded.after.error)


def test_R6_a_policy_file_gives_the_policies_and_policy_options_set_keys_over_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    policies = tmp_path / "policies.yaml"
    policies.write_text("manager: {timeout: 15s, max_retries: 1}\n", encoding="utf-8")
    assert main(["run", str(SLOW), "--policy-file", str(policies)]) == 0
    assert "what-if manager: max_retries=1, timeout=15s: no expectation changed" in (
        capsys.readouterr().out
    )
    options = [
        "--policy",
        "manager.timeout=10s",
        "--policy",
        "manager.on_error=fallback_to_primary",
    ]
    assert main(["run", str(SLOW), "--policy-file", str(policies), *options]) == 1
    assert "expect.handoffs.0: passed before, fails now" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("manager: {timout: 10s}\n", "manager.timout: not a policy key (did you mean 'timeout'?)"),
        ("manager: {max_retries: many}\n", "manager: max_retries: Input should be a valid integer"),
        ("- manager\n", "expected a mapping of agent names to policy blocks"),
    ],
)
def test_R6_a_bad_policy_file_is_a_usage_error_naming_the_entry(
    content: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    policies = tmp_path / "policies.yaml"
    policies.write_text(content, encoding="utf-8")
    assert main(["run", str(SLOW), "--policy-file", str(policies)]) == 2
    err = capsys.readouterr().err
    assert f"--policy-file {policies}" in err
    assert said in err
