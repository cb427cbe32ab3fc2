"""S7–S10: the lifecycle of one handoff, its messages and what each FailureAction does."""

from __future__ import annotations

from typing import Any

import pytest

from handoff_sim import (
    Agent,
    FailureAction,
    HandoffDeniedError,
    HandoffPolicy,
    SubAgent,
    Tool,
    ToolCall,
    simulate,
)
from handoff_sim.events import HandoffAttemptEndEvent, HandoffAttemptStartEvent
from handoff_sim.testing import ScriptedModel
from tests._helpers import (
    RecordingExecutor,
    call,
    delegate,
    ends,
    leaf,
    parent_of,
    recording_filter,
    run_raising,
    starts,
    tool_results,
    turn,
)

FAIL, FALLBACK, REPORT = (
    FailureAction.FAIL,
    FailureAction.FALLBACK_TO_PRIMARY,
    FailureAction.REPORT_TO_MODEL,
)


def _writer_parent(policy: HandoffPolicy, **options: Any) -> tuple[Agent, Agent]:
    """A parent that delegates once to ``delegate_writer``; returns (parent, child)."""
    child = leaf("writer", {"text": "writer-ok"})
    sub = SubAgent("writer", agent=child, tool_name="delegate_writer")
    parent = parent_of([sub], turn(delegate("delegate_writer", id="c1")), policy=policy, **options)
    return parent, child


def _failing_parent(policy: HandoffPolicy, *errors: str, **options: Any) -> tuple[Agent, Agent]:
    """A parent whose child's model raises ``errors`` one call after another."""
    child = leaf("writer", *({"error": e} for e in errors))
    sub = SubAgent("writer", agent=child, tool_name="delegate_writer")
    parent = parent_of([sub], turn(delegate("delegate_writer", id="c1")), policy=policy, **options)
    return parent, child


def _calls(agent: Agent) -> int:
    assert isinstance(agent.model, ScriptedModel)
    return len(agent.model.requests)


# --- S7: order of the lifecycle -------------------------------------------------------------


def test_s7_handoff_start_comes_before_admission_and_end_after_it() -> None:
    parent, child = _writer_parent(
        HandoffPolicy(denied_tools={"delegate_writer"}, on_denied=REPORT)
    )
    trace = simulate(parent, "go").trace
    kinds = [e.type for e in trace if e.type.startswith("handoff")]
    assert kinds == ["handoff_start", "handoff_end"]
    assert _calls(child) == 0


def test_s7_denial_comes_before_the_input_filter_and_any_attempt() -> None:
    seen: list[ToolCall] = []
    policy = HandoffPolicy(
        allowed_tools={"delegate_other"},
        on_denied=REPORT,
        input_filter=recording_filter(seen),
    )
    parent, _ = _writer_parent(policy)
    trace = simulate(parent, "go").trace
    assert seen == []
    assert trace.of_type(HandoffAttemptStartEvent) == []


def test_s7_input_filter_rewrites_the_delegated_arguments() -> None:
    policy = HandoffPolicy(
        input_filter=lambda c: ToolCall(c.id, c.name, '{"task":"filtered"}'),
    )
    parent, child = _writer_parent(policy)
    simulate(parent, "go")
    assert isinstance(child.model, ScriptedModel)
    assert child.model.requests[0].messages[-1].content == "filtered"


def test_s7_input_filter_returning_none_keeps_the_original_call() -> None:
    seen: list[ToolCall] = []
    parent, child = _writer_parent(HandoffPolicy(input_filter=recording_filter(seen)))
    simulate(parent, "go")
    assert [c.id for c in seen] == ["c1"]
    assert isinstance(child.model, ScriptedModel)
    assert child.model.requests[0].messages[-1].content == "x"


def test_s7_input_filter_that_raises_ends_the_handoff_with_a_failed_result() -> None:
    """SPEC is silent; the runtime reports the filter's error to the model and ends the handoff."""

    def broken(call: ToolCall) -> ToolCall:
        raise RuntimeError("filter broke")

    parent, child = _writer_parent(HandoffPolicy(input_filter=broken))
    result = simulate(parent, "go")
    [record] = result.trace.handoffs()
    assert record.status == "failed"
    assert _calls(child) == 0
    assert tool_results(result.messages)[0].content == "Error: RuntimeError: filter broke"


