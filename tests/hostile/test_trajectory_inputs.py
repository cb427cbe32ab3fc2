"""Hostile input to trajectories and data-driven fakes: a regular expression that backtracks
for hours ends and fails at its line; names and arguments with control characters reach a
failure message escaped, never as terminal escapes."""

from __future__ import annotations

from pathlib import Path

import pytest

from handoff_sim import Trace, _patterns
from handoff_sim.scenarios import load_dict, load_file, render_failure, run_scenario
from handoff_sim.testing import NoFakeAnswerError
from pytest_handoff import HandoffAssertionError, assert_trajectory
from tests.hostile.test_bounded_patterns import ends

FILES = Path(__file__).parent / "files"


@pytest.fixture(autouse=True)
def fast_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_patterns, "MAX_PATTERN_SECONDS", 0.05)


def _scenario(name: str) -> object:
    loaded = load_file(FILES / "trajectory_catastrophic_regex.yaml")
    return next(s for s in loaded if s.name == name)


def test_a_backtracking_regex_in_a_trajectory_fails_the_trajectory_at_its_line() -> None:
    result = ends(lambda: run_scenario(_scenario("trajectory-regex-backtracks")))
    assert not result.passed
    (mismatch,) = result.mismatches
    assert mismatch.kind == "pattern"
    assert mismatch.field == "scenarios.0.expect.trajectory"
    assert "pattern '^(a|a)+$' took longer than" in mismatch.message


def test_a_backtracking_regex_in_a_fake_answer_ends_the_run_instead_of_answering() -> None:
    result = ends(lambda: run_scenario(_scenario("fake-answer-regex-backtracks")))
    assert isinstance(result.error, NoFakeAnswerError)
    assert "cannot be answered: pattern '^(a|a)+$' took longer than" in str(result.error)


def test_control_characters_in_a_trace_reach_a_trajectory_failure_escaped() -> None:
    trace = Trace.from_jsonl((FILES / "trajectory_control_characters.jsonl").read_text())
    with pytest.raises(HandoffAssertionError) as raised:
        assert_trajectory(trace, ["lookup"])
    message = str(raised.value)
    assert "\x1b" not in message
    assert "\x07" not in message
    assert "\u202e" not in message
    assert "sql\\x1b]0;pwned\\x07" in message
    assert "main\\x1b[2J" in message


def test_control_characters_in_a_scenario_trajectory_report_are_escaped() -> None:
    scenario = {
        "scenario": "escapes",
        "tools": {"sql": {"returns": "rows"}},
        "agents": {
            "main": {
                "tools": ["sql"],
                "model": {
                    "script": [
                        {
                            "tool_calls": [
                                {"name": "sql", "arguments": {"q": "\x1b[31mred\r\u2028"}}
                            ]
                        },
                        "done",
                    ]
                },
            }
        },
        "run": ["go"],
        "expect": {"trajectory": {"calls": ["lookup"]}},
    }
    (loaded,) = load_dict(scenario)
    report = render_failure(run_scenario(loaded))
    assert "\x1b" not in report
    assert "\u2028" not in report
    assert "\r" not in report
    assert '#1 sql {"q":"\\u001b[31mred\\r\\u2028"} by main (depth 0)' in report
