"""T4: each assertion helper passes on the behaviour it names and fails with a message
that says which handoff (id, agent, sub-agent, tool) did what instead."""

from __future__ import annotations

import re

import pytest

from handoff_sim import Agent, RunResult, SubAgent, Trace, simulate
from handoff_sim.testing import ScriptedModel
from pytest_handoff import (
    AgentBuilder,
    HandoffAssertionError,
    assert_denied,
    assert_depth_exceeded,
    assert_duplicate_tool_names,
    assert_fallback_unavailable,
    assert_handoffs_balanced,
    assert_normalized_name,
    assert_ran_in_parallel,
    assert_retry_count,
    assert_timeout_per_attempt,
)


def fails_with(message: str) -> pytest.RaisesExc[HandoffAssertionError]:
    return pytest.raises(HandoffAssertionError, match=f"^{re.escape(message)}$")


def one_handoff(build: AgentBuilder, child_script: list[object], **policy: object) -> RunResult:
    """manager hands ``review`` to reviewer (call c1) under ``policy``."""
    reviewer = build("reviewer", child_script)
    manager = build(
        "manager",
        [build.delegate("subagent_reviewer", "review", id="c1"), "done"],
        subagents=[reviewer],
        policy=policy,
    )
    return simulate(manager, "go")


@pytest.fixture
def completed(agent_builder: AgentBuilder) -> RunResult:
    return one_handoff(agent_builder, ["LGTM"])


@pytest.fixture
def denied(agent_builder: AgentBuilder) -> RunResult:
    return one_handoff(
        agent_builder, ["LGTM"], denied_tools={"subagent_reviewer"}, on_denied="report_to_model"
    )


COMPLETED = (
    "\n  - handoff:c1 (manager → reviewer via subagent_reviewer) ended status=completed "
    "attempts=1 at depth 1"
)


def test_t4_assert_denied(denied: RunResult, completed: RunResult) -> None:
    record = assert_denied(denied, "subagent_reviewer", reason="denied_tool")
    assert record.handoff_id == "handoff:c1"
    assert_denied(denied.trace)
    with fails_with(
        "expected handoff via subagent_reviewer to be denied with reason=not_allowed, but it "
        "was denied for another reason:\n  - handoff:c1 (manager → reviewer via "
        "subagent_reviewer) was denied with reason=denied_tool (tool is in denied_tools)"
    ):
        assert_denied(denied, "subagent_reviewer", reason="not_allowed")
    with fails_with(
        "expected handoff via subagent_reviewer to be denied, but no handoff was denied:"
        + COMPLETED
    ):
        assert_denied(completed, "subagent_reviewer")
    with fails_with(
        "assert_denied: no handoff via subagent_other in the trace; handoffs:" + COMPLETED
    ):
        assert_denied(completed, "subagent_other")


def test_t4_assert_denied_rejects_an_unknown_reason(denied: RunResult) -> None:
    with pytest.raises(ValueError, match="reason must be one of not_allowed, denied_tool"):
        assert_denied(denied, reason="timeout")


def test_t4_assert_depth_exceeded(agent_builder: AgentBuilder, completed: RunResult) -> None:
    build = agent_builder
    grand = build("grand", ["deep"])
    child = build(
        "child",
        [build.delegate("subagent_grand", "deeper", id="c2"), "child done"],
        subagents=[grand],
        policy={"on_denied": "report_to_model"},
    )
    top = build(
        "top", [build.delegate("subagent_child", "go", id="c1"), "top done"], subagents=[child]
    )
    result = simulate(top, "go")
    assert assert_depth_exceeded(result, "subagent_grand", depth=2, max_depth=1).agent == "child"
    with fails_with(
        "expected a handoff via subagent_grand to exceed max_depth as specified, but:\n  - "
        "handoff:c2 (child → grand via subagent_grand) was denied at depth 2 "
        "(handoff depth 2 exceeds max_depth 1), expected depth 3"
    ):
        assert_depth_exceeded(result, "subagent_grand", depth=3)
    with fails_with(
        "expected a handoff to be denied for exceeding max_depth, but none was:" + COMPLETED
    ):
        assert_depth_exceeded(completed)


