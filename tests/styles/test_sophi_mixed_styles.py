"""Mixed styles in one tree: AI4J, Flink and SoPhi mounts share depth, events and trace queries."""

from __future__ import annotations

from typing import Any

from handoff_sim import Agent, HandoffPolicy, SubAgent, simulate
from handoff_sim.styles.flink import FlinkSubAgent
from handoff_sim.styles.sophi import SubagentDispatcher, sophi_agent
from handoff_sim.testing import ScriptedModel
from pytest_handoff import (
    assert_denied,
    assert_depth_exceeded,
    assert_handoffs_balanced,
)
from tests.styles._support import call, definition, delegation, turn

EXPLORE = definition("explore")
RECURSIVE = definition("recursive", "delegate_to_subagent")


def child_with_dispatcher(steps: list[Any], sub_steps: list[Any], **kwargs: Any) -> Agent:
    definitions = kwargs.pop("definitions", [EXPLORE])
    return sophi_agent(
        "child",
        ScriptedModel(steps),
        definitions=definitions,
        models={d.name: ScriptedModel(sub_steps) for d in definitions},
        **kwargs,
    )


def test_mixed_ai4j_parent_whose_child_uses_the_dispatcher() -> None:
    child = child_with_dispatcher([turn(delegation("explore", id="d1")), "child done"], ["found"])
    parent = Agent(
        "parent",
        ScriptedModel([turn(call("subagent_child", {"task": "research"}, "p1")), "final"]),
        subagents=[SubAgent("child", "Research", child)],
    )
    result = simulate(parent, "go")

    assert result.output == "final"
    assert assert_handoffs_balanced(result) == 2
    (root,) = result.trace.tree()
    assert (root.record.tool, root.record.depth, root.record.agent) == (
        "subagent_child",
        1,
        "parent",
    )
    (nested,) = root.children
    assert (nested.record.tool, nested.record.subagent, nested.record.depth) == (
        "delegate_to_subagent",
        "explore",
        2,
    )
    assert nested.record.parent_handoff_id == "handoff:p1"
    assert nested.record.output == "found"
    assert '"output":"child done"' in (result.messages[2].content or "")


def test_mixed_dispatcher_depth_counts_from_where_it_is_mounted() -> None:
    recursing = [turn(delegation("recursive", "deeper", id="n1")), "inner stop"]
    child = child_with_dispatcher(
        [turn(delegation("recursive", id="d1")), "child done"],
        recursing,
        definitions=[RECURSIVE],
        max_delegation_depth=1,
    )
    parent = Agent(
        "parent",
        ScriptedModel([turn(call("subagent_child", {"task": "x"}, "p1")), "final"]),
        subagents=[SubAgent("child", "Research", child)],
    )
    result = simulate(parent, "go")
    refused = assert_depth_exceeded(result, "delegate_to_subagent", depth=3)
    assert refused.error == "Error: max delegation depth (1) exceeded"
    assert [(h.tool, h.depth, h.status) for h in result.trace.handoffs()] == [
        ("subagent_child", 1, "completed"),
        ("delegate_to_subagent", 2, "completed"),
        ("delegate_to_subagent", 3, "denied"),
    ]
    assert_handoffs_balanced(result)


def test_mixed_three_styles_in_one_tree_run_in_parallel_with_balanced_events() -> None:
    planner = child_with_dispatcher(
        [turn(delegation("explore", id="d1")), '{"plan": ["a", "b"], "cost": 2}'], ["explored"]
    )
    helper = Agent("helper", ScriptedModel([{"text": "helped", "latency": 1}]))
    parent = Agent(
        "parent",
        ScriptedModel(
            [
                turn(
                    call("subagent_planner", {"goal": "ship"}, "f1"),
                    call("subagent_helper", {"task": "assist"}, "a1"),
                    call("delegate_to_subagent", {"subagent_type": "ghost", "prompt": "x"}, "s1"),
                ),
                "final",
            ]
        ),
        subagents=[
            FlinkSubAgent(
                "planner",
                agent=planner,
                input_schema={"type": "object", "properties": {"goal": {"type": "string"}}},
            ),
            SubAgent("helper", "Helps", helper),
            SubagentDispatcher([EXPLORE], model=ScriptedModel([])),
        ],
        parallel_tool_calls=True,
        handoff_policy=HandoffPolicy(max_depth=0),
    )
    result = simulate(parent, "go")

    assert assert_handoffs_balanced(result) == 4
    tools = {m.tool_call_id: m.content for m in result.messages if m.role == "tool"}
    assert tools["f1"] == '{"plan":["a","b"],"cost":2}'
    assert (
        tools["a1"]
        == '{"subagent":"helper","toolName":"subagent_helper","output":"helped","steps":1}'
    )
    assert tools["s1"] == "Error: unknown subagent type 'ghost'. Available: explore"
    assert_denied(result, "delegate_to_subagent", reason="not_allowed")
    by_call = {h.call_id: h for h in result.trace.handoffs()}
    assert (by_call["f1"].depth, by_call["d1"].depth, by_call["d1"].parent_handoff_id) == (
        1,
        2,
        "handoff:f1",
    )
    assert {n.record.call_id for n in result.trace.tree()} == {"f1", "a1", "s1"}