def test_s7_failed_attempts_are_retried_immediately() -> None:
    child = leaf("writer", *({"error": f"boom-{i}", "latency": 1.5} for i in range(3)))
    sub = SubAgent("writer", agent=child, tool_name="delegate_writer")
    policy = HandoffPolicy(max_retries=2)
    trace = simulate(parent_of([sub], turn(delegate("delegate_writer")), policy=policy), "go").trace
    attempt_starts = [e.t for e in trace.of_type(HandoffAttemptStartEvent)]
    attempt_ends = [e.t for e in trace.of_type(HandoffAttemptEndEvent)]
    assert attempt_starts == [0.0, 1.5, 3.0]
    assert attempt_ends == [1.5, 3.0, 4.5]
    assert _calls(child) == 3


def test_s7_a_timed_out_attempt_is_retried() -> None:
    child = leaf("writer", {"text": "late", "latency": 10}, {"text": "on-time", "latency": 1})
    sub = SubAgent("writer", agent=child, tool_name="delegate_writer")
    parent = parent_of(
        [sub], turn(delegate("delegate_writer")), policy=HandoffPolicy(timeout=5, max_retries=1)
    )
    result = simulate(parent, "go")
    [record] = result.trace.handoffs()
    assert (record.status, record.attempts, record.output) == ("completed", 2, "on-time")
    assert record.attempt_outcomes == ("timeout", "ok")
    assert record.duration_ms == 6000


def test_s7_a_nested_denial_is_never_retried() -> None:
    grandchild = leaf("leaf")
    child = Agent(
        name="child",
        model=ScriptedModel([turn(delegate("subagent_leaf"))] * 3 + [{"text": "never"}]),
        subagents=[SubAgent("leaf", agent=grandchild)],
        handoff_policy=HandoffPolicy(allowed_tools={"other"}),
    )
    parent = parent_of(
        [SubAgent("child", agent=child)],
        turn(delegate("subagent_child")),
        policy=HandoffPolicy(max_retries=2, max_depth=0),
    )
    _, trace = run_raising(parent, HandoffDeniedError)
    assert _calls(child) == 1
    outer = [e for e in ends(trace) if e.tool == "subagent_child"]
    assert [(e.status, e.attempts) for e in outer] == [("failed", 1)]


def test_s7_disabled_policy_skips_admission_filter_retries_and_fallback() -> None:
    filtered: list[ToolCall] = []
    primary = RecordingExecutor()
    policy = HandoffPolicy(
        enabled=False,
        denied_tools={"delegate_writer"},
        max_depth=1,
        max_retries=3,
        on_error=FALLBACK,
        input_filter=recording_filter(filtered),
    )
    parent, child = _failing_parent(policy, "boom", "boom", tool_executor=primary)
    result = simulate(parent, "go")
    [record] = result.trace.handoffs()
    assert (record.status, record.attempts) == ("failed", 1)
    assert _calls(child) == 1
    assert filtered == []
    assert primary.calls == []
    assert tool_results(result.messages)[0].is_error


def test_s7_disabled_policy_still_runs_a_listed_tool_and_tracks_depth() -> None:
    policy = HandoffPolicy(enabled=False, denied_tools={"delegate_writer"}, max_depth=1)
    parent, _ = _writer_parent(policy)
    result = simulate(parent, "go")
    [record] = result.trace.handoffs()
    assert (record.status, record.depth, record.output) == ("completed", 1, "writer-ok")
    assert [e.type for e in result.trace if e.type.startswith("handoff_")] == [
        "handoff_start",
        "handoff_attempt_start",
        "handoff_attempt_end",
        "handoff_end",
    ]


