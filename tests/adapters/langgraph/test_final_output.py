"""``SimulatedRun.final_output`` on a LangGraph result: the last AI message's text."""

from __future__ import annotations

from typing import Any

from tests._helpers import import_extra

import_extra("langgraph", "langgraph")
import_extra("langgraph", "langgraph_supervisor")
import_extra("langgraph", "langgraph_swarm")

from langchain.agents import create_agent  # noqa: E402
from langchain_core.messages import AIMessage, HumanMessage  # noqa: E402
from langgraph.graph import START, MessagesState, StateGraph  # noqa: E402

from handoff_sim.adapters.langgraph import simulate_run  # noqa: E402
from tests.adapters.langgraph import _graphs as graphs  # noqa: E402


def _graph_answering(*messages: Any) -> Any:
    """A one-node graph whose node appends ``messages`` to the state."""

    async def answer(state: MessagesState) -> dict[str, Any]:
        return {"messages": list(messages)}

    builder = StateGraph(MessagesState)
    builder.add_node("answer", answer)
    builder.add_edge(START, "answer")
    return builder.compile(name="answering")


def test_final_output_of_a_create_agent_run_is_its_answer() -> None:
    agent = create_agent(graphs.scripted({"text": "the answer"}), name="solo")
    run = simulate_run(lambda: agent.ainvoke(graphs.user("question")))
    assert run.final_output == "the answer"
    assert run.output == "the answer"


def test_final_output_is_the_orchestrators_last_answer_not_a_sub_agents() -> None:
    agent = graphs.agents_as_tools()
    run = simulate_run(lambda: agent.ainvoke(graphs.user("go")))
    assert run.final_output == "all done"  # not "research notes" or "a draft"


def test_final_output_of_a_supervisor_run_is_the_supervisors_answer() -> None:
    supervisor = graphs.supervisor()
    run = simulate_run(lambda: supervisor.ainvoke(graphs.user("go")))
    assert run.final_output == "report"


def test_final_output_skips_messages_after_the_last_ai_message_and_joins_text_blocks() -> None:
    blocks = [{"type": "text", "text": "part one, "}, {"type": "text", "text": "part two"}]
    graph = _graph_answering(AIMessage(content=blocks), HumanMessage(content="thanks"))
    run = simulate_run(lambda: graph.ainvoke(graphs.user("go")))
    assert run.final_output == "part one, part two"


def test_final_output_is_none_when_the_state_has_no_ai_message() -> None:
    graph = _graph_answering(HumanMessage(content="only people here"))
    run = simulate_run(lambda: graph.ainvoke(graphs.user("go")))
    assert run.result is not None
    assert len(run.result["messages"]) == 2  # the node ran: the state has messages, none AI
    assert run.final_output is None
