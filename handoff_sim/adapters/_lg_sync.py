"""LangGraph's sync entry points inside a simulation: refused, naming the async call.

``graph.invoke``/``graph.stream`` run the graph on LangGraph's own thread pool with no
event loop at all, so nothing of it can run in virtual time, and async-only tools fail
there. Inside ``simulate_run`` (or any ``Simulation``) the sync path is refused: by
``SimChatModel`` at its first sync call, and by ``simulate_run`` when the function it
was given returned a result rather than a coroutine.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable

from handoff_sim._errors._families import ConfigurationError
from handoff_sim.adapters._simulate import RunInput, T, note_failure

__all__ = ["SYNC_MESSAGE", "SyncInvokeError", "refusing_sync_entry_points", "sync_refusal"]

SYNC_MESSAGE = (
    "simulate_run() runs the graph on its own event loop (virtual time), where LangGraph's "
    "sync graph.invoke(...)/graph.stream(...) (and a chat model's sync invoke) run on "
    "threads outside it: pass the async call instead, simulate_run(lambda: "
    "graph.ainvoke(...)) or simulate_run(lambda: graph.astream(...)) for a stream "
    "(in async code: await graph.ainvoke(...))"
)


class SyncInvokeError(ConfigurationError):
    """A LangGraph sync entry point (``invoke``, ``stream``) was used inside a simulation."""


def sync_refusal() -> SyncInvokeError:
    """The refusal, also kept for ``simulate_run`` in case a graph swallows it."""
    error = SyncInvokeError(SYNC_MESSAGE)
    note_failure(error)
    return error


def refusing_sync_entry_points(run: RunInput[T]) -> RunInput[T]:
    """``run``, where a function that ran the graph synchronously is refused afterwards."""
    if inspect.isawaitable(run) or not callable(run):
        return run
    function = run

    def start() -> Awaitable[T]:
        result = function()
        if not inspect.isawaitable(result) and not inspect.isasyncgen(result):
            raise sync_refusal()
        return result

    return start
