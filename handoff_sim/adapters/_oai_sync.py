"""The SDK's sync entry point inside ``simulate_run``: refused, naming the async call."""

from __future__ import annotations

from agents.exceptions import UserError

from handoff_sim.adapters._simulate import RunInput, T, refusing_sync_calls

__all__ = ["SyncEntryPointError", "refusing_sync_entry_points"]

SYNC_MESSAGE = (
    "simulate_run() runs the run on its own event loop (virtual time), where "
    "Runner.run_sync(...) cannot run a loop of its own: pass the async call instead, "
    "simulate_run(Runner.run(agent, ...)) or simulate_run(lambda: Runner.run(agent, ...)) "
    "(in async code: await Runner.run(agent, ...))"
)


class SyncEntryPointError(UserError):
    """``simulate_run`` was given ``Runner.run_sync``; the SDK's kind of usage error."""


def refusing_sync_entry_points(run: RunInput[T]) -> RunInput[T]:
    """``run``, where ``Runner.run_sync`` called inside raises :class:`SyncEntryPointError`."""
    return refusing_sync_calls(run, lambda: SyncEntryPointError(SYNC_MESSAGE))
