"""The LangGraph adapter: SimChatModel in each shape, capture, virtual time, determinism."""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests._helpers import import_extra

import_extra("langgraph", "langgraph")
import_extra("langgraph", "langgraph_supervisor")
import_extra("langgraph", "langgraph_swarm")

from langchain_core.messages import AIMessage, HumanMessage  # noqa: E402
from langchain_core.tools import tool  # noqa: E402
from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402

from handoff_sim import check_invariants  # noqa: E402
from handoff_sim.adapters import MissingExtraError  # noqa: E402
from handoff_sim.adapters.langgraph import (  # noqa: E402
    SimChatModel,
    SimModel,
    SyncInvokeError,
    capture,
    simulate_run,
)
from handoff_sim.messages import ModelRequest, ModelResponse, ToolCall  # noqa: E402
from handoff_sim.simulation import Simulation  # noqa: E402
from handoff_sim.testing import FunctionModel, ScriptedModel  # noqa: E402
from tests.adapters._extras import hide  # noqa: E402
from tests.adapters.langgraph import _graphs as graphs  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]

SHAPES = {
    "supervisor": (graphs.supervisor, "report"),
    "swarm": (graphs.swarm, "bob answers"),
    "create_agent_with_agents_as_tools": (graphs.agents_as_tools, "all done"),
    "hand_written_state_graph": (graphs.hand_written, "hand done"),
}


def _final(result: dict[str, Any]) -> str:
    return str(result["messages"][-1].content)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_each_langgraph_shape_runs_on_sim_chat_model_with_a_balanced_trace(shape: str) -> None:
    build, answer = SHAPES[shape]
    run = simulate_run(lambda: build().ainvoke(graphs.user("go")))
    assert _final(run.result) == answer
    assert check_invariants(run.trace) == []
    assert run.trace.unbalanced() == []


@pytest.mark.parametrize("shape", ["supervisor", "swarm", "create_agent_with_agents_as_tools"])
def test_a_worker_whose_tool_sleeps_an_hour_finishes_at_3600_virtual_seconds(shape: str) -> None:
    build, _ = SHAPES[shape]
    run = simulate_run(lambda: build().ainvoke(graphs.user("go")))
    assert run.elapsed_ms == graphs.HOUR * 1000


def test_create_react_agent_alone_runs_on_sim_chat_model() -> None:
    from langgraph.prebuilt import create_react_agent

    with graphs.prebuilt():
        agent = create_react_agent(graphs.scripted("hello"), [], name="solo")
    run = simulate_run(lambda: agent.ainvoke(graphs.user("hi")))
    assert _final(run.result) == "hello"
    first = run.trace.events[0]
    assert (first.type, first.agent) == ("run_start", "solo")


def test_supervisor_handoffs_and_the_automatic_transfer_back_are_transfers() -> None:
    run = simulate_run(lambda: graphs.supervisor().ainvoke(graphs.user("go")))
    moves = [(t.from_agent, t.to_agent, t.tool) for t in run.transfers]
    assert moves == [
        ("supervisor", "researcher", "transfer_to_researcher"),
        ("researcher", "supervisor", "transfer_back_to_supervisor"),
    ]
    runs = [e for e in run.trace.events if e.type == "run_start"]
    assert [r.agent for r in runs] == ["supervisor", "researcher", "supervisor"]
    assert runs[1].parent_run_id == runs[0].run_id  # the run that transferred
    assert len({r.session_id for r in runs}) == 1  # one conversation throughout


def test_swarm_handoff_is_a_transfer_and_bob_runs_next() -> None:
    run = simulate_run(lambda: graphs.swarm().ainvoke(graphs.user("go")))
    assert [(t.from_agent, t.to_agent) for t in run.transfers] == [("alice", "bob")]
    assert run.trace.render().count("run_start") == 2


def test_an_agent_invoked_inside_a_tool_is_a_handoff_with_one_attempt() -> None:
    run = simulate_run(lambda: graphs.agents_as_tools(parallel=True).ainvoke(graphs.user("go")))
    ends = {e.subagent: e for e in run.trace.events if e.type == "handoff_end"}
    assert sorted(ends) == ["research_agent", "writer_agent"]
    assert ends["research_agent"].attempts == 1
    assert ends["research_agent"].output == "research notes"
    assert ends["research_agent"].duration_ms == graphs.HOUR * 1000
    assert {e.depth for e in run.trace.events if e.agent == "writer_agent"} == {1}


