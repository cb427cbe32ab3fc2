"""The tasks of a simulated run hash by creation order, from the moment they are made."""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

import pytest

from tests._helpers import import_extra

import_extra("langgraph", "langgraph")

from handoff_sim.adapters.langgraph import simulate_run  # noqa: E402


def _task_registry() -> weakref.WeakSet[Any] | None:
    """asyncio's set of every live task, where this Python keeps one (3.11 to 3.13)."""
    for name in ("_scheduled_tasks", "_all_tasks"):
        found = getattr(asyncio.tasks, name, None)
        if isinstance(found, weakref.WeakSet):
            return found
    return None


async def _fan_out(count: int) -> tuple[list[int], list[int]]:
    """Start ``count`` tasks at once: their hashes, and the hashes asyncio filed them under."""
    tasks = [asyncio.create_task(asyncio.sleep(0)) for _ in range(count)]
    registry = _task_registry()
    filed = [] if registry is None else list(registry.data)
    under = sorted(hash(ref) for ref in filed if any(ref() is task for task in tasks))
    await asyncio.gather(*tasks)
    return [hash(task) for task in tasks], under


def test_tasks_of_a_simulated_run_hash_by_creation_order_on_every_run() -> None:
    first = simulate_run(lambda: _fan_out(20)).result
    again = simulate_run(lambda: _fan_out(20)).result
    assert first is not None
    assert again is not None
    hashes = first[0]
    assert hashes == sorted(hashes)
    assert len(set(hashes)) == 20
    assert hashes[-1] - hashes[0] == 19
    assert again[0] == hashes


def test_every_task_of_a_wide_fan_out_is_filed_in_asyncios_registry_under_its_own_hash() -> None:
    if _task_registry() is None:
        pytest.skip("this Python keeps its tasks in no hashed registry (a set of weak refs)")
    run = simulate_run(lambda: _fan_out(200))
    assert run.result is not None
    hashes, filed_under = run.result
    # filed under one shared hash, each new task would be compared with every live one
    assert filed_under == sorted(hashes)