def test_t4_assert_retry_count(agent_builder: AgentBuilder, denied: RunResult) -> None:
    result = one_handoff(agent_builder, [{"error": "boom"}, "fixed"], max_retries=2)
    assert [r.attempts for r in assert_retry_count(result, "subagent_reviewer", 1)] == [2]
    with fails_with(
        "expected 0 retries (1 attempt) per handoff via subagent_reviewer, but:\n  - "
        "handoff:c1 (manager → reviewer via subagent_reviewer) made 2 attempts (error, ok) "
        "= 1 retry"
    ):
        assert_retry_count(result, "subagent_reviewer", 0)
    with fails_with(
        "expected 0 retries (1 attempt) per handoff via subagent_reviewer, but:\n  - "
        "handoff:c1 (manager → reviewer via subagent_reviewer) made no attempt: ended "
        "status=denied reason=denied_tool attempts=0 at depth 1 (tool is in denied_tools)"
    ):
        assert_retry_count(denied, "subagent_reviewer", 0)


def test_t4_assert_timeout_per_attempt(agent_builder: AgentBuilder, completed: RunResult) -> None:
    slow = [{"text": "late", "latency": 10}, {"text": "late", "latency": 10}]
    result = one_handoff(agent_builder, slow, max_retries=1, timeout="5s")
    assert [e.attempt for e in assert_timeout_per_attempt(result, "subagent_reviewer", 5)] == [1, 2]
    assert_timeout_per_attempt(result, "subagent_reviewer", "5000ms")
    with fails_with(
        "per-attempt timeout of 4000 ms not honoured:\n"
        "  - handoff:c1 (manager → reviewer via subagent_reviewer) attempt 1 timed out after "
        "5000 ms, expected exactly 4000 ms\n"
        "  - handoff:c1 (manager → reviewer via subagent_reviewer) attempt 2 timed out after "
        "5000 ms, expected exactly 4000 ms"
    ):
        assert_timeout_per_attempt(result, "subagent_reviewer", "4s")
    with fails_with(
        "expected an attempt of a handoff via subagent_reviewer to time out after 6000 ms, but "
        "none timed out:\n  - handoff:c1 (manager → reviewer via subagent_reviewer) attempt 1 "
        "ended ok after 0 ms"
    ):
        assert_timeout_per_attempt(completed, "subagent_reviewer", 6)


def test_t4_assert_fallback_unavailable(agent_builder: AgentBuilder, completed: RunResult) -> None:
    result = one_handoff(
        agent_builder, ["LGTM"], denied_tools={"subagent_reviewer"}, on_denied="fallback_to_primary"
    )
    assert assert_fallback_unavailable(result, "subagent_reviewer", why="denied").attempts == 0
    with fails_with(
        "expected a handoff via subagent_reviewer to end unavailable as specified, but:\n  - "
        'handoff:c1 (manager → reviewer via subagent_reviewer) gave the model "handoff '
        "unavailable: subagent tool subagent_reviewer was denied (tool is in denied_tools) and "
        "no primary tool executor serves it (Tool 'subagent_reviewer' not found)\", expected "
        "the handoff to have been failed"
    ):
        assert_fallback_unavailable(result, "subagent_reviewer", why="failed")
    with fails_with(
        "expected a handoff via subagent_reviewer to end unavailable (fallback with no primary "
        "tool), but:" + COMPLETED
    ):
        assert_fallback_unavailable(completed, "subagent_reviewer")


def test_t4_assert_handoffs_balanced(completed: RunResult) -> None:
    assert assert_handoffs_balanced(completed) == 1
    no_end = Trace([e for e in completed.trace if e.type != "handoff_end"])
    with fails_with(
        "handoff events are unbalanced (1 problem):\n  - handoff:c1 (manager via "
        "subagent_reviewer): started at seq 5 (0 ms) and has no handoff_end"
    ):
        assert_handoffs_balanced(no_end)
    no_attempt_end = Trace([e for e in completed.trace if e.type != "handoff_attempt_end"])
    with fails_with(
        "handoff events are unbalanced (1 problem):\n  - handoff:c1 (manager via "
        "subagent_reviewer) attempt 1: started at seq 6 and has no handoff_attempt_end"
    ):
        assert_handoffs_balanced(no_attempt_end)


def fan_out(build: AgentBuilder, latency: float, *, parallel: bool) -> RunResult:
    a = build("a", [{"text": "A", "latency": latency}])
    b = build("b", [{"text": "B", "latency": latency}])
    calls = [
        {"id": "c1", "name": "subagent_a", "arguments": {"task": "x"}},
        {"id": "c2", "name": "subagent_b", "arguments": {"task": "y"}},
    ]
    parent = build(
        "p", [{"tool_calls": calls}, "done"], subagents=[a, b], parallel_tool_calls=parallel
    )
    return simulate(parent, "go")