def test_parallel_supervisor_fan_out_gives_one_trace_20_times_in_one_process() -> None:
    def once() -> str:
        run = simulate_run(lambda: graphs.parallel_supervisor().ainvoke(graphs.user("go")))
        return run.trace.to_jsonl()

    traces = {once() for _ in range(20)}
    assert len(traces) == 1


_FRESH = """
import sys, warnings
warnings.simplefilter("ignore")
sys.path.insert(0, sys.argv[1])
from tests.adapters.langgraph._graphs import parallel_supervisor, user
from handoff_sim.adapters.langgraph import simulate_run
print(simulate_run(lambda: parallel_supervisor().ainvoke(user("go"))).trace.to_jsonl())
"""


@pytest.mark.slow
def test_parallel_supervisor_fan_out_gives_one_trace_in_10_fresh_processes() -> None:
    traces = set()
    for hash_seed in range(10):
        env = {**os.environ, "PYTHONHASHSEED": str(hash_seed)}
        done = subprocess.run(
            [sys.executable, "-c", _FRESH, str(ROOT)],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        )
        traces.add(done.stdout)
    assert len(traces) == 1
    assert '"agent":"wa"' in next(iter(traces)) or '"agent":"wb"' in next(iter(traces))


def test_sync_invoke_inside_a_simulation_is_refused_naming_ainvoke() -> None:
    with pytest.raises(SyncInvokeError) as raised:
        simulate_run(lambda: graphs.supervisor().invoke(graphs.user("go")))
    assert "graph.ainvoke(...)" in str(raised.value)
    assert "astream" in str(raised.value)


def test_sync_invoke_without_sim_chat_model_is_still_refused_after_it_returns() -> None:
    from langgraph.graph import START, MessagesState, StateGraph

    builder = StateGraph(MessagesState)
    builder.add_node("echo", lambda state: {"messages": [AIMessage("echo")]})
    builder.add_edge(START, "echo")
    graph = builder.compile()
    with pytest.raises(SyncInvokeError, match="ainvoke"):
        simulate_run(lambda: graph.invoke(graphs.user("go")))


def test_bound_tool_calls_get_ids_and_malformed_arguments_become_invalid_tool_calls() -> None:
    model = SimChatModel(
        ScriptedModel(
            [
                {
                    "tool_calls": [
                        {"id": "", "name": "lookup", "arguments": {"query": "a"}},
                        {"id": "bad", "name": "lookup", "arguments": "{not json"},
                    ]
                }
            ]
        )
    ).bind_tools([graphs.slow_lookup])
    message = asyncio.run(model.ainvoke([HumanMessage("go")]))
    assert isinstance(message, AIMessage)
    assert [(c["id"], c["name"], c["args"]) for c in message.tool_calls] == [
        ("call_1_0", "lookup", {"query": "a"})
    ]
    assert [(c["id"], c["args"]) for c in message.invalid_tool_calls] == [("bad", "{not json")]


def test_the_fake_sees_the_conversation_the_bound_tools_and_the_agent_name() -> None:
    seen: list[ModelRequest] = []

    def answer(request: ModelRequest) -> ModelResponse:
        seen.append(request)
        return ModelResponse(text="ok")

    from langchain.agents import create_agent

    agent = create_agent(
        SimChatModel(FunctionModel(answer)),
        tools=[graphs.slow_lookup],
        system_prompt="be brief",
        name="helper",
    )
    asyncio.run(agent.ainvoke(graphs.user("hello")))
    request = seen[0]
    assert request.agent == "helper"
    assert [(m.role, m.content) for m in request.messages] == [
        ("system", "be brief"),
        ("user", "hello"),
    ]
    assert request.tool_names == ("slow_lookup",)


def test_streaming_gives_chunks_with_the_tool_call_and_usage_last() -> None:
    model = SimChatModel(
        ScriptedModel(
            [
                {
                    "text": "hi",
                    "tool_calls": [
                        {"id": "c1", "name": "slow_lookup", "arguments": {"query": "q"}}
                    ],
                    "usage": {"input_tokens": 3, "output_tokens": 2},
                }
            ]
        )
    ).bind_tools([graphs.slow_lookup])

    async def stream() -> list[Any]:
        return [chunk async for chunk in model.astream([HumanMessage("go")])]

    chunks = asyncio.run(stream())
    assert len(chunks) == 3
    merged = chunks[0] + chunks[1] + chunks[2]
    assert merged.content == "hi"
    assert [(c["id"], c["args"]) for c in merged.tool_calls] == [("c1", {"query": "q"})]
    assert merged.usage_metadata is not None
    assert merged.usage_metadata["total_tokens"] == 5