def test_s7_disabled_policy_keeps_the_per_attempt_timeout() -> None:
    child = leaf("writer", {"text": "late", "latency": 60})
    sub = SubAgent("writer", agent=child, tool_name="delegate_writer")
    policy = HandoffPolicy(enabled=False, timeout=2, max_retries=5)
    result = simulate(parent_of([sub], turn(delegate("delegate_writer")), policy=policy), "go")
    [record] = result.trace.handoffs()
    assert (record.status, record.reason, record.attempts) == ("failed", "timeout", 1)
    assert record.duration_ms == 2000


# --- S8: messages ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("policy", "code", "reason"),
    [
        (
            HandoffPolicy(allowed_tools={"delegate_other"}),
            "not_allowed",
            "tool is not in allowed_tools",
        ),
        (HandoffPolicy(denied_tools={"delegate_writer"}), "denied_tool", "tool is in denied_tools"),
    ],
)
def test_s8_denial_message_names_tool_and_reason(
    policy: HandoffPolicy, code: str, reason: str
) -> None:
    parent, _ = _writer_parent(policy)
    error, _ = run_raising(parent, HandoffDeniedError)
    assert str(error) == f"handoff denied for subagent tool delegate_writer: {reason}"
    assert (error.tool, error.reason, error.detail) == ("delegate_writer", code, reason)


def test_s8_max_depth_denial_message_names_depth_and_limit() -> None:
    middle = Agent(
        name="middle",
        model=ScriptedModel([turn(delegate("delegate_leaf"))]),
        subagents=[SubAgent("leaf", agent=leaf("leaf"), tool_name="delegate_leaf")],
        handoff_policy=HandoffPolicy(max_depth=1),
    )
    parent = parent_of([SubAgent("middle", agent=middle)], turn(delegate("subagent_middle")))
    error, _ = run_raising(parent, HandoffDeniedError)
    assert str(error) == (
        "handoff denied for subagent tool delegate_leaf: handoff depth 2 exceeds max_depth 1"
    )


@pytest.mark.parametrize(
    ("timeout", "ms"),
    [(0.25, "250"), (1.5, "1500"), (30, "30000"), (0.07, "70"), ("70ms", "70"), (0.29, "290")],
)
def test_s8_timeout_message_names_tool_and_milliseconds(timeout: float | str, ms: str) -> None:
    child = leaf("writer", {"text": "late", "latency": 3600})
    sub = SubAgent("writer", agent=child, tool_name="delegate_writer")
    policy = HandoffPolicy(timeout=timeout)
    result = simulate(parent_of([sub], turn(delegate("delegate_writer")), policy=policy), "go")
    expected = f"handoff timeout for subagent tool delegate_writer after {ms} ms"
    [record] = result.trace.handoffs()
    assert record.error == expected
    assert record.duration_ms == float(ms)
    assert tool_results(result.messages)[0].content == f"Error: HandoffTimeoutError: {expected}"


# --- S9: FailureAction ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "policy",
    [
        HandoffPolicy(allowed_tools={"delegate_other"}),
        HandoffPolicy(denied_tools={"delegate_writer"}),
        HandoffPolicy(allowed_tools={"delegate_other"}, on_error=FALLBACK),
    ],
)
def test_s9_fail_denial_aborts_the_run_and_the_child_never_runs(policy: HandoffPolicy) -> None:
    parent, child = _writer_parent(policy)
    _, trace = run_raising(parent, HandoffDeniedError)
    assert _calls(child) == 0
    [end] = ends(trace)
    assert (end.status, end.attempts) == ("denied", 0)
    assert trace[-1].type == "run_end"


def test_s9_fail_denial_propagates_out_of_every_level() -> None:
    grandchild = leaf("leaf")
    child = Agent(
        name="child",
        model=ScriptedModel([turn(delegate("subagent_leaf")), {"text": "child-never"}]),
        subagents=[SubAgent("leaf", agent=grandchild)],
        handoff_policy=HandoffPolicy(denied_tools={"subagent_leaf"}),
    )
    parent = parent_of(
        [SubAgent("child", agent=child)],
        turn(delegate("subagent_child")),
        policy=HandoffPolicy(max_depth=0),
    )
    error, trace = run_raising(parent, HandoffDeniedError)
    assert error.tool == "subagent_leaf"
    statuses = {e.tool: e.status for e in ends(trace)}
    assert statuses == {"subagent_leaf": "denied", "subagent_child": "failed"}
    run_ends = [e for e in trace if e.type == "run_end"]
    assert [e.to_dict()["status"] for e in run_ends] == ["failed", "failed"]


