"""Shared checks for hostile cases: every start has its end, and no task outlives the run."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Iterable
from typing import Any

from handoff_sim import Agent, Trace
from handoff_sim.events import Event
from handoff_sim.simulation import Simulation

__all__ = ["HostileOutcome", "open_starts", "run_hostile"]

# start type -> (end type, the fields that pair a start with its end)
_PAIRS: dict[str, tuple[str, tuple[str, ...]]] = {
    "run_start": ("run_end", ("run_id",)),
    "tool_start": ("tool_end", ("run_id", "call_id")),
    "handoff_start": ("handoff_end", ("handoff_id",)),
    "handoff_attempt_start": ("handoff_attempt_end", ("handoff_id", "attempt")),
}
_ENDS = {end: (start, keys) for start, (end, keys) in _PAIRS.items()}


def open_starts(events: Iterable[Event]) -> list[str]:
    """Every ``*_start`` without exactly one matching ``*_end``, as readable lines."""
    counts: dict[tuple[str, tuple[object, ...]], int] = {}
    for event in events:
        if event.type in _PAIRS:
            key = (event.type, tuple(getattr(event, f) for f in _PAIRS[event.type][1]))
            counts[key] = counts.get(key, 0) + 1
        elif event.type in _ENDS:
            start, fields = _ENDS[event.type]
            key = (start, tuple(getattr(event, f) for f in fields))
            counts[key] = counts.get(key, 0) - 1
    return [f"{kind} {ids}: {n:+d}" for (kind, ids), n in counts.items() if n != 0]


class HostileOutcome:
    """What a hostile case did: the result or the error, the trace, the tasks left over."""

    def __init__(
        self, result: Any, error: BaseException | None, trace: Trace, leftover: list[str]
    ) -> None:
        self.result = result
        self.error = error
        self.trace = trace
        self.leftover = leftover


def run_hostile(
    target: Agent | Callable[[], Coroutine[Any, Any, Any]],
    user_input: str = "go",
    *,
    seed: int = 0,
    expect: type[BaseException] | tuple[type[BaseException], ...] | None = None,
    **simulation: Any,
) -> HostileOutcome:
    """Run ``target`` in a fresh Simulation and check what every hostile case must hold.

    Whatever happens, every ``*_start`` gets exactly one ``*_end`` and, before the
    simulation is closed, no task is left on its loop. An exception is allowed only
    when it is an instance of ``expect``.
    """
    sim = Simulation(seed=seed, **simulation)
    result: Any = None
    error: BaseException | None = None
    try:
        coro = target.arun(user_input) if isinstance(target, Agent) else target()
        result = sim.run_coroutine(coro)
    except BaseException as exc:  # the case decides what may escape
        error = exc
    loop = sim._loop
    leftover = sorted(repr(t) for t in asyncio.all_tasks(loop)) if not loop.is_closed() else []
    trace = sim.trace
    sim.close()
    unbalanced = open_starts(trace.events)
    assert not unbalanced, f"unbalanced events: {unbalanced}\n{trace.render()}"
    assert not leftover, f"tasks left on the loop: {leftover}"
    if error is not None and (expect is None or not isinstance(error, expect)):
        raise AssertionError(f"unexpected {type(error).__name__}: {error!r}") from error
    if error is None and expect is not None:
        raise AssertionError(f"expected {expect}, the run ended without an error")
    return HostileOutcome(result, error, trace, leftover)
