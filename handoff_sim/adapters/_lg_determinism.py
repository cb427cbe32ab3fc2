"""What makes a LangGraph run the same on every run of a seed, on top of virtual time.

Three sources of variation were measured on parallel handoffs, and each has its shim:

- executor threads: LangGraph's async path runs sync pieces (sync tools, the handoff
  tools, conditional edges) through ``loop.run_in_executor``; ``simulate_with`` makes the
  loop's default executor run them inline, in call order;
- ids: checkpoint ids are ``uuid6`` from ``time.time_ns()`` (virtual under simulation)
  and the ``random`` module's global generator, and task ids are hashes of them. The
  generator is seeded from the run's seed for the run and put back after; the uuid6
  generator's "last timestamp", a module global that would make a second run in the
  same process start later than the first, is cleared for the run and put back after
  (langgraph has no public seam for it: this module is the one place that touches it);
- set order: ``asyncio.wait`` returns its finished tasks as a set, which LangGraph
  walks; the simulation's tasks hash by their creation number, so the walk is the same
  on every run.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager

from langgraph.checkpoint.base import id as checkpoint_id

__all__ = ["seeded_ids"]

_LAST = "_last_v6_timestamp"


@contextmanager
def seeded_ids(seed: int) -> Iterator[None]:
    """Checkpoint and task ids drawn from ``seed`` for the block; the process's state put back."""
    state = random.getstate()
    last = getattr(checkpoint_id, _LAST, None)
    random.seed(f"handoff-sim-langgraph:{seed}")
    setattr(checkpoint_id, _LAST, None)
    try:
        yield
    finally:
        random.setstate(state)
        setattr(checkpoint_id, _LAST, last)