def test_s9_fail_execution_failure_becomes_a_failed_tool_result_and_the_parent_goes_on() -> None:
    parent, _ = _failing_parent(HandoffPolicy(), "subagent-failure")
    result = simulate(parent, "go")
    [message] = tool_results(result.messages)
    assert message.is_error
    assert message.content == "Error: SimulatedModelError: subagent-failure"
    assert result.output == "done"
    [record] = result.trace.handoffs()
    assert (record.status, record.reason, record.attempts) == ("failed", "error", 1)
    assert record.error == "subagent-failure"


def test_s9_failed_tool_result_carries_the_last_error() -> None:
    parent, _ = _failing_parent(HandoffPolicy(max_retries=2), "first", "second", "third")
    result = simulate(parent, "go")
    assert tool_results(result.messages)[0].content == "Error: SimulatedModelError: third"
    [record] = result.trace.handoffs()
    assert (record.attempts, record.error) == (3, "third")


def test_s9_fallback_on_denial_sends_the_original_call_to_the_primary_executor() -> None:
    primary = RecordingExecutor('{"fallback":true,"tool":"<tool>"}')
    policy = HandoffPolicy(
        allowed_tools={"delegate_other"},
        on_denied=FALLBACK,
        input_filter=lambda c: ToolCall(c.id, c.name, '{"task":"filtered"}'),
    )
    parent, child = _writer_parent(policy, tool_executor=primary)
    result = simulate(parent, "go")
    assert [(c.id, c.name, c.arguments) for c in primary.calls] == [
        ("c1", "delegate_writer", '{"task":"x"}')
    ]
    assert tool_results(result.messages)[0].content == '{"fallback":true,"tool":"delegate_writer"}'
    assert not tool_results(result.messages)[0].is_error
    [record] = result.trace.handoffs()
    assert (record.status, record.reason, record.attempts) == ("fallback", "not_allowed", 0)
    assert record.error == "tool is not in allowed_tools"
    assert _calls(child) == 0


def test_s9_fallback_on_error_sends_the_original_unfiltered_call() -> None:
    primary = RecordingExecutor("primary-ok")
    policy = HandoffPolicy(
        on_error=FALLBACK,
        max_retries=1,
        input_filter=lambda c: ToolCall(c.id, c.name, '{"task":"filtered"}'),
    )
    parent, child = _failing_parent(policy, "e1", "e2", tool_executor=primary)
    result = simulate(parent, "go")
    assert [c.arguments for c in primary.calls] == ['{"task":"x"}']
    assert isinstance(child.model, ScriptedModel)
    assert [r.messages[-1].content for r in child.model.requests] == ["filtered", "filtered"]
    assert tool_results(result.messages)[0].content == "primary-ok"
    [record] = result.trace.handoffs()
    assert (record.status, record.reason, record.attempts) == ("fallback", "error", 2)
    assert (record.output, record.error) == ("primary-ok", "e2")


def test_s9_report_to_model_turns_a_denial_into_a_failed_tool_result() -> None:
    parent, child = _writer_parent(
        HandoffPolicy(denied_tools={"delegate_writer"}, on_denied=REPORT)
    )
    result = simulate(parent, "go")
    [message] = tool_results(result.messages)
    assert message.is_error
    assert "tool is in denied_tools" in message.content
    assert "delegate_writer" in message.content
    assert result.output == "done"
    [record] = result.trace.handoffs()
    assert (record.status, record.reason, record.attempts) == ("denied", "denied_tool", 0)
    assert _calls(child) == 0


def test_s9_report_to_model_on_error_reports_like_fail() -> None:
    parent, _ = _failing_parent(HandoffPolicy(on_error=REPORT), "boom")
    result = simulate(parent, "go")
    assert tool_results(result.messages)[0].content == "Error: SimulatedModelError: boom"
    assert result.output == "done"


