"""The LangGraph runs bench/adapters.py times: agents used as tools, and a supervisor.

Both frameworks' variants run the same graphs on the same fake model
(``SimChatModel(ScriptedModel)``: langchain-core's own fakes cannot bind tools), so
``framework`` against ``handoff-sim`` is the cost of ``capture()`` and virtual time
alone. ``framework`` is ``asyncio.run(graph.ainvoke(...))``, as a test without
handoff-sim would run it; ``callbacks only`` is that run with a LangChain callback
handler that does nothing, joined the way ``capture()`` joins its own (a context
variable given to ``register_configure_hook``): what LangChain's observation point
costs before handoff-sim records anything.
"""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Callable
from contextvars import ContextVar
from functools import cache
from typing import Any

Run = Callable[[], Any]
EXTRA_VARIANTS = ("callbacks only",)
"""Variants of the LangGraph runs beside bench/adapters.py's three."""


@cache
def _noop_handler() -> tuple[ContextVar[Any], Any]:
    """A context variable LangChain reads handlers from, and a handler that does nothing.

    Made on first use: bench/adapters.py imports this module without langchain-core too.
    """
    from langchain_core.callbacks import BaseCallbackHandler
    from langchain_core.tracers.context import register_configure_hook

    class Noop(BaseCallbackHandler):
        run_inline = True  # called inline, as capture()'s handler is

    var: ContextVar[Any] = ContextVar("bench_noop_handler", default=None)
    register_configure_hook(var, inheritable=True)
    return var, Noop()


__all__ = ["EXTRA_VARIANTS", "lg_agents_run", "lg_supervisor_run"]


def _user(text: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}]}


def _model(*steps: dict[str, Any]) -> Any:
    from handoff_sim.adapters.langgraph import SimChatModel
    from handoff_sim.testing import ScriptedModel

    return SimChatModel(ScriptedModel(list(steps)))


def _script(names: list[str], arguments: dict[str, Any], latency: float) -> list[dict[str, Any]]:
    """The parent's two turns: every tool in ``names`` at once, then the answer."""
    calls = [{"id": f"c{i}", "name": name, "arguments": arguments} for i, name in enumerate(names)]
    return [{"tool_calls": calls, "latency": latency}, {"text": "done", "latency": latency}]


def _agent_tool(sub: Any, name: str) -> Any:
    """LangChain's documented agent-as-tool: a tool whose body invokes another agent."""
    from langchain_core.tools import StructuredTool

    async def ask(request: str) -> str:
        result = await sub.ainvoke(_user(request))
        return str(result["messages"][-1].content)

    return StructuredTool.from_function(coroutine=ask, name=name, description="Ask")


def _with_noop_handler(graph: Any) -> Any:
    var, handler = _noop_handler()
    token = var.set(handler)
    try:
        return asyncio.run(graph.ainvoke(_user("go")))
    finally:
        var.reset(token)


def _runner(variant: str, graph: Any, real: bool) -> Run:
    if variant == "framework" or real:
        return lambda: asyncio.run(graph.ainvoke(_user("go")))
    if variant == "callbacks only":
        return lambda: _with_noop_handler(graph)
    from handoff_sim.adapters.langgraph import simulate_run

    return lambda: simulate_run(lambda: graph.ainvoke(_user("go")))


def lg_agents_run(variant: str, n: int, latency: float = 0.0, *, real: bool = False) -> Run:
    """A ``create_agent`` triage calling ``n`` agents used as tools in one turn."""
    from langchain.agents import create_agent

    from handoff_sim.adapters.langgraph import governed

    subs = [
        create_agent(_model({"text": "out", "latency": 2 * latency}), name=f"sub{i}")
        for i in range(n)
    ]
    names = [f"ask{i}" for i in range(n)]
    if variant == "governed":
        tools = [governed(s, name=name) for s, name in zip(subs, names, strict=True)]
        arguments: dict[str, Any] = {"task": "x"}
    else:
        tools = [_agent_tool(s, name) for s, name in zip(subs, names, strict=True)]
        arguments = {"request": "x"}
    triage = create_agent(_model(*_script(names, arguments, latency)), tools=tools, name="triage")
    return _runner(variant, triage, real)


def lg_supervisor_run(variant: str, n: int, latency: float = 0.0, *, real: bool = False) -> Run:
    """A langgraph-supervisor supervisor handing off to ``n`` workers in one turn."""
    from langgraph.prebuilt import create_react_agent
    from langgraph.warnings import LangGraphDeprecatedSinceV10
    from langgraph_supervisor import create_handoff_tool, create_supervisor

    from handoff_sim.adapters.langgraph import governed_handoffs

    names = [f"sub{i}" for i in range(n)]
    with warnings.catch_warnings():  # langgraph-supervisor builds on create_react_agent
        warnings.simplefilter("ignore", LangGraphDeprecatedSinceV10)
        workers = [
            create_react_agent(_model({"text": "out", "latency": 2 * latency}), [], name=name)
            for name in names
        ]
        tools = (
            governed_handoffs([create_handoff_tool(agent_name=name) for name in names])
            if variant == "governed"
            else None
        )
        supervisor = create_supervisor(
            workers,
            model=_model(*_script([f"transfer_to_{name}" for name in names], {}, latency)),
            tools=tools,
            parallel_tool_calls=True,
        ).compile()
    return _runner(variant, supervisor, real)