def test_model_latency_is_virtual_and_astream_results_are_collected() -> None:
    agent = graphs.hand_written()
    run = simulate_run(lambda: agent.astream(graphs.user("go"), stream_mode="updates"))
    assert isinstance(run.result, list)
    assert [next(iter(update)) for update in run.result] == ["think", "act", "think"]
    assert run.elapsed_ms == graphs.HOUR * 1000


def test_multi_turn_thread_ids_with_in_memory_saver_keep_the_conversation() -> None:
    from langchain.agents import create_agent

    seen: list[int] = []

    def answer(request: ModelRequest) -> ModelResponse:
        seen.append(len(request.messages))
        return ModelResponse(text=f"turn {len(seen)}")

    agent = create_agent(
        SimChatModel(FunctionModel(answer)), checkpointer=InMemorySaver(), name="chat"
    )
    config = {"configurable": {"thread_id": "t1"}}

    async def two_turns() -> Any:
        await agent.ainvoke(graphs.user("one"), config)
        return await agent.ainvoke(graphs.user("two"), config)

    run = simulate_run(two_turns)
    assert _final(run.result) == "turn 2"
    assert seen == [1, 3]  # the second turn sees the first one's messages


def test_sync_tools_run_inline_in_call_order_without_escaping_virtual_time() -> None:
    order: list[str] = []

    @tool
    def first(query: str) -> str:
        """Sync tool one."""
        order.append("first")
        return "1"

    @tool
    def second(query: str) -> str:
        """Sync tool two."""
        order.append("second")
        return "2"

    from langchain.agents import create_agent

    both = [
        {"id": "a", "name": "first", "arguments": {"query": "x"}},
        {"id": "b", "name": "second", "arguments": {"query": "y"}},
    ]
    for _ in range(3):
        order.clear()
        agent = create_agent(graphs.scripted({"tool_calls": both}, "done"), tools=[first, second])
        simulate_run(agent.ainvoke(graphs.user("go")))
        assert order == ["first", "second"]


def test_capture_records_a_run_on_a_simulation_of_ones_own_and_its_transfers() -> None:
    async def main() -> Any:
        with capture() as cap:
            await graphs.swarm().ainvoke(graphs.user("go"))
        return cap

    with Simulation() as sim:
        cap = sim.run_coroutine(main())
    assert check_invariants(cap.trace) == []
    assert [t.to_agent for t in cap.transfers] == ["bob"]


def test_a_malformed_tool_call_is_ended_as_not_run_and_the_trace_stays_balanced() -> None:
    from langchain.agents import create_agent

    agent = create_agent(
        graphs.scripted(
            {"tool_calls": [{"id": "x", "name": "slow_lookup", "arguments": "{oops"}]}, "fine"
        ),
        tools=[graphs.slow_lookup],
    )
    run = simulate_run(lambda: agent.ainvoke(graphs.user("go")))
    assert check_invariants(run.trace) == []
    ends = [e for e in run.trace.events if e.type == "tool_end"]
    assert [(e.call_id, e.status) for e in ends] == [("x", "error")]


def test_sim_model_is_sim_chat_model_for_the_adapters_common_names() -> None:
    assert SimModel is SimChatModel
    assert ToolCall  # our neutral call type is what scripts name


def test_importing_the_adapter_without_langgraph_names_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hide(monkeypatch, "langgraph", "handoff_sim.adapters.langgraph")
    with pytest.raises(MissingExtraError) as raised:
        importlib.import_module("handoff_sim.adapters.langgraph")
    assert raised.value.extra == "langgraph"
    assert "pip install 'handoff-sim[langgraph]'" in str(raised.value)


def test_trace_json_lines_parse_and_name_every_agent() -> None:
    run = simulate_run(lambda: graphs.parallel_supervisor().ainvoke(graphs.user("go")))
    agents = {json.loads(line)["agent"] for line in run.trace.to_jsonl().splitlines()}
    assert "supervisor" in agents


