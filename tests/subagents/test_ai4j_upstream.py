"""AI4J's own sub-agent tests (reference §8.1–8.5), ported to this runtime in virtual time.

Each test keeps the upstream name (snake_cased) so the two suites can be compared.
The team test (§8.1.4) is left out: AgentTeam is not part of this runtime.
"""

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
    hookimpl,
    simulate,
)
from handoff_sim.events import Event, HandoffEndEvent, HandoffStartEvent
from handoff_sim.messages import ModelRequest
from handoff_sim.testing import FunctionModel, ScriptedModel
from tests._helpers import (
    ConcurrencyTracker,
    RecordingExecutor,
    call,
    delegate,
    leaf,
    parent_of,
    run_raising,
    tool_results,
    turn,
)

FALLBACK = FailureAction.FALLBACK_TO_PRIMARY


def _reviewer_parent() -> Agent:
    reviewer = leaf("reviewer", {"text": "subagent-review-ready"})
    sub = SubAgent(
        "code-reviewer",
        "Review code quality and risks",
        reviewer,
        tool_name="delegate_code_review",
    )
    return parent_of(
        [sub],
        turn(delegate("delegate_code_review", "Review the auth flow", id="call_1")),
        final="main-final-answer",
    )


# --- §8.1 SubAgentRuntimeTest ---------------------------------------------------------------


def test_subagent_tool_delegation_and_exposure() -> None:
    parent = _reviewer_parent()
    result = simulate(parent, "analyze")
    assert result.output == "main-final-answer"
    [message] = tool_results(result.messages)
    assert "subagent-review-ready" in message.content
    assert isinstance(parent.model, ScriptedModel)
    [spec] = parent.model.requests[0].tools
    assert (spec.name, spec.description) == (
        "delegate_code_review",
        "Review code quality and risks",
    )


def test_parallel_subagent_execution_for_codex_style_delegation() -> None:
    tracker = ConcurrencyTracker(latency=0.25)
    shared = tracker.model()
    subs = [
        SubAgent(
            "weather", agent=Agent(name="weather", model=shared), tool_name="delegate_weather"
        ),
        SubAgent("format", agent=Agent(name="format", model=shared), tool_name="delegate_format"),
    ]
    parent = parent_of(
        subs,
        turn(
            delegate("delegate_weather", "Beijing", id="c_weather"),
            delegate("delegate_format", "Shanghai", id="c_format"),
        ),
        parallel_tool_calls=True,
    )
    result = simulate(parent, "parallel")
    assert result.output == "done"
    assert tracker.peak >= 2
    assert result.elapsed_ms == 250


class _Recorder:
    def __init__(self) -> None:
        self.events: list[Event] = []

    @hookimpl
    def handoff_sim_event(self, event: Event) -> None:
        self.events.append(event)


def test_subagent_handoff_events_are_published() -> None:
    recorder = _Recorder()
    result = simulate(_reviewer_parent(), "analyze", observers=[recorder])
    assert result.output == "main-final-answer"
    started = [e for e in recorder.events if isinstance(e, HandoffStartEvent)]
    ended = [e for e in recorder.events if isinstance(e, HandoffEndEvent)]
    assert started
    assert ended
    assert (started[0].subagent, started[0].tool) == ("code-reviewer", "delegate_code_review")
    assert (ended[0].status, ended[0].output) == ("completed", "subagent-review-ready")


# --- §8.2 SubAgentParallelFallbackTest ------------------------------------------------------


