"""E5 trace queries, tree, text, JSON lines and Mermaid; E6 byte-identical reruns."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from handoff_sim import (
    Agent,
    FailureAction,
    HandoffPolicy,
    SessionMode,
    SubAgent,
    Trace,
    simulate,
)
from handoff_sim.events import HandoffEndEvent, HandoffStartEvent, RunStartEvent
from handoff_sim.testing import ScriptedModel
from tests._helpers import delegate, leaf, parent_of, turn

ROOT = Path(__file__).resolve().parents[1]


def busy_parent() -> Agent:
    """Nested, parallel, retried, timed-out and denied handoffs in one run."""
    grandchild = leaf("leaf", {"text": "leaf-out", "latency": "250ms"})
    child = Agent(
        name="child",
        model=ScriptedModel(
            [
                {"error": "flaky", "latency": 1},
                turn(delegate("subagent_leaf", id="g1"), delegate("subagent_nope", id="g2")),
                {"text": "child-out"},
            ]
        ),
        subagents=[SubAgent("leaf", agent=grandchild), SubAgent("nope", agent=leaf("nope"))],
        handoff_policy=HandoffPolicy(
            max_depth=0,
            denied_tools={"subagent_nope"},
            on_denied=FailureAction.REPORT_TO_MODEL,
        ),
        parallel_tool_calls=True,
    )
    slow = leaf("slow", *({"text": "late", "latency": 60} for _ in range(2)))
    return parent_of(
        [
            SubAgent("child", agent=child),
            SubAgent("slow", agent=slow, session_mode=SessionMode.REUSE_SESSION),
        ],
        turn(delegate("subagent_child", id="p1"), delegate("subagent_slow", id="p2")),
        policy=HandoffPolicy(max_depth=0, max_retries=1, timeout=30),
        parallel_tool_calls=True,
    )


def test_e5_handoffs_query_filters_by_tool_status_and_subagent() -> None:
    trace = simulate(busy_parent(), "go").trace
    assert [r.tool for r in trace.handoffs()] == [
        "subagent_child",
        "subagent_slow",
        "subagent_leaf",
        "subagent_nope",
    ]
    [slow] = trace.handoffs(tool="subagent_slow")
    assert (slow.status, slow.reason, slow.attempts) == ("failed", "timeout", 2)
    assert [r.tool for r in trace.handoffs(status="denied")] == ["subagent_nope"]
    assert [r.tool for r in trace.handoffs(subagent="leaf")] == ["subagent_leaf"]
    assert trace.handoffs(tool="no_such_tool") == []


def test_e5_handoff_record_summary_has_the_scenario_fields() -> None:
    [record] = simulate(busy_parent(), "go").trace.handoffs(tool="subagent_leaf")
    assert record.summary() == {
        "tool": "subagent_leaf",
        "status": "completed",
        "reason": None,
        "attempts": 1,
        "depth": 2,
    }


def test_e5_of_type_accepts_names_and_event_classes() -> None:
    trace = simulate(busy_parent(), "go").trace
    by_name = trace.of_type("handoff_end")
    assert by_name == trace.of_type(HandoffEndEvent)
    assert len(by_name) == 4
    assert len(trace.of_type("run_start", RunStartEvent)) == len(trace.of_type("run_start"))


def test_e5_of_type_with_event_classes_keeps_trace_order_and_only_those_classes() -> None:
    trace = simulate(busy_parent(), "go").trace
    both = trace.of_type(HandoffStartEvent, HandoffEndEvent)
    assert [e.seq for e in both] == [
        e.seq for e in trace if isinstance(e, HandoffStartEvent | HandoffEndEvent)
    ]
    assert {type(e) for e in both} == {HandoffStartEvent, HandoffEndEvent}
    assert [e.handoff_id for e in trace.of_type(HandoffEndEvent)] == [
        "handoff:g2",  # denied at once
        "handoff:g1",  # the leaf answers after 250ms
        "handoff:p1",  # the child answers then
        "handoff:p2",  # two 30s attempts time out
    ]


def test_e5_tree_nests_handoffs_under_the_handoff_whose_subagent_made_them() -> None:
    roots = simulate(busy_parent(), "go").trace.tree()
    assert [n.record.tool for n in roots] == ["subagent_child", "subagent_slow"]
    child, slow = roots
    assert [n.record.tool for n in child.children] == ["subagent_leaf", "subagent_nope"]
    assert slow.children == []


def test_e5_render_tree_draws_the_nesting() -> None:
    text = simulate(busy_parent(), "go").trace.render_tree()
    lines = text.splitlines()
    assert len(lines) == 4
    assert lines[0].startswith("├─ parent → child via subagent_child")
    assert lines[1].startswith("│  ├─ child → leaf via subagent_leaf")
    assert lines[2].startswith("│  └─ child → nope via subagent_nope")
    assert lines[3].startswith("└─ parent → slow via subagent_slow")
    assert Trace().render_tree() == "(no handoffs)\n"


def test_e5_render_gives_one_line_per_event_indented_by_depth() -> None:
    trace = simulate(busy_parent(), "go").trace
    lines = trace.render().splitlines()
    assert len(lines) == len(trace)
    for line, event in zip(lines, trace, strict=True):
        assert line.split()[0] == str(event.seq)
        assert f"{event.type}" in line
        assert f"{event.agent}:" in line
    first_leaf = next(line for line in lines if "run_start" in line and "leaf:" in line)
    assert "    run_start" in first_leaf
    assert Trace().render() == ""


def test_e5_jsonl_has_one_json_object_a_line_and_reads_back() -> None:
    trace = simulate(busy_parent(), "go").trace
    text = trace.to_jsonl()
    lines = text.splitlines()
    assert len(lines) == len(trace)
    assert text.endswith("\n")
    for line, event in zip(lines, trace, strict=True):
        data = json.loads(line)
        assert list(data)[:3] == ["seq", "t", "type"]
        assert data == event.to_dict()
    assert Trace.from_jsonl(text) == trace


def test_e5_mermaid_is_a_sequence_diagram_of_the_handoffs() -> None:
    text = simulate(busy_parent(), "go").trace.to_mermaid()
    lines = text.splitlines()
    assert lines[0] == "sequenceDiagram"
    assert "    participant A1 as parent" in lines
    assert any("->>" in line and "subagent_child (handoff:p1)" in line for line in lines)
    assert any("--x" in line and "denied (denied_tool)" in line for line in lines)
    assert any("attempt 1 timeout after 30000 ms" in line for line in lines)


def test_e5_trace_is_an_immutable_sequence() -> None:
    trace = simulate(busy_parent(), "go").trace
    assert isinstance(trace[1:3], Trace)
    assert len(trace[1:3]) == 2
    assert list(trace) == list(trace.events)
    assert trace == Trace(list(trace))


def test_e6_same_run_twice_gives_byte_identical_text_and_json_lines() -> None:
    first = simulate(busy_parent(), "go", seed=11).trace
    second = simulate(busy_parent(), "go", seed=11).trace
    assert first.render() == second.render()
    assert first.to_jsonl() == second.to_jsonl()
    assert first.to_mermaid() == second.to_mermaid()


def test_e6_ids_come_from_the_seed() -> None:
    a = simulate(busy_parent(), "go", seed=1)
    b = simulate(busy_parent(), "go", seed=2)
    assert a.session_id != b.session_id
    assert a.session_id == simulate(busy_parent(), "go", seed=1).session_id


_CHILD_PROGRAM = """
import sys
sys.path.insert(0, {root!r})
from handoff_sim import simulate
from tests.test_trace import busy_parent
sys.stdout.write(simulate(busy_parent(), "go", seed=11).trace.to_jsonl())
"""


@pytest.mark.slow
def test_e6_trace_is_identical_in_another_process_with_another_hash_seed() -> None:
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run(
        [sys.executable, "-c", _CHILD_PROGRAM.format(root=str(ROOT))],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    assert out == simulate(busy_parent(), "go", seed=11).trace.to_jsonl()
