"""``simulate_run`` for LangGraph: ``ainvoke``/``astream`` on the virtual-time loop, captured."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

from handoff_sim.adapters._lg_capture import LangGraphCapture
from handoff_sim.adapters._lg_determinism import seeded_ids
from handoff_sim.adapters._lg_sync import SyncInvokeError, refusing_sync_entry_points
from handoff_sim.adapters._simulate import SimulatedRun, simulate_with
from handoff_sim.simulation._simulation import DEFAULT_DEADLINE

__all__ = ["simulate_run"]

GraphRun = Awaitable[Any] | AsyncIterator[Any] | Callable[[], Awaitable[Any] | AsyncIterator[Any]]
"""``graph.ainvoke(...)``, ``graph.astream(...)``, or a function of no arguments returning one."""


async def _collect(stream: AsyncIterator[Any]) -> list[Any]:
    """Every item of an ``astream``, in order: a streamed run's result."""
    return [item async for item in stream]


def _awaitable(run: GraphRun) -> Awaitable[Any] | Callable[[], Awaitable[Any]]:
    """``run`` as ``simulate_with`` takes it: a stream becomes the list of its items."""
    if isinstance(run, AsyncIterator):
        return _collect(run)
    if inspect.isawaitable(run) or not callable(run):
        return run
    function = run

    def start() -> Awaitable[Any]:
        made = function()
        if isinstance(made, AsyncIterator):
            return _collect(made)
        return made  # a result that is not awaitable is refused just after

    return start


def simulate_run(
    run: GraphRun,
    *,
    seed: int = 0,
    wall_clock: bool = True,
    deadline: float | None = DEFAULT_DEADLINE,
    raise_errors: bool = True,
) -> SimulatedRun[Any]:
    """Run a LangGraph run in virtual time, captured: the same trace on every run of a seed.

    ``simulate_run(lambda: graph.ainvoke({"messages": [...]}, config))`` returns the
    graph's result (for ``astream``: the list of what it streamed), its trace and its
    virtual duration. Latencies, ``asyncio.wait_for``, LangGraph's ``step_timeout`` and
    ``RetryPolicy`` backoff cost no wall time; sync tools and nodes run inline, in call
    order; checkpoint ids are drawn from ``seed``. The sync ``invoke``/``stream`` is
    refused with :class:`SyncInvokeError` naming the async call.
    """

    @contextmanager
    def around() -> Iterator[None]:
        with seeded_ids(seed):
            yield

    simulated = simulate_with(
        lambda: LangGraphCapture(seed=seed),
        refusing_sync_entry_points(_awaitable(run)),
        seed=seed,
        wall_clock=wall_clock,
        deadline=deadline,
        raise_errors=raise_errors,
        around=around,
    )
    if isinstance(simulated.error, SyncInvokeError):
        raise simulated.error  # a mistake in the test, not an outcome of the run
    return simulated