def test_parallel_subagents_with_fallback_policy() -> None:
    tracker = ConcurrencyTracker(latency=0.18, answer="weather-ok")

    async def body(request: ModelRequest) -> str:
        await tracker.enter()
        if request.agent == "format-agent":
            raise RuntimeError("subagent-failure")
        return "weather-ok"

    model = FunctionModel(body)
    subs = [
        SubAgent(
            "weather-agent",
            agent=Agent(name="weather-agent", model=model),
            tool_name="delegate_weather",
        ),
        SubAgent(
            "format-agent",
            agent=Agent(name="format-agent", model=model),
            tool_name="delegate_format",
        ),
    ]
    parent = parent_of(
        subs,
        turn(
            delegate("delegate_weather", "Beijing", id="c1"),
            delegate("delegate_format", "format", id="c2"),
        ),
        final="manager-complete",
        policy=HandoffPolicy(on_error=FALLBACK, max_retries=0),
        parallel_tool_calls=True,
        tool_executor=RecordingExecutor('{"fallback":true,"tool":"<tool>"}'),
    )
    result = simulate(parent, "run")
    assert result.output == "manager-complete"
    results = {m.tool_call_id: m.content for m in tool_results(result.messages)}
    assert len(results) == 2
    assert "weather-ok" in results["c1"]
    assert '"fallback":true' in results["c2"]
    assert tracker.peak >= 2
    [fallback] = result.trace.handoffs(status="fallback")
    assert (fallback.call_id, fallback.error, fallback.attempts) == ("c2", "subagent-failure", 1)


# --- §8.3 HandoffPolicyTest -----------------------------------------------------------------


def _single(
    tool: str, child: Agent, policy: HandoffPolicy, arguments: Any = None, **kw: Any
) -> Agent:
    sub = SubAgent(tool.removeprefix("delegate_"), agent=child, tool_name=tool)
    args = {} if arguments is None else arguments
    return parent_of([sub], turn(call(tool, args, id="call_1")), policy=policy, **kw)


def test_allowed_tools_policy_denies_unexpected_subagent() -> None:
    writer = leaf("writer", {"text": "writer-ok"})
    manager = _single(
        "delegate_writer", writer, HandoffPolicy(allowed_tools={"delegate_other"}), {"task": "x"}
    )
    error, _ = run_raising(manager, HandoffDeniedError)
    assert "allowed_tools" in str(error)
    assert (
        str(error)
        == "handoff denied for subagent tool delegate_writer: tool is not in allowed_tools"
    )
    assert isinstance(writer.model, ScriptedModel)
    assert writer.model.requests == []


def test_deny_can_fallback_to_primary_executor() -> None:
    policy = HandoffPolicy(allowed_tools={"delegate_other"}, on_denied=FALLBACK)
    parent = _single(
        "delegate_writer", leaf("writer"), policy, tool_executor=RecordingExecutor("fallback-ok")
    )
    assert tool_results(simulate(parent, "go").messages)[0].content == "fallback-ok"


def test_retry_recovers_transient_subagent_failure() -> None:
    flaky = leaf("flaky", {"error": "temporary error"}, {"text": "ok-after-retry"})
    parent = _single("delegate_flaky", flaky, HandoffPolicy(max_retries=1))
    result = simulate(parent, "go")
    assert "ok-after-retry" in tool_results(result.messages)[0].content
    assert isinstance(flaky.model, ScriptedModel)
    assert len(flaky.model.requests) == 2


def test_timeout_can_fallback_to_primary_executor() -> None:
    slow = leaf("slow", {"text": "slow-output", "latency": "80ms"})
    policy = HandoffPolicy(timeout="10ms", on_error=FALLBACK)
    parent = _single(
        "delegate_slow", slow, policy, tool_executor=RecordingExecutor("timeout-fallback")
    )
    result = simulate(parent, "go")
    assert tool_results(result.messages)[0].content == "timeout-fallback"
    assert result.elapsed_ms == 10


def test_input_filter_can_rewrite_delegated_arguments() -> None:
    filtered = leaf("filtered", {"text": "filtered-ok"})
    seen: list[ToolCall] = []

    def rewrite(c: ToolCall) -> ToolCall:
        seen.append(c)
        return ToolCall(c.id, c.name, '{"task":"filtered"}')

    policy = HandoffPolicy(input_filter=rewrite)
    parent = _single("delegate_filtered", filtered, policy, {"task": "original"})
    result = simulate(parent, "go")
    assert "filtered-ok" in tool_results(result.messages)[0].content
    assert [c.arguments for c in seen] == ['{"task":"original"}']
    assert isinstance(filtered.model, ScriptedModel)
    assert filtered.model.requests[0].messages[-1].content == "filtered"