# --- S10: fallback unavailable --------------------------------------------------------------


def test_s10_denied_fallback_without_a_serving_primary_is_unavailable() -> None:
    policy = HandoffPolicy(allowed_tools={"delegate_other"}, on_denied=FALLBACK)
    lookup = Tool("lookup", lambda: "found")
    parent, child = _writer_parent(policy, tools=[lookup])
    result = simulate(parent, "go")
    [message] = tool_results(result.messages)
    assert message.content.startswith("handoff unavailable:")
    assert "delegate_writer" in message.content
    assert "denied" in message.content
    assert "tool is not in allowed_tools" in message.content
    assert not message.is_error
    assert result.output == "done"
    [record] = result.trace.handoffs()
    assert (record.status, record.reason, record.attempts) == ("unavailable", "not_allowed", 0)
    assert record.output == message.content
    assert _calls(child) == 0


def test_s10_failed_fallback_without_a_serving_primary_is_unavailable() -> None:
    primary = RecordingExecutor(serves={"lookup"})
    parent, _ = _failing_parent(
        HandoffPolicy(on_error=FALLBACK), "subagent-failure", tool_executor=primary
    )
    result = simulate(parent, "go")
    [message] = tool_results(result.messages)
    assert message.content.startswith("handoff unavailable:")
    assert "delegate_writer" in message.content
    assert "failed" in message.content
    assert "subagent-failure" in message.content
    [record] = result.trace.handoffs()
    assert (record.status, record.reason, record.attempts) == ("unavailable", "error", 1)
    assert primary.calls == []


def test_s10_unavailable_never_raises_even_with_fail_on_error() -> None:
    policy = HandoffPolicy(denied_tools={"delegate_writer"}, on_denied=FALLBACK, on_error=FAIL)
    parent, _ = _writer_parent(policy)
    assert simulate(parent, "go").output == "done"


def test_s10_a_primary_that_raises_during_fallback_gives_a_failed_result() -> None:
    """SPEC is silent; the runtime reports the primary's own error and ends the handoff failed."""

    class Broken:
        def execute(self, call: ToolCall) -> str:
            raise RuntimeError("primary broke")

    policy = HandoffPolicy(denied_tools={"delegate_writer"}, on_denied=FALLBACK)
    parent, _ = _writer_parent(policy, tool_executor=Broken())
    result = simulate(parent, "go")
    [message] = tool_results(result.messages)
    assert (message.content, message.is_error) == ("Error: RuntimeError: primary broke", True)
    [record] = result.trace.handoffs()
    assert record.status == "failed"


# --- S1: the executor wraps the primary executor --------------------------------------------


def test_s1_primary_executor_never_learns_subagent_tool_names() -> None:
    primary = RecordingExecutor("plain-ok")
    child = leaf("writer")
    parent = parent_of(
        [SubAgent("writer", agent=child)],
        turn(delegate("subagent_writer"), call("lookup", {"q": 1})),
        tool_executor=primary,
    )
    result = simulate(parent, "go")
    assert [c.name for c in primary.calls] == ["lookup"]
    assert [m.content for m in tool_results(result.messages)][1] == "plain-ok"


def test_s1_async_primary_executor_is_awaited() -> None:
    class AsyncPrimary:
        async def execute(self, call: ToolCall) -> str:
            return f"async:{call.name}"

    parent = Agent(
        name="parent",
        model=ScriptedModel([turn(call("lookup")), {"text": "done"}]),
        tool_executor=AsyncPrimary(),
    )
    assert tool_results(simulate(parent, "go").messages)[0].content == "async:lookup"


def test_s1_a_handoff_start_names_the_subagent_and_tool() -> None:
    parent, _ = _writer_parent(HandoffPolicy())
    [start] = starts(simulate(parent, "go").trace)
    assert (start.subagent, start.tool, start.call_id, start.handoff_id) == (
        "writer",
        "delegate_writer",
        "c1",
        "handoff:c1",
    )
