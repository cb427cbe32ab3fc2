"""The extra cases the AI4J reference derives from its code (§8.6), in virtual time.

Where SPEC differs from AI4J (a FAIL denial ends with status ``denied``, not
``failed``; messages are lower-case ``snake_case``), the test follows SPEC.
"""

from __future__ import annotations

from typing import Any

import pytest

from handoff_sim import (
    Agent,
    DuplicateToolNameError,
    FailureAction,
    HandoffDeniedError,
    HandoffPolicy,
    SessionMode,
    SubAgent,
    ToolCall,
    simulate,
)
from handoff_sim.subagents._input import resolve_input
from handoff_sim.testing import ScriptedModel
from tests._helpers import (
    ConcurrencyTracker,
    RecordingExecutor,
    delegate,
    ends,
    leaf,
    parent_of,
    payload,
    run_raising,
    starts,
    tool_results,
    turn,
)


def _writer(policy: HandoffPolicy, *steps: object, **options: Any) -> tuple[Agent, Agent]:
    child = leaf("writer", *(steps or ({"text": "writer-ok"},)))
    sub = SubAgent("writer", agent=child, tool_name="delegate_writer")
    return parent_of(
        [sub], turn(delegate("delegate_writer", id="w1")), policy=policy, **options
    ), child


def _requests(agent: Agent) -> int:
    assert isinstance(agent.model, ScriptedModel)
    return len(agent.model.requests)


def test_denied_handoff_emits_start_then_end_with_zero_attempts() -> None:
    parent, _ = _writer(HandoffPolicy(allowed_tools={"delegate_other"}))
    _, trace = run_raising(parent, HandoffDeniedError)
    [start], [end] = starts(trace), ends(trace)
    assert start.seq < end.seq
    assert (end.status, end.reason, end.attempts) == ("denied", "not_allowed", 0)
    assert end.error == "tool is not in allowed_tools"


def test_denied_tools_alone_gives_its_reason() -> None:
    parent, _ = _writer(HandoffPolicy(denied_tools={"delegate_writer"}))
    error, _ = run_raising(parent, HandoffDeniedError)
    assert (error.reason, error.detail) == ("denied_tool", "tool is in denied_tools")


def test_when_both_lists_match_the_allowed_tools_reason_wins() -> None:
    policy = HandoffPolicy(allowed_tools={"delegate_other"}, denied_tools={"delegate_writer"})
    error, _ = run_raising(_writer(policy)[0], HandoffDeniedError)
    assert (error.reason, error.detail) == ("not_allowed", "tool is not in allowed_tools")


def test_max_depth_zero_allows_unlimited_nesting() -> None:
    agent = leaf("level-5", {"text": "bottom"})
    for level in range(4, 0, -1):
        below = agent
        agent = Agent(
            name=f"level-{level}",
            model=ScriptedModel(
                [turn(delegate(f"subagent_level_{level + 1}")), {"text": f"up-{level}"}]
            ),
            subagents=[SubAgent(below.name, agent=below)],
            handoff_policy=HandoffPolicy(max_depth=0),
        )
    result = simulate(agent, "go")
    assert result.output == "up-1"
    assert sorted(r.depth for r in result.trace.handoffs()) == [1, 2, 3, 4]
    assert {r.status for r in result.trace.handoffs()} == {"completed"}


def test_max_retries_two_with_a_permanent_failure_invokes_three_times_and_the_parent_goes_on() -> (
    None
):
    parent, child = _writer(
        HandoffPolicy(max_retries=2), *({"error": f"fail-{i}"} for i in (1, 2, 3))
    )
    result = simulate(parent, "go")
    assert _requests(child) == 3
    [record] = result.trace.handoffs()
    assert (record.attempts, record.status) == (3, "failed")
    [message] = tool_results(result.messages)
    assert message.is_error
    assert "fail-3" in message.content
    assert result.output == "done"


def test_a_filter_returning_none_uses_the_original_arguments() -> None:
    parent, child = _writer(HandoffPolicy(input_filter=lambda c: None))
    simulate(parent, "go")
    assert isinstance(child.model, ScriptedModel)
    assert child.model.requests[0].messages[-1].content == "x"


def test_on_error_fallback_receives_the_original_unfiltered_call() -> None:
    primary = RecordingExecutor()
    policy = HandoffPolicy(
        on_error=FailureAction.FALLBACK_TO_PRIMARY,
        input_filter=lambda c: ToolCall(c.id, c.name, '{"task":"rewritten"}'),
    )
    parent, _ = _writer(policy, {"error": "boom"}, tool_executor=primary)
    simulate(parent, "go")
    assert [c.arguments for c in primary.calls] == ['{"task":"x"}']


def test_timeout_message_is_exact() -> None:
    parent, _ = _writer(HandoffPolicy(timeout=0.01), {"text": "late", "latency": 1})
    [record] = simulate(parent, "go").trace.handoffs()
    assert record.error == "handoff timeout for subagent tool delegate_writer after 10 ms"


def test_disabled_policy_runs_a_denied_tool_and_still_applies_the_timeout() -> None:
    policy = HandoffPolicy(enabled=False, denied_tools={"delegate_writer"})
    parent, _ = _writer(policy)
    assert simulate(parent, "go").trace.handoffs()[0].status == "completed"
    policy = HandoffPolicy(enabled=False, denied_tools={"delegate_writer"}, timeout=1)
    parent, _ = _writer(policy, {"text": "late", "latency": 5})
    [record] = simulate(parent, "go").trace.handoffs()
    assert (record.status, record.reason) == ("failed", "timeout")


def test_reuse_session_second_handoff_sees_the_first_and_parallel_calls_never_overlap() -> None:
    tracker = ConcurrencyTracker(latency=1, answer="remembered")
    model = tracker.model()
    child = Agent(name="child", model=model)
    sub = SubAgent("child", agent=child, session_mode=SessionMode.REUSE_SESSION)
    parent = parent_of(
        [sub],
        turn(delegate("subagent_child", "one"), delegate("subagent_child", "two")),
        turn(delegate("subagent_child", "three")),
        parallel_tool_calls=True,
    )
    simulate(parent, "go")
    assert tracker.peak == 1
    last = [m.content for m in model.requests[-1].messages if m.role == "user"]
    assert last == ["one", "two", "three"]


def test_generated_tool_name_collisions_raise_at_construction() -> None:
    with pytest.raises(DuplicateToolNameError, match="duplicate subagent tool name: subagent_a_b"):
        Agent(
            name="parent",
            model=ScriptedModel([]),
            subagents=[SubAgent("a-b", agent=leaf("x")), SubAgent("A B", agent=leaf("y"))],
        )


def test_resolve_input_cases_and_envelope_without_output() -> None:
    assert resolve_input('{"task":" t ","context":" c "}') == "t\n\nContext:\nc"
    assert resolve_input('{"context":"only"}') == '{"context":"only"}'
    parent, _ = _writer(HandoffPolicy(), {"text": None})
    content = tool_results(simulate(parent, "go").messages)[0].content
    assert "output" not in payload(content)
