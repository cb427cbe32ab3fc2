"""The public invariant checker: each invariant is reported when, and only when, it breaks."""

from __future__ import annotations

import msgspec
import pytest

from handoff_sim import Agent, HandoffPolicy, SubAgent, Trace, tool
from handoff_sim._invariants import (
    Invariant,
    InvariantViolationError,
    Violation,
    assert_invariants,
    check_determinism,
    check_invariants,
    check_messages,
)
from handoff_sim.events import Event, HandoffAttemptStartEvent, HandoffEndEvent, ToolStartEvent
from handoff_sim.fuzzing import FaultyRecorder
from handoff_sim.fuzzing._faults import DropEvents
from handoff_sim.messages import Message, ToolCall
from handoff_sim.simulation import Simulation
from handoff_sim.testing import ScriptedModel


def _delegate(tool_name: str = "subagent_child", *ids: str) -> dict[str, object]:
    return {
        "tool_calls": [
            {"id": i, "name": tool_name, "arguments": {"task": "x"}} for i in (ids or ("c1",))
        ]
    }


def _pair(
    policy: HandoffPolicy | None = None, child_steps: list[object] | None = None, **root: object
) -> Agent:
    child = Agent("child", ScriptedModel(child_steps or [{"text": "ok"}] * 4))
    return Agent(
        "root",
        ScriptedModel([_delegate(), {"text": "done"}]),
        subagents=[SubAgent("child", agent=child)],
        handoff_policy=policy,
        **root,  # type: ignore[arg-type]
    )


def _run(agent: Agent, fault: DropEvents | None = None) -> Trace:
    faulty = None if fault is None else FaultyRecorder(fault)
    sim = Simulation(seed=1, wall_clock=False, observers=() if faulty is None else (faulty,))
    try:
        sim.run(agent, "go")
    finally:
        sim.close()
    return sim.trace if faulty is None else faulty.trace


def _names(violations: list[Violation]) -> set[str]:
    return {v.invariant for v in violations}


def test_a_sound_run_has_no_violation() -> None:
    agent = _pair(HandoffPolicy(max_retries=1, timeout=2))
    assert check_invariants(_run(agent), agent=agent) == []


def test_e3_dropped_handoff_end_is_a_balance_violation_at_its_start() -> None:
    agent = _pair()
    trace = _run(agent, DropEvents("handoff_end"))
    (violation,) = check_invariants(trace, agent=agent)
    start = trace.of_type("handoff_start")[0]
    assert violation == Violation(
        "balance", "handoff:c1: handoff_start without handoff_end", start.seq
    )


def test_second_handoff_end_is_a_balance_violation() -> None:
    trace = _run(_pair())
    end = trace.of_type(HandoffEndEvent)[0]
    doubled = Trace([*trace, msgspec.structs.replace(end, seq=999)])
    assert "balance" in _names(check_invariants(doubled))


def test_attempts_beyond_max_retries_plus_one_are_reported() -> None:
    failing = [{"error": "boom"}] * 3
    trace = _run(_pair(HandoffPolicy(max_retries=2), failing))
    assert check_invariants(trace, policy=HandoffPolicy(max_retries=2)) == []
    violations = check_invariants(trace, policy=HandoffPolicy(max_retries=0))
    assert _names(violations) == {"attempt_bound"}


def test_attempt_longer_than_its_timeout_is_reported() -> None:
    slow = [{"text": "late", "latency": 3}]
    trace = _run(_pair(HandoffPolicy(timeout=5), slow))
    (violation,) = check_invariants(trace, policy=HandoffPolicy(timeout=1))
    assert violation.invariant == "timeout_bound"
    assert "lasted 3000 ms, past its timeout of 1000 ms" in violation.message


def test_v3_timeout_outcome_must_fire_exactly_at_the_timeout() -> None:
    trace = _run(_pair(HandoffPolicy(timeout=2), [{"text": "late", "latency": 9}]))
    assert check_invariants(trace, policy=HandoffPolicy(timeout=2)) == []
    violations = check_invariants(trace, policy=HandoffPolicy(timeout=4))
    assert [v.invariant for v in violations] == ["timeout_bound"]
    assert "not at its timeout" in violations[0].message


def test_handoff_deeper_than_max_depth_is_a_depth_violation() -> None:
    leaf = Agent("leaf", ScriptedModel([{"text": "ok"}]))
    middle = Agent(
        "middle",
        ScriptedModel([_delegate("subagent_leaf"), {"text": "ok"}]),
        subagents=[SubAgent("leaf", agent=leaf)],
        handoff_policy=HandoffPolicy(max_depth=0),
    )
    root = Agent(
        "root",
        ScriptedModel([_delegate("subagent_middle"), {"text": "done"}]),
        subagents=[SubAgent("middle", agent=middle)],
        handoff_policy=HandoffPolicy(max_depth=0),
    )
    trace = _run(root)
    assert check_invariants(trace, agent=root) == []
    violations = check_invariants(trace, policy=HandoffPolicy(max_depth=1))
    assert _names(violations) == {"depth_bound"}
    assert "although handoff depth 2 exceeds max_depth 1" in violations[0].message


