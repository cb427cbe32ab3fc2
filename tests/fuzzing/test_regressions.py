"""Regression tests for runtime bugs the fuzzer found (E3, E6, R5): each failed before its fix."""

from __future__ import annotations

import pytest

from handoff_sim import Agent, HandoffDeniedError, HandoffPolicy, SubAgent
from handoff_sim.errors import VirtualDeadlineError
from handoff_sim.simulation import Simulation
from handoff_sim.testing import AdversarialModel, ScriptedModel


def _parallel_denial() -> Agent:
    slow = Agent("slow", ScriptedModel([{"text": "late", "latency": 5}] * 6))
    calls = [{"id": f"s{i}", "name": "subagent_slow", "arguments": {"task": "x"}} for i in range(6)]
    calls.append({"id": "bad", "name": "subagent_denied", "arguments": {"task": "x"}})
    return Agent(
        "root",
        ScriptedModel([{"tool_calls": calls}, {"text": "done"}]),
        subagents=[
            SubAgent("slow", agent=slow),
            SubAgent("denied", agent=Agent("denied", ScriptedModel(["never"]))),
        ],
        handoff_policy=HandoffPolicy(denied_tools=["subagent_denied"]),
        parallel_tool_calls=True,
    )


def _parallel_endless() -> Agent:
    child = Agent("child", AdversarialModel(0, ["endless_latency"]))
    calls = [{"id": i, "name": "subagent_child", "arguments": {"task": i}} for i in "abcd"]
    return Agent(
        "root",
        ScriptedModel([{"tool_calls": calls}, {"text": "done"}]),
        subagents=[SubAgent("child", agent=child)],
        parallel_tool_calls=True,
    )


def _trace_text(agent: Agent, error: type[BaseException]) -> str:
    sim = Simulation(seed=1, wall_clock=False)
    with pytest.raises(error):
        sim.run(agent, "go")
    sim.close()
    return sim.trace.to_jsonl()


def test_e6_sibling_cancellation_after_a_denial_is_deterministic() -> None:
    traces = {_trace_text(_parallel_denial(), HandoffDeniedError) for _ in range(20)}
    assert len(traces) == 1


def test_e6_trace_after_a_virtual_deadline_is_deterministic() -> None:
    traces = {_trace_text(_parallel_endless(), VirtualDeadlineError) for _ in range(20)}
    assert len(traces) == 1


def test_e3_trace_is_balanced_as_soon_as_a_deadline_stops_the_run() -> None:
    sim = Simulation(seed=1, wall_clock=False)
    with pytest.raises(VirtualDeadlineError):
        sim.run(_parallel_endless(), "go")
    try:
        assert sim.trace.unbalanced() == []
    finally:
        sim.close()