def test_a_node_returning_command_goto_is_a_transfer_from_its_graphs_run() -> None:
    from typing import Literal

    from langgraph.graph import START, MessagesState, StateGraph
    from langgraph.types import Command

    model = graphs.scripted("triaged", "billing answer")

    async def triage(state: MessagesState) -> Command[Literal["billing"]]:
        return Command(
            goto="billing", update={"messages": [await model.ainvoke(state["messages"])]}
        )

    async def billing(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    builder = StateGraph(MessagesState)
    builder.add_node("triage", triage)
    builder.add_node("billing", billing)
    builder.add_edge(START, "triage")
    graph = builder.compile(name="desk")
    run = simulate_run(lambda: graph.ainvoke(graphs.user("hi")))
    assert [(t.from_agent, t.to_agent, t.tool) for t in run.transfers] == [
        ("desk", "billing", "triage")
    ]
    assert check_invariants(run.trace) == []


def test_step_timeout_and_retry_backoff_run_in_virtual_time() -> None:
    from langgraph.graph import START, MessagesState, StateGraph
    from langgraph.types import RetryPolicy

    attempts: list[int] = []

    async def flaky(state: MessagesState) -> dict[str, Any]:
        attempts.append(len(attempts))
        if len(attempts) < 3:
            raise ConnectionError("try again")
        return {"messages": [AIMessage("ok")]}

    builder = StateGraph(MessagesState)
    policy = RetryPolicy(initial_interval=10, backoff_factor=2, jitter=False, max_attempts=3)
    builder.add_node("flaky", flaky, retry_policy=policy)
    builder.add_edge(START, "flaky")
    run = simulate_run(lambda: builder.compile().ainvoke(graphs.user("go")))
    assert run.elapsed_ms == 30_000  # 10 s, then 20 s of backoff

    app = graphs.supervisor()
    app.step_timeout = 600
    timed = simulate_run(lambda: app.ainvoke(graphs.user("go")), raise_errors=False)
    assert timed.error is not None
    assert timed.elapsed_ms == 600_000
    assert timed.trace.unbalanced() == []


def test_an_adversarial_supervisor_model_leaves_a_balanced_trace() -> None:
    from handoff_sim.testing import AdversarialModel

    for seed in range(3):
        app = graphs.supervisor_with(SimChatModel(AdversarialModel(seed=seed, fan_out=3)))
        run = simulate_run(app.ainvoke(graphs.user("go")), raise_errors=False)
        assert run.trace.unbalanced() == [], seed
        assert check_invariants(run.trace) == [], seed


def test_sync_stream_inside_a_simulation_is_refused_before_it_runs() -> None:
    ran: list[str] = []

    @tool
    def note(text: str) -> str:
        """Note something."""
        ran.append(text)
        return "noted"

    from langchain.agents import create_agent

    call = {"id": "n1", "name": "note", "arguments": {"text": "x"}}
    agent = create_agent(graphs.scripted({"tool_calls": [call]}, "done"), tools=[note])
    with pytest.raises(SyncInvokeError, match="astream"):
        simulate_run(lambda: agent.stream(graphs.user("go")))
    assert ran == []  # a sync stream is a generator: refused before its first step


def test_a_chat_model_other_than_ours_is_recorded_from_langchains_callbacks() -> None:
    from langchain.agents import create_agent
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

    agent = create_agent(GenericFakeChatModel(messages=iter([AIMessage("plain")])), name="other")
    run = simulate_run(lambda: agent.ainvoke(graphs.user("hi")))
    responses = [e for e in run.trace.events if e.type == "model_response"]
    assert [(e.agent, e.text) for e in responses] == [("other", "plain")]
    assert check_invariants(run.trace) == []


def test_outside_a_simulation_the_sync_invoke_runs_the_fake_on_a_loop_of_its_own() -> None:
    message = graphs.scripted("sync hello").invoke([HumanMessage("hi")])
    assert message.content == "sync hello"


def test_a_replay_model_plays_its_lane_with_its_recorded_latency_in_virtual_time() -> None:
    from langchain.agents import create_agent

    from handoff_sim.recording import ReplayModel

    replay = ReplayModel(
        [{"text": "recorded answer", "latency": "5s"}], agent="replayed", match="order"
    )
    agent = create_agent(SimChatModel(replay), name="replayed")
    run = simulate_run(lambda: agent.ainvoke(graphs.user("hi")))
    assert _final(run.result) == "recorded answer"
    assert run.elapsed_ms == 5_000
    replay.assert_complete()
