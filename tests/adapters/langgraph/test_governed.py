"""governed(...) on LangGraph: a compiled agent as a governed LangChain tool, in three shapes.

For each of ``create_agent`` with agents-as-tools, a supervisor and a swarm (the
delegating agent holds the governed tools): a parallel fan-out, nested delegation over
``max_depth``, a timed-out handoff retried exactly in virtual time, a denied delegation
answered ``handoff unavailable``, and an adversarial model with a balanced trace.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests._helpers import import_extra

import_extra("langgraph", "langgraph")
import_extra("langgraph", "langgraph_supervisor")
import_extra("langgraph", "langgraph_swarm")

from langchain.agents import create_agent  # noqa: E402
from langchain_core.messages import ToolMessage  # noqa: E402

from handoff_sim import (  # noqa: E402
    FailureAction,
    HandoffDeniedError,
    HandoffPolicy,
    check_invariants,
)
from handoff_sim.adapters import GovernanceError  # noqa: E402
from handoff_sim.adapters.langgraph import SimChatModel, governed, simulate_run  # noqa: E402
from handoff_sim.testing import AdversarialModel, ScriptedModel  # noqa: E402
from tests.adapters.langgraph._governed_graphs import (  # noqa: E402
    DELEGATOR,
    SHAPES,
    build,
    worker,
)

# langgraph-supervisor 0.0.31 builds its supervisor with langgraph's deprecated
# create_react_agent: its warning is the package's, not ours
pytestmark = pytest.mark.filterwarnings("ignore::langgraph.warnings.LangGraphDeprecatedSinceV10")

HOUR_MS = 3_600_000.0


def user(text: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}]}


def delegate(*names: str, prefix: str = "d") -> dict[str, Any]:
    """One model step calling each governed tool once, with a task."""
    return {
        "tool_calls": [
            {"id": f"{prefix}{i}", "name": n, "arguments": {"task": f"task {i}"}}
            for i, n in enumerate(names, start=1)
        ]
    }


def handoffs(trace: Any) -> list[Any]:
    return [e for e in trace.events if e.type == "handoff_end"]


def tool_results(result: Any, name: str) -> list[ToolMessage]:
    return [m for m in result["messages"] if isinstance(m, ToolMessage) and m.name == name]


@pytest.mark.parametrize("shape", SHAPES)
def test_parallel_fan_out_runs_both_agents_at_once_and_keeps_both_results(shape: str) -> None:
    tools = [governed(worker("wa", "answer a")), governed(worker("wb", "answer b"))]

    def once() -> Any:
        model = ScriptedModel([delegate("subagent_wa", "subagent_wb"), {"text": "both"}])
        graph = build(shape, model, tools)
        return simulate_run(lambda: graph.ainvoke(user("go")))

    run = once()
    ended = handoffs(run.trace)
    assert sorted((e.subagent, e.status, e.output) for e in ended) == [
        ("wa", "completed", "answer a"),
        ("wb", "completed", "answer b"),
    ]
    assert {e.agent for e in ended} == {DELEGATOR[shape]}
    assert run.elapsed_ms == HOUR_MS  # the two hour-long workers ran side by side
    assert [m.content for m in tool_results(run.result, "subagent_wa")] == ["answer a"]
    assert [m.content for m in tool_results(run.result, "subagent_wb")] == ["answer b"]
    assert check_invariants(run.trace) == []
    assert once().trace.events == run.trace.events  # the same trace on the next run


@pytest.mark.parametrize("shape", SHAPES)
def test_nested_delegation_over_max_depth_is_denied_and_reported_to_the_model(
    shape: str,
) -> None:
    policy = HandoffPolicy(max_depth=1, on_denied=FailureAction.REPORT_TO_MODEL)
    leaf = governed(worker("leaf", "leaf answer"), policy)
    middle_model = ScriptedModel([delegate("subagent_leaf", prefix="m"), {"text": "no leaf"}])
    middle = create_agent(SimChatModel(middle_model), tools=[leaf], name="middle")
    graph = build(
        shape,
        ScriptedModel([delegate("subagent_middle"), {"text": "top done"}]),
        [governed(middle, policy)],
    )

    run = simulate_run(lambda: graph.ainvoke(user("go")))

    by_agent = {e.subagent: e for e in handoffs(run.trace)}
    assert by_agent["middle"].status == "completed"
    assert by_agent["middle"].output == "no leaf"
    assert by_agent["leaf"].status == "denied"
    assert by_agent["leaf"].reason == "max_depth"
    assert by_agent["leaf"].depth == 2
    told = middle_model.requests[1].messages[-1]
    assert told.role == "tool"
    assert "handoff depth 2 exceeds max_depth 1" in (told.content or "")
    assert not any(e.type == "run_start" and e.agent == "leaf" for e in run.trace.events)
    assert check_invariants(run.trace) == []


@pytest.mark.parametrize("shape", SHAPES)
def test_R3_timeout_retried_three_times_takes_exactly_90_virtual_seconds(shape: str) -> None:
    policy = HandoffPolicy(timeout=30, max_retries=2, on_error=FailureAction.FALLBACK_TO_PRIMARY)
    tool = governed(worker("slow", "never"), policy)  # its tool waits an hour
    graph = build(shape, ScriptedModel([delegate("subagent_slow"), {"text": "gave up"}]), [tool])

    run = simulate_run(lambda: graph.ainvoke(user("go")))

    (ended,) = handoffs(run.trace)
    assert (ended.status, ended.reason, ended.attempts) == ("unavailable", "timeout", 3)
    assert ended.duration_ms == 90_000.0
    attempts = [e for e in run.trace.events if e.type == "handoff_attempt_end"]
    assert [(a.outcome, a.duration_ms) for a in attempts] == [("timeout", 30_000.0)] * 3
    cancelled = [e for e in run.trace.events if e.type == "run_end" and e.agent == "slow"]
    assert [e.status for e in cancelled] == ["cancelled"] * 3  # each subgraph run was stopped
    assert run.elapsed_ms == 90_000.0
    (result,) = tool_results(run.result, "subagent_slow")
    assert str(result.content).startswith("handoff unavailable:")
    assert check_invariants(run.trace) == []


@pytest.mark.parametrize("shape", SHAPES)
def test_denied_delegation_falls_back_to_handoff_unavailable(shape: str) -> None:
    policy = HandoffPolicy(
        denied_tools=["subagent_secret"], on_denied=FailureAction.FALLBACK_TO_PRIMARY
    )
    secret_model = ScriptedModel([{"text": "secret"}])
    secret = create_agent(SimChatModel(secret_model), name="secret")
    graph = build(
        shape,
        ScriptedModel([delegate("subagent_secret"), {"text": "went without"}]),
        [governed(secret, policy)],
    )

    run = simulate_run(lambda: graph.ainvoke(user("go")))

    (ended,) = handoffs(run.trace)
    assert (ended.status, ended.reason, ended.attempts) == ("unavailable", "denied_tool", 0)
    (result,) = tool_results(run.result, "subagent_secret")
    assert str(result.content).startswith("handoff unavailable:")
    assert secret_model.requests == []  # the denied agent never ran
    assert check_invariants(run.trace) == []


@pytest.mark.parametrize("shape", SHAPES)
def test_denial_under_fail_raises_out_of_the_graph_run(shape: str) -> None:
    policy = HandoffPolicy(denied_tools=["subagent_wa"])
    graph = build(
        shape, ScriptedModel([delegate("subagent_wa")]), [governed(worker("wa", "a"), policy)]
    )

    run = simulate_run(lambda: graph.ainvoke(user("go")), raise_errors=False)

    assert isinstance(run.error, HandoffDeniedError)
    assert run.error.tool == "subagent_wa"
    assert not run.trace.unbalanced()


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("seed", range(4))
def test_adversarial_model_through_governed_tools_keeps_the_trace_balanced(
    shape: str, seed: int
) -> None:
    policy = HandoffPolicy(max_depth=2, on_denied=FailureAction.REPORT_TO_MODEL, timeout=60)
    tools = [governed(worker("wa", "a", seconds=5), policy), governed(worker("wb", "b"), policy)]
    model = AdversarialModel(
        seed=seed,
        behaviours=[
            "malformed_json",
            "unknown_tool",
            "duplicate_call_ids",
            "repeated_calls",
            "missing_task",
            "non_object_arguments",
            "fan_out",
            "valid_calls",
        ],
        fan_out=6,
    )
    graph = build(shape, model, tools)

    run = simulate_run(lambda: graph.ainvoke(user("go")), raise_errors=False)

    assert not run.trace.unbalanced()
    assert check_invariants(run.trace) == []
    for ended in handoffs(run.trace):
        assert ended.status in {"completed", "unavailable", "denied", "failed"}


def test_governed_refuses_what_is_not_a_graph_or_a_policy() -> None:
    with pytest.raises(GovernanceError, match="compiled LangGraph graph"):
        governed("not a graph")  # type: ignore[arg-type]
    with pytest.raises(GovernanceError, match="policy must be a HandoffPolicy"):
        governed(worker("wa", "a"), {"timeout": 3})  # type: ignore[arg-type]


def test_tool_takes_task_and_context_and_the_agent_reads_both() -> None:
    seen = ScriptedModel([{"text": "ok"}])
    tool = governed(create_agent(SimChatModel(seen), name="reader"), name="ask_reader")
    assert tool.name == "ask_reader"
    assert set(tool.args) == {"task", "context"}
    call = {"id": "x1", "name": "ask_reader", "arguments": {"task": "sum", "context": "1, 2"}}
    graph = build("create_agent", ScriptedModel([{"tool_calls": [call]}, {"text": "done"}]), [tool])

    simulate_run(lambda: graph.ainvoke(user("go")))

    text = seen.requests[0].messages[-1].content or ""
    assert text.startswith("sum")
    assert "1, 2" in text
