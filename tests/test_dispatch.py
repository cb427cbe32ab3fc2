"""R5: one turn's tool calls run in order, or concurrently behind a fork-join barrier."""

from __future__ import annotations

import asyncio

import pytest

from handoff_sim import (
    Agent,
    HandoffDeniedError,
    HandoffPolicy,
    SubAgent,
    Tool,
    simulate,
)
from handoff_sim.events import ModelRequestEvent, ToolEndEvent, ToolStartEvent
from handoff_sim.testing import ScriptedModel
from tests._helpers import ConcurrencyTracker, call, delegate, leaf, parent_of, run_raising, turn


def _timed_tools(tracker: ConcurrencyTracker) -> list[Tool]:
    """``wait(seconds)`` sleeps in virtual time through ``tracker`` (counting overlap)."""

    async def wait(seconds: float) -> str:
        tracker.entries += 1
        tracker.active += 1
        tracker.peak = max(tracker.peak, tracker.active)
        try:
            await asyncio.sleep(seconds)
        finally:
            tracker.active -= 1
        return f"waited {seconds:g}"

    return [
        Tool(
            "wait",
            wait,
            parameters={"type": "object", "properties": {"seconds": {"type": "number"}}},
        )
    ]


def _waiting_agent(parallel: bool, *seconds: float) -> tuple[Agent, ConcurrencyTracker]:
    tracker = ConcurrencyTracker(latency=0)
    calls = [call("wait", {"seconds": s}, id=f"c{i}") for i, s in enumerate(seconds, 1)]
    agent = Agent(
        name="agent",
        model=ScriptedModel([turn(*calls), {"text": "done"}]),
        tools=_timed_tools(tracker),
        parallel_tool_calls=parallel,
    )
    return agent, tracker


def test_r5_parallel_calls_run_concurrently() -> None:
    agent, tracker = _waiting_agent(True, 2, 2, 2)
    result = simulate(agent, "go")
    assert tracker.peak == 3
    assert result.elapsed_ms == 2000


def test_r5_sequential_calls_run_one_after_another_in_call_order() -> None:
    agent, tracker = _waiting_agent(False, 3, 1)
    result = simulate(agent, "go")
    assert tracker.peak == 1
    assert result.elapsed_ms == 4000
    tool_events = [
        (e.type, e.call_id) for e in result.trace if isinstance(e, ToolStartEvent | ToolEndEvent)
    ]
    assert tool_events == [
        ("tool_start", "c1"),
        ("tool_end", "c1"),
        ("tool_start", "c2"),
        ("tool_end", "c2"),
    ]


def test_r5_parallel_results_follow_call_order_not_completion_order() -> None:
    agent, _ = _waiting_agent(True, 3, 1, 2)
    result = simulate(agent, "go")
    finished = [e.call_id for e in result.trace if isinstance(e, ToolEndEvent)]
    assert finished == ["c2", "c3", "c1"]
    results = [m for m in result.messages if m.role == "tool"]
    assert [m.tool_call_id for m in results] == ["c1", "c2", "c3"]
    assert [m.content for m in results] == ["waited 3", "waited 1", "waited 2"]


def test_r5_next_model_call_waits_for_every_parallel_call() -> None:
    agent, _ = _waiting_agent(True, 3, 1, 2)
    result = simulate(agent, "go")
    requests = result.trace.of_type(ModelRequestEvent)
    assert [e.t for e in requests] == [0.0, 3.0]


def test_r5_parallel_flag_is_sent_to_the_model() -> None:
    agent, _ = _waiting_agent(True, 1)
    simulate(agent, "go")
    assert isinstance(agent.model, ScriptedModel)
    assert agent.model.requests[0].parallel_tool_calls is True


def test_r5_parallel_handoffs_also_keep_call_order() -> None:
    subs = [
        SubAgent("slow", agent=leaf("slow", {"text": "slow-out", "latency": 5})),
        SubAgent("fast", agent=leaf("fast", {"text": "fast-out", "latency": 1})),
    ]
    parent = parent_of(
        subs,
        turn(delegate("subagent_slow", id="a"), delegate("subagent_fast", id="b")),
        parallel_tool_calls=True,
    )
    result = simulate(parent, "go")
    assert [m.tool_call_id for m in result.messages if m.role == "tool"] == ["a", "b"]
    assert [r.tool for r in result.trace.handoffs()] == ["subagent_slow", "subagent_fast"]
    assert result.elapsed_ms == 5000


@pytest.mark.parametrize("denied_first", [True, False])
def test_r5_fail_denial_cancels_siblings_and_each_gets_a_cancelled_end(denied_first: bool) -> None:
    slow = SubAgent("slow", agent=leaf("slow", {"text": "late", "latency": 10}))
    bad = SubAgent("bad", agent=leaf("bad"))
    order = ["subagent_bad", "subagent_slow"] if denied_first else ["subagent_slow", "subagent_bad"]
    tracker = ConcurrencyTracker(latency=0)
    parent = parent_of(
        [slow, bad],
        turn(*(delegate(t, id=t) for t in order), call("wait", {"seconds": 10}, id="plain")),
        policy=HandoffPolicy(denied_tools={"subagent_bad"}),
        parallel_tool_calls=True,
        tools=_timed_tools(tracker),
    )
    _, trace = run_raising(parent, HandoffDeniedError)
    handoff_status = {r.tool: r.status for r in trace.handoffs()}
    assert handoff_status == {"subagent_bad": "denied", "subagent_slow": "cancelled"}
    tool_status = {e.call_id: e.status for e in trace if isinstance(e, ToolEndEvent)}
    assert tool_status == {
        "subagent_bad": "error",
        "subagent_slow": "cancelled",
        "plain": "cancelled",
    }
    assert trace.unbalanced() == []
    assert trace[-1].t == 0.0


def test_r5_an_error_result_does_not_cancel_siblings() -> None:
    boom = Tool("boom", lambda: (_ for _ in ()).throw(RuntimeError("bang")))
    tracker = ConcurrencyTracker(latency=0)
    agent = Agent(
        name="agent",
        model=ScriptedModel([turn(call("boom"), call("wait", {"seconds": 4})), {"text": "done"}]),
        tools=[boom, *_timed_tools(tracker)],
        parallel_tool_calls=True,
    )
    result = simulate(agent, "go")
    contents = [m.content for m in result.messages if m.role == "tool"]
    assert contents == ["Error: RuntimeError: bang", "waited 4"]
    assert result.output == "done"


def test_r5_blank_and_repeated_call_ids_are_made_unique() -> None:
    """SPEC is silent; the runtime names blank ids ``call_<step>_<index>`` and suffixes repeats."""
    agent = Agent(
        name="agent",
        model=ScriptedModel(
            [
                turn(call("echo", id=""), call("echo", id="dup"), call("echo", id="dup")),
                {"text": "ok"},
            ]
        ),
        tools=[Tool("echo", lambda: "e")],
    )
    result = simulate(agent, "go")
    ids = [m.tool_call_id for m in result.messages if m.role == "tool"]
    assert ids == ["call_1_0", "dup", "dup~2"]
