"""LangGraph graphs the adapter tests run: each prebuilt shape, on our fake models.

Imported only by test modules that skipped already without the ``langgraph`` extra.
"""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from langchain_core.tools import tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import create_react_agent
from langgraph.warnings import LangGraphDeprecatedSinceV10
from langgraph_supervisor import create_supervisor
from langgraph_swarm import create_handoff_tool, create_swarm

from handoff_sim.adapters.langgraph import SimChatModel
from handoff_sim.testing import ScriptedModel

__all__ = [
    "HOUR",
    "agents_as_tools",
    "calls",
    "hand_written",
    "parallel_supervisor",
    "prebuilt",
    "scripted",
    "slow_lookup",
    "supervisor",
    "supervisor_with",
    "swarm",
    "user",
]

HOUR = 3600.0


def _create_agent(*args: Any, **kwargs: Any) -> Any:
    """LangChain's ``create_agent``, imported on first use: its module takes a quarter of a
    second to load, which the fresh interpreters building only a supervisor do not need."""
    from langchain.agents import create_agent

    return create_agent(*args, **kwargs)


def user(text: str) -> dict[str, Any]:
    """The graph input: one user message."""
    return {"messages": [{"role": "user", "content": text}]}


def calls(*names: str, prefix: str = "c") -> dict[str, Any]:
    """A script step calling each tool once, with ids ``<prefix>1``, ``<prefix>2``..."""
    return {
        "tool_calls": [
            {"id": f"{prefix}{i}", "name": name, "arguments": {}}
            for i, name in enumerate(names, start=1)
        ]
    }


def scripted(*steps: Any) -> SimChatModel:
    """A chat model answering with ``steps`` in order."""
    return SimChatModel(ScriptedModel(list(steps)))


@tool
async def slow_lookup(query: str) -> str:
    """Look something up; it takes an hour."""
    await asyncio.sleep(HOUR)
    return f"found {query}"


@contextmanager
def prebuilt() -> Iterator[None]:
    """``create_react_agent`` without its deprecation warning.

    langgraph-supervisor 0.0.31 builds its supervisor with it, and its docs' workers are
    made with it, so the tests use it as those users do.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LangGraphDeprecatedSinceV10)
        yield


def _worker(name: str, answer: str) -> Any:
    lookup = {"id": f"{name}-1", "name": "slow_lookup", "arguments": {"query": name}}
    with prebuilt():
        return create_react_agent(
            scripted({"tool_calls": [lookup]}, {"text": answer}), [slow_lookup], name=name
        )


def supervisor() -> Any:
    """A supervisor delegating to a researcher whose tool takes an hour, then answering."""
    with prebuilt():
        return create_supervisor(
            [_worker("researcher", "facts")],
            model=scripted(calls("transfer_to_researcher", prefix="s"), {"text": "report"}),
        ).compile()


def supervisor_with(model: Any) -> Any:
    """The supervisor of :func:`supervisor` with another model of its own."""
    with prebuilt():
        return create_supervisor([_worker("researcher", "facts")], model=model).compile()


def parallel_supervisor() -> Any:
    """A supervisor handing off to two workers in one turn (``parallel_tool_calls=True``)."""
    with prebuilt():
        return create_supervisor(
            [_worker("wa", "answer a"), _worker("wb", "answer b")],
            model=scripted(
                calls("transfer_to_wa", "transfer_to_wb", prefix="s"), {"text": "both done"}
            ),
            parallel_tool_calls=True,
        ).compile()


def swarm() -> Any:
    """alice hands off to bob (a swarm handoff tool); bob's tool takes an hour."""
    alice = _create_agent(
        scripted(calls("transfer_to_bob", prefix="a")),
        tools=[create_handoff_tool(agent_name="bob")],
        name="alice",
    )
    lookup = {"id": "b1", "name": "slow_lookup", "arguments": {"query": "bob"}}
    bob = _create_agent(
        scripted({"tool_calls": [lookup]}, {"text": "bob answers"}),
        tools=[slow_lookup],
        name="bob",
    )
    return create_swarm([alice, bob], default_active_agent="alice").compile()


def agents_as_tools(parallel: bool = False) -> Any:
    """A ``create_agent`` orchestrator calling two agents through tools that invoke them."""
    research = _create_agent(
        scripted(
            {"tool_calls": [{"id": "r1", "name": "slow_lookup", "arguments": {"query": "q"}}]},
            {"text": "research notes"},
        ),
        tools=[slow_lookup],
        name="research_agent",
    )
    writer = _create_agent(scripted({"text": "a draft"}), name="writer_agent")

    @tool
    async def research_tool(request: str) -> str:
        """Ask the research agent."""
        result = await research.ainvoke(user(request))
        return str(result["messages"][-1].content)

    @tool
    async def write_tool(request: str) -> str:
        """Ask the writer agent."""
        result = await writer.ainvoke(user(request))
        return str(result["messages"][-1].content)

    first = [
        {"id": "t1", "name": "research_tool", "arguments": {"request": "look"}},
        {"id": "t2", "name": "write_tool", "arguments": {"request": "write"}},
    ]
    steps: list[Any] = (
        [{"tool_calls": first}]
        if parallel
        else [{"tool_calls": first[:1]}, {"tool_calls": first[1:]}]
    )
    return _create_agent(
        scripted(*steps, {"text": "all done"}),
        tools=[research_tool, write_tool],
        name="orchestrator",
    )


def hand_written() -> Any:
    """A ``StateGraph`` whose node calls the model with tools bound, then a tool node."""
    model = scripted(
        {"tool_calls": [{"id": "h1", "name": "slow_lookup", "arguments": {"query": "x"}}]},
        {"text": "hand done"},
    ).bind_tools([slow_lookup])

    async def think(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    async def act(state: MessagesState) -> dict[str, Any]:
        last = state["messages"][-1]
        results = [await slow_lookup.ainvoke(call) for call in last.tool_calls]
        return {"messages": results}

    def route(state: MessagesState) -> str:
        return "act" if state["messages"][-1].tool_calls else END

    builder = StateGraph(MessagesState)
    builder.add_node("think", think)
    builder.add_node("act", act)
    builder.add_edge(START, "think")
    builder.add_conditional_edges("think", route, ["act", END])
    builder.add_edge("act", "think")
    return builder.compile(name="hand_written")
