"""pydantic-ai's sync entry points inside ``simulate_run``: refused, naming the async call."""

from __future__ import annotations

from pydantic_ai.exceptions import UserError

from handoff_sim.adapters._simulate import RunInput, T, refusing_sync_calls

__all__ = ["SyncEntryPointError", "refusing_sync_entry_points"]

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
    return refusing_sync_calls(run, lambda: SyncEntryPointError(SYNC_MESSAGE))
