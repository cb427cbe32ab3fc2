"""Y2, T2: every kind of expectation fails when it should, at the file:line of the expectation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from handoff_sim.scenarios import ScenarioResult, load_file, render_failure, run_scenario
from handoff_sim.scenarios._expect import Mismatch

from ._util import delegation, write

PARALLEL = """
    scenario: parallel
    agents:
      manager:
        parallel_tool_calls: true
        model:
          script:
            - tool_calls:
                - {id: a, name: delegate_a, arguments: {task: x}}
                - {id: b, name: delegate_b, arguments: {task: y}}
            - text: done
        subagents:
          - {agent: wa, tool_name: delegate_a}
          - {agent: wb, tool_name: delegate_b}
      wa: {model: {script: [{text: a-out, latency: 2s}]}}
      wb: {model: {script: [{text: b-out, latency: 1s}]}}
    run: [go]
    expect:
      trace:
        match: MODE
        events:
          - {type: handoff_start, call_id: a}
          - {type: handoff_end, call_id: a, status: completed}
          - {type: handoff_start, call_id: b}
          - {type: handoff_end, call_id: b, status: completed}
"""


def _run(**expect: Any) -> ScenarioResult:
    return run_scenario(delegation(expect=expect))


def _only(result: ScenarioResult) -> Mismatch:
    assert not result.passed
    [mismatch] = result.mismatches
    return mismatch


def test_matching_expectations_pass() -> None:
    result = _run(
        output="done",
        handoffs=[
            {"tool": "delegate_review", "status": "completed", "reason": None, "attempts": 1}
        ],
        trace=[{"type": "handoff_end", "output": "lgtm", "duration_ms": "1s", "t": 1}],
        elapsed="1s",
    )
    assert result.passed, render_failure(result)


def test_output_mismatch_exact_and_regex() -> None:
    mismatch = _only(_run(output="nope"))
    assert (mismatch.kind, mismatch.field, mismatch.expected, mismatch.actual) == (
        "output", "expect.output", "nope", "done",
    )  # fmt: skip
    assert _run(output={"match": "^do"}).passed
    assert not _run(output={"match": "^x"}).passed


def test_expected_error_that_never_came_is_a_mismatch() -> None:
    mismatch = _only(_run(error={"type": "HandoffDeniedError"}))
    assert (mismatch.kind, mismatch.field) == ("error", "expect.error")


def test_error_type_matches_the_class_or_a_base_class_and_the_message_by_regex() -> None:
    data = delegation(expect={"error": {"type": "RunError", "match": r"handoff depth 2"}})
    data["agents"]["reviewer"] = {
        "model": {
            "script": [{"tool_calls": [{"name": "subagent_leaf", "arguments": {"task": "t"}}]}]
        },
        "subagents": ["leaf"],
    }
    data["agents"]["leaf"] = {"model": {"script": ["x"]}}
    assert run_scenario(data).passed
    data["expect"] = {"error": {"type": "ValueError", "match": "nothing like it"}}
    fields = [m.field for m in run_scenario(data).mismatches]
    assert fields == ["expect.error.type", "expect.error.match"]


def test_an_unexpected_error_is_always_a_mismatch() -> None:
    data = delegation(agents={"bot": {"model": {"script": []}}})
    mismatch = _only(run_scenario(data))
    assert mismatch.kind == "error"
    assert "ScriptExhaustedError" in mismatch.format()


def test_handoff_summaries_compare_only_the_given_fields_in_order() -> None:
    assert _run(handoffs=[{"status": "completed"}]).passed
    mismatch = _only(_run(handoffs=[{"tool": "delegate_review", "attempts": 2, "depth": 1}]))
    assert mismatch.field == "expect.handoffs.0"
    assert "attempts" in mismatch.message
    assert "depth" not in mismatch.message
    assert mismatch.expected == {"tool": "delegate_review", "attempts": 2, "depth": 1}


def test_handoff_count_must_match() -> None:
    mismatch = _only(_run(handoffs=[{"status": "completed"}, {"status": "completed"}]))
    assert mismatch.message == "expected 2 handoff(s), got 1"


def test_elapsed_is_compared_in_virtual_time() -> None:
    mismatch = _only(_run(elapsed="2s"))
    assert (mismatch.kind, mismatch.expected, mismatch.actual) == ("elapsed", "2s", "1s")
    assert mismatch.format().endswith("expected: 2s\n    actual:   1s")


def test_a_handoff_duration_differs_in_the_unit_it_was_written_in() -> None:
    mismatch = _only(_run(handoffs=[{"tool": "delegate_review", "duration": 1.5}]))
    assert 'expected: {"tool": "delegate_review", "duration": "1.5s"}' in mismatch.format()
    assert '"duration": "1s"}' in mismatch.format()
    assert "duration_ms" not in mismatch.format()
    mismatch = _only(_run(handoffs=[{"tool": "delegate_review", "duration_ms": 250}]))
    assert 'expected: {"tool": "delegate_review", "duration_ms": 250}' in mismatch.format()
    assert '"duration_ms": 1000}' in mismatch.format()
    assert '"duration"' not in mismatch.format()


def test_a_handoff_count_mismatch_shows_durations_with_their_unit() -> None:
    mismatch = _run(handoffs=[{"duration": "90s"}, {"duration": "2h"}]).mismatches[0]
    assert '[{"duration": "90s"}, {"duration": "2h"}]' in mismatch.format()
    assert '"duration": "1s"}]' in mismatch.format()


def test_a_trace_pattern_time_in_seconds_is_shown_with_its_unit() -> None:
    result = _run(trace=[{"type": "run_end", "t": 3}, {"type": "run_end", "t": "250ms"}])
    text = render_failure(result)
    assert '✗ 0: {"type": "run_end", "t": "3s"}' in text
    assert '· 1: {"type": "run_end", "t": "250ms"}' in text


def test_turn_expectations_point_at_their_turn() -> None:
    data = delegation(run=[{"input": "go", "expect": {"output": "wrong"}}])
    mismatch = _only(run_scenario(data))
    assert mismatch.field == "run.0.expect.output"


def test_exact_trace_requires_every_event_one_for_one() -> None:
    types = ["handoff_start", "handoff_end"]
    good = [{"type": "handoff_start"}, {"type": "handoff_end"}]
    assert _run(trace={"match": "exact", "types": types, "events": good}).passed
    mismatch = _only(_run(trace={"match": "exact", "types": types, "events": good[:1]}))
    assert "unexpected extra event 1" in mismatch.message
    assert mismatch.field == "expect.trace.events"
    mismatch = _only(_run(trace={"match": "exact", "events": good}))
    assert "event 0" in mismatch.message
    assert mismatch.field == "expect.trace.events.0"


@pytest.mark.parametrize(("mode", "passes"), [("per_branch", True), ("subsequence", False)])
def test_per_branch_ignores_interleaving_across_parallel_branches(
    tmp_path: Path, mode: str, passes: bool
) -> None:
    """b ends before a does; per branch the order still holds, as one sequence it does not."""
    [scenario] = load_file(write(tmp_path, PARALLEL.replace("MODE", mode)))
    result = run_scenario(scenario)
    assert result.passed is passes, render_failure(result)


def test_per_branch_still_checks_order_within_a_branch(tmp_path: Path) -> None:
    text = PARALLEL.replace("MODE", "per_branch").replace(
        "- {type: handoff_start, call_id: a}\n",
        "- {type: handoff_end, call_id: a}\n          - {type: handoff_start, call_id: a}\n",
        1,
    )
    [scenario] = load_file(write(tmp_path, text))
    mismatch = _only(run_scenario(scenario))
    assert mismatch.kind == "trace"
    assert "within any branch" in mismatch.message


def test_mismatch_points_at_the_line_of_the_failing_expectation(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        scenario: lines
        agents:
          manager:
            model: {script: [done]}
        run: [go]
        expect:
          trace:
            - {type: run_start}
            - {type: run_end, output: not-done}
        """,
    )
    [scenario] = load_file(path)
    mismatch = _only(run_scenario(scenario))
    assert (mismatch.field, mismatch.line) == ("expect.trace.1", 9)
    assert mismatch.format(str(path)).startswith(f"{path}:9: expect.trace.1: ")


