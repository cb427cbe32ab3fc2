"""governed_handoffs(...): admission on supervisor and swarm transfers (no attempt to retry).

An admitted transfer is the original tool's ``Command``; a denied one is a denied handoff
in the trace and an error ``ToolMessage`` for the model, and the graph stays with the
agent that asked (or, under ``FAIL``, the run raises).
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
from langchain_core.tools import tool  # noqa: E402
from langgraph_supervisor import create_handoff_tool as supervisor_handoff  # noqa: E402
from langgraph_supervisor import create_supervisor  # noqa: E402
from langgraph_swarm import create_handoff_tool as swarm_handoff  # noqa: E402
from langgraph_swarm import create_swarm  # noqa: E402

from handoff_sim import (  # noqa: E402
    FailureAction,
    HandoffDeniedError,
    HandoffPolicy,
    check_invariants,
)
from handoff_sim.adapters import GovernanceError  # noqa: E402
from handoff_sim.adapters.langgraph import (  # noqa: E402
    SimChatModel,
    governed_handoffs,
    simulate_run,
)
from handoff_sim.testing import AdversarialModel, ScriptedModel  # noqa: E402

pytestmark = pytest.mark.filterwarnings(  # langgraph-supervisor's own deprecated call
    "ignore::langgraph.warnings.LangGraphDeprecatedSinceV10"
)

REPORT = FailureAction.REPORT_TO_MODEL


def user(text: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}]}


def step(*names: str, prefix: str = "s") -> dict[str, Any]:
    return {
        "tool_calls": [
            {"id": f"{prefix}{i}", "name": n, "arguments": {}} for i, n in enumerate(names, 1)
        ]
    }


def worker(name: str) -> Any:
    return create_agent(SimChatModel(ScriptedModel([{"text": f"{name} answer"}] * 3)), name=name)


def supervisor(model: Any, policy: HandoffPolicy, cap: int | None = None) -> Any:
    tools = governed_handoffs(
        [supervisor_handoff(agent_name="wa"), supervisor_handoff(agent_name="wb")],
        policy=policy,
        max_transfers=cap,
    )
    chat = model if isinstance(model, SimChatModel) else SimChatModel(model)
    return create_supervisor(
        [worker("wa"), worker("wb")], model=chat, tools=tools, parallel_tool_calls=True
    ).compile()


def swarm(model: Any, policy: HandoffPolicy, cap: int | None = None) -> Any:
    to_bob, to_carol = governed_handoffs(
        [swarm_handoff(agent_name="bob"), swarm_handoff(agent_name="carol")],
        policy=policy,
        max_transfers=cap,
    )
    chat = model if isinstance(model, SimChatModel) else SimChatModel(model)
    alice = create_agent(chat, tools=[to_bob, to_carol], name="alice")
    return create_swarm(
        [alice, worker("bob"), worker("carol")], default_active_agent="alice"
    ).compile()


def refusals(result: Any) -> list[ToolMessage]:
    return [m for m in result["messages"] if isinstance(m, ToolMessage) and m.status == "error"]


def denied(trace: Any) -> list[Any]:
    return [e for e in trace.events if e.type == "handoff_end" and e.status == "denied"]


def test_supervisor_denied_transfer_is_refused_and_the_supervisor_keeps_control() -> None:
    model = ScriptedModel(
        [step("transfer_to_wb"), step("transfer_to_wa", prefix="t"), {"text": "done"}]
    )
    graph = supervisor(model, HandoffPolicy(denied_tools=["transfer_to_wb"], on_denied=REPORT))

    run = simulate_run(lambda: graph.ainvoke(user("go")))

    (refused,) = refusals(run.result)
    assert refused.name == "transfer_to_wb"
    assert "tool is in denied_tools" in str(refused.content)
    assert [e.subagent for e in denied(run.trace)] == ["wb"]
    assert [(t.from_agent, t.to_agent) for t in run.transfers] == [
        ("supervisor", "wa"),
        ("wa", "supervisor"),
    ]  # wb never got control; the model's next call went on from the supervisor
    assert model.requests[1].messages[-1].content == refused.content
    assert not any(e.type == "run_start" and e.agent == "wb" for e in run.trace.events)
    assert check_invariants(run.trace) == []


def test_swarm_denied_transfer_keeps_the_active_agent() -> None:
    model = ScriptedModel([step("transfer_to_bob"), {"text": "alice answers herself"}])
    graph = swarm(model, HandoffPolicy(denied_tools=["transfer_to_bob"], on_denied=REPORT))

    run = simulate_run(lambda: graph.ainvoke(user("go")))

    assert run.result.get("active_agent", "alice") == "alice"
    assert run.result["messages"][-1].content == "alice answers herself"
    assert [e.subagent for e in denied(run.trace)] == ["bob"]
    assert run.transfers == ()
    assert check_invariants(run.trace) == []


@pytest.mark.parametrize("shape", ["supervisor", "swarm"])
def test_denied_transfer_under_fail_raises_out_of_the_run(shape: str) -> None:
    name = "transfer_to_wa" if shape == "supervisor" else "transfer_to_bob"
    build = supervisor if shape == "supervisor" else swarm
    graph = build(ScriptedModel([step(name)]), HandoffPolicy(denied_tools=[name]))

    run = simulate_run(lambda: graph.ainvoke(user("go")), raise_errors=False)

    assert isinstance(run.error, HandoffDeniedError)
    assert run.error.tool == name
    assert not run.trace.unbalanced()


def test_parallel_transfers_over_the_cap_refuse_the_later_calls_in_call_order() -> None:
    model = ScriptedModel([step("transfer_to_wa", "transfer_to_wb"), {"text": "done"}] * 2)
    graph = supervisor(model, HandoffPolicy(on_denied=REPORT), cap=1)

    runs = [simulate_run(lambda: graph.ainvoke(user("go"))) for _ in range(2)]

    for run in runs:
        (refusal,) = denied(run.trace)  # the second call of the answer, every run
        assert (refusal.tool, refusal.subagent) == ("transfer_to_wb", "wb")
        assert "transfer 2 of this run exceeds max_transfers 1" in (refusal.error or "")
        assert [t.to_agent for t in run.transfers if t.from_agent == "supervisor"] == ["wa"]
        assert not any(e.type == "run_start" and e.agent == "wb" for e in run.trace.events)
        assert check_invariants(run.trace) == []
    assert runs[0].trace.to_jsonl() == runs[1].trace.to_jsonl()


def test_cap_counts_the_transfers_of_one_user_turn_only() -> None:
    model = ScriptedModel(
        [step("transfer_to_bob"), step("transfer_to_bob", prefix="t"), {"text": "x"}]
    )
    graph = swarm(model, HandoffPolicy(on_denied=REPORT), cap=1)

    async def two_turns() -> Any:
        first = await graph.ainvoke(user("one"))
        again = {"messages": [*first["messages"], {"role": "user", "content": "two"}]}
        return await graph.ainvoke({**again, "active_agent": "alice"})

    run = simulate_run(two_turns)

    assert refusals(run.result) == []  # one transfer per turn: the cap of 1 holds twice
    assert [t.to_agent for t in run.transfers] == ["bob", "bob"]


def test_nested_transfer_over_max_depth_is_denied() -> None:
    """A swarm run inside a governed delegation is one level down: depth 2 > max_depth 1."""
    from handoff_sim.adapters.langgraph import governed

    model = ScriptedModel([step("transfer_to_bob"), {"text": "stayed"}])
    inner = swarm(model, HandoffPolicy(max_depth=1, on_denied=REPORT))
    inner.name = "team"
    top_model = ScriptedModel(
        [
            {"tool_calls": [{"id": "d1", "name": "subagent_team", "arguments": {"task": "go"}}]},
            {"text": "ok"},
        ]
    )
    top = create_agent(SimChatModel(top_model), tools=[governed(inner)], name="top")

    run = simulate_run(lambda: top.ainvoke(user("go")))

    (refusal,) = denied(run.trace)
    assert (refusal.subagent, refusal.reason, refusal.depth) == ("bob", "max_depth", 2)
    assert check_invariants(run.trace) == []


@pytest.mark.parametrize("shape", ["supervisor", "swarm"])
@pytest.mark.parametrize("seed", range(4))
def test_adversarial_model_on_governed_transfers_keeps_the_trace_balanced(
    shape: str, seed: int
) -> None:
    model = AdversarialModel(
        seed=seed,
        behaviours=[
            "malformed_json",
            "unknown_tool",
            "duplicate_call_ids",
            "repeated_calls",
            "fan_out",
            "valid_calls",
        ],
        fan_out=5,
    )
    build = supervisor if shape == "supervisor" else swarm
    graph = build(model, HandoffPolicy(on_denied=REPORT), cap=2)

    run = simulate_run(lambda: graph.ainvoke(user("go")), raise_errors=False)

    assert not run.trace.unbalanced()
    assert check_invariants(run.trace) == []


def test_the_sync_invoke_path_is_governed_too() -> None:
    model = ScriptedModel([step("transfer_to_wb"), {"text": "done"}])
    graph = supervisor(model, HandoffPolicy(denied_tools=["transfer_to_wb"], on_denied=REPORT))

    result = graph.invoke(user("go"))  # outside any simulation: LangGraph's own threads

    (refused,) = refusals(result)
    assert "tool is in denied_tools" in str(refused.content)
    assert result["messages"][-1].content == "done"


def test_governed_handoffs_refuses_a_tool_that_is_no_handoff_tool() -> None:
    @tool
    def lookup(q: str) -> str:
        """Look up."""
        return q

    with pytest.raises(GovernanceError, match="'lookup' is no handoff tool"):
        governed_handoffs([lookup])
    with pytest.raises(GovernanceError, match="max_transfers must be an int"):
        governed_handoffs([swarm_handoff(agent_name="bob")], max_transfers=-1)
