"""pydantic-ai's sync entry points inside ``simulate_run``: refused, naming the async call.

``agent.run_sync(...)`` drives an event loop of its own with ``run_until_complete``; on
the virtual-time loop, which is already running, that can only fail, and asyncio's
``This event loop is already running`` does not say what to do instead.
"""

from __future__ import annotations

import inspect
from typing import Any, cast

from pydantic_ai.exceptions import UserError

from handoff_sim.adapters._simulate import RunInput, T

__all__ = ["SyncEntryPointError", "refusing_sync_entry_points"]

_ALREADY_RUNNING = "event loop is already running"

SYNC_MESSAGE = (
    "simulate_run() runs the run on its own event loop (virtual time), where a pydantic-ai "
    "sync entry point (agent.run_sync(...), agent.run_stream_sync(...)) cannot run a loop "
    "of its own: pass the async call instead, simulate_run(lambda: agent.run(...)) "
    "(in async code: await agent.run(...))"
)


class SyncEntryPointError(UserError):
    """``simulate_run`` was given a sync entry point; pydantic-ai's kind of usage error."""


def refusing_sync_entry_points(run: RunInput[T]) -> RunInput[T]:
    """``run``, where a sync entry point called inside raises :class:`SyncEntryPointError`."""
    if inspect.isawaitable(run) or not callable(run):
        return run
    function = cast("Any", run)

    def start() -> Any:
        try:
            return function()
        except RuntimeError as exc:
            if _ALREADY_RUNNING not in str(exc):
                raise
            raise SyncEntryPointError(SYNC_MESSAGE) from exc

    return cast("RunInput[T]", start)
