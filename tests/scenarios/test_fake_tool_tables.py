"""Fake tools written as tables in a scenario file: the first fitting answer wins, a
sequence plays faults at call N, a default serves the rest, nothing fitting ends the run;
a recording's answers are still each served once, in call order."""

from __future__ import annotations

from typing import Any

from handoff_sim.scenarios import load_dict, run_scenario
from handoff_sim.testing import NoFakeAnswerError


def _calling(tool: dict[str, Any], *arguments: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """A scenario whose agent calls ``sql`` once per ``arguments``, then answers done."""
    steps: list[object] = [{"tool_calls": [{"name": "sql", "arguments": a}]} for a in arguments]
    return {
        "scenario": "table",
        "tools": {"sql": tool},
        "agents": {"main": {"tools": ["sql"], "model": {"script": [*steps, "done"]}}},
        "run": ["go"],
        **extra,
    }


def _results(data: dict[str, Any]) -> list[str | None]:
    (scenario,) = load_dict(data)
    result = run_scenario(scenario)
    return [e.output for e in result.trace if e.type == "tool_end"]


OVERLAPPING = [
    {"arguments": {"subset": {"q": {"match": "refund"}}}, "returns": "specific"},
    {"arguments": {"subset": {"q": {"match": "."}}}, "returns": "general"},
]


def test_the_first_fitting_answer_wins_every_time_it_fits() -> None:
    data = _calling(
        {"answers": OVERLAPPING, "default": {"returns": "fallback"}},
        {"q": "refunds"},
        {"q": "refunds"},
        {"q": "other"},
        {},
    )
    assert _results(data) == ["specific", "specific", "general", "fallback"]


def test_a_recordings_answers_are_each_served_once_in_call_order() -> None:
    answers = [
        {"arguments": {"q": "refunds"}, "returns": "first"},
        {"arguments": {"q": "refunds"}, "returns": "second"},
    ]
    recorded = {"format": 1, "tools": "recorded"}
    data = _calling({"answers": answers}, {"q": "refunds"}, {"q": "refunds"}, recorded=recorded)
    assert _results(data) == ["first", "second"]
    hand_written = _calling({"answers": answers}, {"q": "refunds"}, {"q": "refunds"})
    assert _results(hand_written) == ["first", "first"]


def test_arguments_written_as_json_text_fit_the_calls_mapping() -> None:
    data = _calling({"answers": [{"arguments": '{"q": "x"}', "returns": "text-fit"}]}, {"q": "x"})
    assert _results(data) == ["text-fit"]


def test_faults_at_call_n_are_what_the_model_sees_for_that_call() -> None:
    tool = {
        "sequence": [
            None,
            {"raises": {"type": "PermissionError", "message": "no access"}},
            {"rate_limit": {"message": "slow down", "retry_after": "2s"}},
            {"malformed": "<html>502</html>"},
            {"returns": "late", "latency": "3s"},
        ],
        "default": {"returns": "fine"},
    }
    data = _calling(tool, *({"n": n} for n in range(6)))
    (scenario,) = load_dict(data)
    result = run_scenario(scenario)
    ends = [(e.status, e.output) for e in result.trace if e.type == "tool_end"]
    assert ends == [
        ("ok", "fine"),
        ("error", "Error: PermissionError: no access"),
        ("error", "Error: SimulatedRateLimitError: slow down"),
        ("ok", "<html>502</html>"),
        ("ok", "late"),
        ("ok", "fine"),
    ]
    assert result.elapsed_ms == 3000


def test_a_call_nothing_fits_ends_the_run_and_a_scenario_may_expect_it() -> None:
    tool = {"answers": [{"arguments": {"q": "a"}, "returns": "A"}]}
    data = _calling(tool, {"q": "b"})
    (scenario,) = load_dict(data)
    result = run_scenario(scenario)
    assert isinstance(result.error, NoFakeAnswerError)
    assert str(result.error) == (
        'fake \'sql\': call 1 with arguments {"q":"b"} fits no answer and there is no '
        "default (add an answer for it, or a default)"
    )
    expected = _calling(tool, {"q": "b"}, expect={"error": {"type": "NoFakeAnswerError"}})
    (scenario,) = load_dict(expected)
    assert run_scenario(scenario).passed


def test_a_sequence_without_a_default_refuses_the_call_after_its_end() -> None:
    data = _calling({"sequence": [{"returns": "only"}]}, {}, {})
    (scenario,) = load_dict(data)
    result = run_scenario(scenario)
    assert isinstance(result.error, NoFakeAnswerError)
    assert "call 2" in str(result.error)


def test_tool_runs_count_only_the_runs_whose_arguments_fit() -> None:
    runs = {"sql": {"count": 2, "arguments": {"subset": {"q": {"contains": "refund"}}}}}
    data = _calling(
        {"default": {"returns": "rows"}},
        {"q": "refunds"},
        {"q": "invoices"},
        {"q": "refund 7"},
        expect={"tool_runs": runs},
    )
    (scenario,) = load_dict(data)
    assert run_scenario(scenario).passed


def test_under_a_real_clock_a_table_has_small_latencies_and_no_call_that_never_answers() -> None:
    from handoff_sim.scenarios import ScenarioFileError, load_text

    text = (
        "scenario: rc\nclock: real\ntools:\n  sql:\n"
        "    sequence: [{timeout: true}, {returns: x, latency: 2s}]\n"
        "    default: {returns: y, latency: 5ms}\n"
        "agents:\n  main: {tools: [sql], model: {script: [done]}}\nrun: [go]\n"
    )
    try:
        load_text(text, "rc.yaml")
    except ScenarioFileError as error:
        found = [f"{p.line}:{p.column}: {p.field}: {p.message}" for p in error.problems]
    assert found == [
        "5:17: tools.sql.sequence.0.timeout: a call that never answers: not under clock: real",
        "5:46: tools.sql.sequence.1.latency: must be <= 1s under clock: real "
        "(a real run waits for it)",
    ]
