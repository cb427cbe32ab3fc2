"""S11: handoff depth lives in a contextvar and counts right in every shape of delegation."""

from __future__ import annotations

import pytest

from handoff_sim import (
    Agent,
    FailureAction,
    HandoffDeniedError,
    HandoffPolicy,
    SubAgent,
    Tool,
    simulate,
)
from handoff_sim._context import current_depth
from handoff_sim.testing import ScriptedModel
from tests._helpers import call, delegate, ends, leaf, parent_of, run_raising, turn


def _depth_probe(name: str, seen: list[int]) -> Agent:
    """An agent that calls a tool recording ``current_depth()``, then answers."""

    def read_depth() -> str:
        seen.append(current_depth())
        return "ok"

    probe = Tool("probe", read_depth)
    return Agent(
        name=name, model=ScriptedModel([turn(call("probe")), {"text": "ok"}]), tools=[probe]
    )


def _fan_out(
    name: str, tools: list[str], subagents: list[SubAgent], policy: HandoffPolicy
) -> Agent:
    """An agent that delegates to every tool in ``tools`` in one parallel turn."""
    return Agent(
        name=name,
        model=ScriptedModel(
            [turn(*(delegate(t, id=f"{name}-{t}") for t in tools)), {"text": "ok"}]
        ),
        subagents=subagents,
        handoff_policy=policy,
        parallel_tool_calls=True,
    )


def test_s11_top_level_agent_runs_at_depth_zero() -> None:
    seen: list[int] = []
    simulate(_depth_probe("solo", seen), "go")
    assert seen == [0]


def test_s11_sequential_handoffs_each_run_at_depth_one() -> None:
    seen: list[int] = []
    subs = [
        SubAgent("a", agent=_depth_probe("a", seen)),
        SubAgent("b", agent=_depth_probe("b", seen)),
    ]
    parent = parent_of(subs, turn(delegate("subagent_a")), turn(delegate("subagent_b")))
    result = simulate(parent, "go")
    assert seen == [1, 1]
    assert [r.depth for r in result.trace.handoffs()] == [1, 1]


def test_s11_parallel_handoffs_each_run_at_depth_one() -> None:
    seen: list[int] = []
    subs = [
        SubAgent("a", agent=_depth_probe("a", seen)),
        SubAgent("b", agent=_depth_probe("b", seen)),
    ]
    parent = _fan_out("parent", ["subagent_a", "subagent_b"], subs, HandoffPolicy())
    result = simulate(parent, "go")
    assert seen == [1, 1]
    assert [r.depth for r in result.trace.handoffs()] == [1, 1]


def test_s11_nested_handoffs_count_each_level() -> None:
    seen: list[int] = []
    middle = Agent(
        name="middle",
        model=ScriptedModel([turn(delegate("subagent_leaf")), {"text": "ok"}]),
        subagents=[SubAgent("leaf", agent=_depth_probe("leaf", seen))],
        handoff_policy=HandoffPolicy(max_depth=0),
    )
    parent = parent_of([SubAgent("middle", agent=middle)], turn(delegate("subagent_middle")))
    result = simulate(parent, "go")
    assert seen == [2]
    assert {r.tool: r.depth for r in result.trace.handoffs()} == {
        "subagent_middle": 1,
        "subagent_leaf": 2,
    }


def test_s11_nested_parallel_fan_out_keeps_the_depth() -> None:
    """AI4J's thread-local depth is lost here (reference §7.3); the contextvar keeps it."""
    seen: list[int] = []
    leaves = [SubAgent(n, agent=_depth_probe(n, seen)) for n in ("l1", "l2")]
    middle = _fan_out("middle", ["subagent_l1", "subagent_l2"], leaves, HandoffPolicy(max_depth=0))
    parent = parent_of([SubAgent("middle", agent=middle)], turn(delegate("subagent_middle")))
    result = simulate(parent, "go")
    assert seen == [2, 2]
    assert sorted(r.depth for r in result.trace.handoffs()) == [1, 2, 2]


def test_s11_max_depth_one_denies_the_childs_own_handoff_at_depth_two() -> None:
    middle = Agent(
        name="middle",
        model=ScriptedModel([turn(delegate("subagent_leaf"))]),
        subagents=[SubAgent("leaf", agent=leaf("leaf"))],
        handoff_policy=HandoffPolicy(max_depth=1),
    )
    parent = parent_of([SubAgent("middle", agent=middle)], turn(delegate("subagent_middle")))
    error, trace = run_raising(parent, HandoffDeniedError)
    assert (error.tool, error.depth) == ("subagent_leaf", 2)
    [denied] = [e for e in ends(trace) if e.tool == "subagent_leaf"]
    assert (denied.status, denied.reason, denied.depth) == ("denied", "max_depth", 2)


@pytest.mark.parametrize("parent_parallel", [False, True])
def test_s11_depth_one_subagent_fanning_out_two_handoffs_in_parallel_gets_both_denied_at_depth_two(
    parent_parallel: bool,
) -> None:
    leaves = [SubAgent(n, agent=leaf(n)) for n in ("l1", "l2")]
    policy = HandoffPolicy(max_depth=1, on_denied=FailureAction.REPORT_TO_MODEL)
    middle = _fan_out("middle", ["subagent_l1", "subagent_l2"], leaves, policy)
    parent = parent_of(
        [SubAgent("middle", agent=middle)],
        turn(delegate("subagent_middle")),
        policy=HandoffPolicy(max_depth=1),
        parallel_tool_calls=parent_parallel,
    )
    result = simulate(parent, "go")
    nested = [r for r in result.trace.handoffs() if r.tool != "subagent_middle"]
    assert [(r.tool, r.status, r.reason, r.depth) for r in nested] == [
        ("subagent_l1", "denied", "max_depth", 2),
        ("subagent_l2", "denied", "max_depth", 2),
    ]
    for sub in leaves:
        assert isinstance(sub.agent.model, ScriptedModel)
        assert sub.agent.model.requests == []


def test_s11_parallel_nested_denial_under_fail_aborts_with_depth_two() -> None:
    leaves = [SubAgent(n, agent=leaf(n)) for n in ("l1", "l2")]
    middle = _fan_out("middle", ["subagent_l1", "subagent_l2"], leaves, HandoffPolicy(max_depth=1))
    parent = parent_of([SubAgent("middle", agent=middle)], turn(delegate("subagent_middle")))
    error, trace = run_raising(parent, HandoffDeniedError)
    assert error.depth == 2
    assert "handoff depth 2 exceeds max_depth 1" in str(error)
    assert trace.unbalanced() == []


def test_s11_depth_outside_any_run_is_zero() -> None:
    assert current_depth() == 0