def test_t4_assert_ran_in_parallel(agent_builder: AgentBuilder) -> None:
    assert len(assert_ran_in_parallel(fan_out(agent_builder, 1, parallel=True))) == 2
    assert_ran_in_parallel(fan_out(agent_builder, 1, parallel=True), "subagent_a", "handoff:c2")
    with fails_with(
        "handoffs did not run in parallel, one waited for another:\n  - handoff:c2 (p → b via "
        "subagent_b) started at seq 15 (1000 ms) after handoff:c1 (p → a via subagent_a) had "
        "ended at seq 12 (1000 ms)"
    ):
        assert_ran_in_parallel(fan_out(agent_builder, 1, parallel=False))
    with pytest.raises(HandoffAssertionError, match="every one took 0 ms of virtual time"):
        assert_ran_in_parallel(fan_out(agent_builder, 0, parallel=True))
    with pytest.raises(HandoffAssertionError, match="needs at least two handoffs, found 1"):
        assert_ran_in_parallel(fan_out(agent_builder, 1, parallel=True), "subagent_a")


def test_t4_assert_duplicate_tool_names() -> None:
    worker = Agent("worker", ScriptedModel([]))
    model = ScriptedModel([])
    clash = [SubAgent("code-reviewer", "", worker), SubAgent("code reviewer", "", worker)]
    error = assert_duplicate_tool_names(
        Agent, "p", model, subagents=clash, duplicate="subagent_code_reviewer"
    )
    assert str(error) == "duplicate subagent tool name: subagent_code_reviewer"
    with fails_with(
        "Agent('p', <ScriptedModel>, subagents=[SubAgent(name='code-reviewer', tool_nam…, "
        "SubAgent(name='code reviewer', tool_nam…]) raised DuplicateToolNameError for "
        "'subagent_code_reviewer', expected 'subagent_other'"
    ):
        assert_duplicate_tool_names(Agent, "p", model, subagents=clash, duplicate="subagent_other")
    with fails_with(
        "Agent('p', <ScriptedModel>, subagents=[SubAgent(name='code-reviewer', tool_nam…]) "
        "built Agent(name='p') without raising DuplicateToolNameError; its tools: "
        "subagent_code_reviewer"
    ):
        assert_duplicate_tool_names(Agent, "p", model, subagents=clash[:1])
    with fails_with(
        "Agent('', <ScriptedModel>) raised InvalidNameError: agent name is required, "
        "expected DuplicateToolNameError"
    ):
        assert_duplicate_tool_names(Agent, "", model)


def test_t4_assert_normalized_name() -> None:
    assert (
        assert_normalized_name("Résumé Writer", "subagent_r_sum_writer") == "subagent_r_sum_writer"
    )
    assert_normalized_name(
        SubAgent("3d-modeler", "", Agent("x", ScriptedModel([]))), "subagent_agent_3d_modeler"
    )
    with fails_with(
        "normalize_tool_name('Résumé Writer') is 'subagent_r_sum_writer', expected "
        "'subagent_resume_writer' (first difference at index 10)"
    ):
        assert_normalized_name("Résumé Writer", "subagent_resume_writer")


def test_t4_helpers_reject_what_has_no_trace() -> None:
    with pytest.raises(
        TypeError, match=r"assert_denied\(\) takes a Trace or an object with a \.trace"
    ):
        assert_denied("not a trace")


def test_t4_helper_failure_reads_cleanly_in_a_test_report(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        from handoff_sim import simulate
        from pytest_handoff import assert_denied

        def test_denied(agent_builder):
            reviewer = agent_builder("reviewer", ["LGTM"])
            manager = agent_builder(
                "manager",
                [agent_builder.delegate("subagent_reviewer", "x", id="c1"), "done"],
                subagents=[reviewer],
            )
            assert_denied(simulate(manager, "go"), "subagent_reviewer")
        """
    )
    result = pytester.runpytest_inprocess()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "E * pytest_handoff.HandoffAssertionError: expected handoff via "
            "subagent_reviewer to be denied, but no handoff was denied:",
            "E *  - handoff:c1 (manager → reviewer via subagent_reviewer) ended "
            "status=completed attempts=1 at depth 1",
        ]
    )
    assert "def _fail" not in result.stdout.str()