def test_a_denied_handoff_that_ran_an_attempt_is_reported() -> None:
    policy = HandoffPolicy(denied_tools=["subagent_child"], on_denied="report_to_model")
    agent = _pair(policy)
    trace = _run(agent)
    assert check_invariants(trace, agent=agent) == []
    end = trace.of_type(HandoffEndEvent)[0]
    assert isinstance(end, HandoffEndEvent)
    forged = HandoffAttemptStartEvent(
        seq=end.seq,
        t=end.t,
        agent=end.agent,
        depth=end.depth,
        run_id=end.run_id,
        handoff_id=end.handoff_id,
        call_id=end.call_id,
        tool=end.tool,
        attempt=1,
    )
    events = list(trace)
    events.insert(events.index(end), forged)
    assert "denied_not_executed" in _names(check_invariants(Trace(events), agent=agent))


def test_a_tool_outside_the_agents_scope_is_reported() -> None:
    @tool
    def lookup() -> str:
        """Look something up."""
        return "found"

    script = [{"tool_calls": [{"name": "lookup", "arguments": {}}]}, {"text": "done"}]
    given = Agent("root", ScriptedModel(script), tools=[lookup])
    trace = _run(given)
    assert check_invariants(trace, agent=given) == []
    without = Agent("root", ScriptedModel([]))
    (violation,) = check_invariants(trace, agent=without)
    assert violation.invariant == "tool_scope"
    assert "tool 'lookup' ran" in violation.message


def test_a_run_without_run_end_does_not_terminate() -> None:
    trace = _run(_pair(), DropEvents("run_end"))
    assert "termination" in _names(check_invariants(trace))


def test_more_model_calls_than_max_steps_break_termination() -> None:
    agent = _pair()
    trace = _run(agent)
    strict = _pair(max_steps=1)
    assert any("past max_steps=1" in v.message for v in check_invariants(trace, agent=strict))


def test_an_untyped_error_out_of_a_run_is_a_crash() -> None:
    trace = _run(_pair())
    (violation,) = check_invariants(trace, error=AttributeError("oops"))
    assert violation.invariant == "termination"
    assert "untyped error AttributeError: oops" in violation.message


def test_r5_tool_starts_out_of_call_order_are_reported() -> None:
    agent = Agent(
        "root",
        ScriptedModel([_delegate("subagent_child", "a", "b"), {"text": "done"}]),
        subagents=[SubAgent("child", agent=Agent("child", ScriptedModel(["x", "y"])))],
    )
    trace = _run(agent)
    assert check_invariants(trace, agent=agent) == []
    events: list[Event] = list(trace)
    starts = [i for i, e in enumerate(events) if isinstance(e, ToolStartEvent)]
    events[starts[0]], events[starts[1]] = events[starts[1]], events[starts[0]]
    assert "call_order" in _names(check_invariants(Trace(events)))


def test_r5_tool_results_out_of_call_order_are_reported() -> None:
    calls = (ToolCall("a", "t"), ToolCall("b", "t"))
    ordered = [
        Message(role="assistant", tool_calls=calls),
        Message(role="tool", content="1", tool_call_id="a"),
        Message(role="tool", content="2", tool_call_id="b"),
    ]
    assert check_messages(ordered) == []
    swapped = [ordered[0], ordered[2], ordered[1]]
    (violation,) = check_messages(swapped)
    assert violation.invariant == "call_order"


def test_e6_determinism_compares_two_runs() -> None:
    assert check_determinism(lambda: _run(_pair())) == []
    seeds = iter([1, 2])

    def differing() -> Trace:
        sim = Simulation(seed=next(seeds), wall_clock=False)
        with sim:
            sim.run(_pair(), "go")
        return sim.trace

    (violation,) = check_determinism(differing)
    assert violation.invariant == "determinism"


def test_assert_invariants_raises_a_readable_error() -> None:
    agent = _pair()
    trace = _run(agent, DropEvents("handoff_end"))
    with pytest.raises(InvariantViolationError) as caught:
        assert_invariants(trace, agent=agent)
    text = str(caught.value)
    assert text.startswith("1 invariant violation(s):\n  - [balance] handoff:c1: handoff_start")
    assert "handoff tree:" in text
    assert [v.invariant for v in caught.value.violations] == ["balance"]
    assert isinstance(caught.value, AssertionError)


def test_invariant_names_are_stable() -> None:
    assert [i.value for i in Invariant] == [
        "balance",
        "depth_bound",
        "attempt_bound",
        "timeout_bound",
        "denied_not_executed",
        "tool_scope",
        "termination",
        "call_order",
        "determinism",
    ]