def test_render_failure_shows_location_expected_events_tree_and_listing(tmp_path: Path) -> None:
    """T2: a readable diff — expected events, the actual trace as a tree, the failing line."""
    [scenario] = load_file(write(tmp_path, PARALLEL.replace("MODE", "subsequence")))
    result = run_scenario(scenario)
    report = render_failure(result)
    assert f"scenario parallel failed (1 mismatch(es)) — {scenario.path}:1" in report
    assert f"{scenario.path}:23: expect.trace.events.2: " in report
    assert '    ✓ 1: {"type": "handoff_end", "call_id": "a", "status": "completed"}' in report
    assert '    ✗ 2: {"type": "handoff_start", "call_id": "b"}' in report
    assert "├─ manager → wa via delegate_a [handoff:a] status=completed" in report
    assert result.trace.render().rstrip("\n") in report
    assert "Traceback" not in report


def test_unbalanced_handoff_events_always_fail() -> None:
    """E3 is checked for every scenario, whatever the runtime."""
    from handoff_sim.events import HandoffStartEvent
    from handoff_sim.scenarios import ScenarioRun
    from handoff_sim.trace import Trace

    start = HandoffStartEvent(
        seq=1, t=0.0, agent="m", depth=1, run_id="run-1", handoff_id="handoff:x",
        parent_handoff_id=None, call_id="x", tool="t", subagent="s",
        session_mode="new_session", session_id=None,
    )  # fmt: skip

    class Leaky:
        def run(self, scenario: object, *, observers: object) -> ScenarioRun:
            return ScenarioRun(Trace([start]), ["done"], None, 0.0)

    mismatch = _only(run_scenario(delegation(), runtime=Leaky()))
    assert mismatch.kind == "balance"
    assert "handoff_start without handoff_end" in mismatch.message