def _nested(arguments: dict[str, str]) -> Agent:
    child = Agent(
        name="child",
        model=ScriptedModel(
            [turn(call("delegate_leaf", arguments, id="child_1")), {"text": "child-final"}]
        ),
        subagents=[
            SubAgent("leaf", agent=leaf("leaf", {"text": "leaf-done"}), tool_name="delegate_leaf")
        ],
        handoff_policy=HandoffPolicy(max_depth=1),
    )
    return _single("delegate_child", child, HandoffPolicy(max_depth=1), {"task": "outer"})


def test_nested_handoff_blocked_by_max_depth() -> None:
    error, _ = run_raising(_nested({"task": "nested"}), HandoffDeniedError, "start")
    assert "max_depth" in str(error)
    assert str(error) == (
        "handoff denied for subagent tool delegate_leaf: handoff depth 2 exceeds max_depth 1"
    )


# --- §8.4 SubAgentHandoffDocExamplesTest ----------------------------------------------------


def test_sub_agent_registered_as_a_tool_and_delegated() -> None:
    reviewer = leaf("reviewer", {"text": "review-ready"})
    sub = SubAgent("code-reviewer", agent=reviewer, tool_name="delegate_code_review")
    parent = parent_of(
        [sub],
        turn(delegate("delegate_code_review", "review auth", id="call_1")),
        final="final-answer",
    )
    result = simulate(parent, "analyze")
    assert result.output == "final-answer"
    [message] = tool_results(result.messages)
    assert "review-ready" in message.content


def test_handoff_policy_allowed_tools_denies_unlisted_tool_by_default() -> None:
    parent = _single(
        "delegate_worker", leaf("worker"), HandoffPolicy(allowed_tools={"delegate_other"})
    )
    error, _ = run_raising(parent, HandoffDeniedError)
    assert "allowed_tools" in str(error)


def test_fallback_to_primary_keeps_parent_alive_when_sub_agent_denied() -> None:
    policy = HandoffPolicy(allowed_tools={"delegate_other"}, on_denied=FALLBACK)
    parent = _single("delegate_worker", leaf("worker"), policy, final="parent-handled")
    result = simulate(parent, "go")
    assert result.output == "parent-handled"
    assert tool_results(result.messages)[0].content.startswith("handoff unavailable:")


def test_max_depth_blocks_recursive_handoff() -> None:
    error, _ = run_raising(_nested({}), HandoffDeniedError)
    assert "max_depth" in str(error)


# --- §8.5 HandoffFallbackRealWiringTest (regression for AI4J #238) --------------------------


def test_fallback_to_primary_yields_clean_unavailable_not_routing_error() -> None:
    lookup = Tool("lookup", lambda: "found")
    policy = HandoffPolicy(allowed_tools={"delegate_other"}, on_denied=FALLBACK)
    parent = _single("delegate_worker", leaf("worker"), policy, tools=[lookup])
    result = simulate(parent, "go")
    [message] = tool_results(result.messages)
    assert not message.content.startswith("Error")
    assert not message.is_error
    assert "was denied" in message.content
    assert "no primary tool executor" in message.content
    assert result.output == "done"


@pytest.mark.parametrize("serves_everything", [True, False])
def test_custom_primary_that_serves_the_tool_still_gets_the_fallback(
    serves_everything: bool,
) -> None:
    """#238's note: a primary executor that really serves the name behaves as before."""
    serves = None if serves_everything else {"delegate_worker"}
    primary = RecordingExecutor("served", serves=serves)
    policy = HandoffPolicy(allowed_tools={"delegate_other"}, on_denied=FALLBACK)
    parent = _single("delegate_worker", leaf("worker"), policy, tool_executor=primary)
    assert tool_results(simulate(parent, "go").messages)[0].content == "served"
