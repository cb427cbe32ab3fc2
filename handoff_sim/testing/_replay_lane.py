"""Lanes of recorded answers, each served once, and the ledger that gives a cut-off run's back.

A lane holds one agent's recorded model steps (or one tool's recorded answers). Each
item is served once. When a run is cut off (an attempt timed out or was cancelled), every
item it was served goes back into its lane, so a retried attempt, asking the same
questions, gets the same answers at the same latencies. An item never served is
preferred to one given back: when the recording holds the retry's own answers, the
retry gets those.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial

from handoff_sim._context import current_environment, current_frame

__all__ = ["ReplayLane", "ReplayLedger"]

_FRESH, _SERVED, _RETURNED, _SPENT = 0, 1, 2, 3


def _run_key() -> object:
    """The run the current code belongs to: its handoff-sim run frame, else its task."""
    frame = current_frame()
    if frame is not None:
        return (current_environment(), frame.run_id)
    return asyncio.current_task()


def _cut_off(task: asyncio.Task[object]) -> bool:
    """Whether ``task`` ended cancelled (or stopped by an exception that is no error)."""
    if task.cancelled():
        return True
    error = task.exception()
    return error is not None and not isinstance(error, Exception)


class ReplayLedger:
    """Which run was served which recorded items, across the lanes of one replay.

    When a run is cut off (:meth:`cut_off`, or the task it was served in ends
    cancelled), every item it was served goes back to its lane.
    """

    def __init__(self) -> None:
        self._runs: dict[object, list[tuple[ReplayLane, int]]] = {}
        self._watched: set[tuple[object, asyncio.Task[object]]] = set()

    def served(self, lane: ReplayLane, index: int) -> None:
        """Note that the current run was served ``lane``'s item ``index``."""
        key = _run_key()
        self._runs.setdefault(key, []).append((lane, index))
        task = asyncio.current_task()
        if task is not None and (key, task) not in self._watched:
            self._watched.add((key, task))
            task.add_done_callback(partial(self._task_done, key))

    def cut_off(self) -> None:
        """The current run was cut off: every item it was served goes back."""
        self._give_back(_run_key())

    def _task_done(self, key: object, task: asyncio.Task[object]) -> None:
        self._watched.discard((key, task))
        if _cut_off(task):
            self._give_back(key)

    def _give_back(self, key: object) -> None:
        for lane, index in self._runs.pop(key, ()):
            lane.give_back(index)


class ReplayLane:
    """``size`` recorded items served once each, in lane order; see the module's docstring."""

    def __init__(self, size: int, ledger: ReplayLedger | None = None) -> None:
        self.ledger = ledger if ledger is not None else ReplayLedger()
        self._state = [_FRESH] * size
        self._first_fresh = 0
        self._returned: set[int] = set()

    def __len__(self) -> int:
        return len(self._state)

    def pick(
        self, accepts: Callable[[int], bool], loose: Callable[[int], bool] = lambda _: False
    ) -> int | None:
        """The first item never served that ``accepts`` takes, else the first given back.

        A ``loose`` item (one that records nothing to compare) is taken only as the first
        item left, fresh or given back: it stands for the next request, in lane order.
        """
        state = self._state
        returned = sorted(self._returned)
        first = min(self._first_fresh, returned[0]) if returned else self._first_fresh
        for index in range(self._first_fresh, len(state)):
            if state[index] == _FRESH and (accepts(index) or (index == first and loose(index))):
                return index
        for index in returned:
            if accepts(index) or (index == first and loose(index)):
                return index
        return None

    def next_fresh(self) -> int | None:
        """The first item never served, if any."""
        return self._first_fresh if self._first_fresh < len(self._state) else None

    @property
    def given_back(self) -> bool:
        """Whether an item was given back and not served again."""
        return bool(self._returned)

    def serve(self, index: int) -> None:
        """Hand item ``index`` to the current run."""
        self._state[index] = _SERVED
        self._returned.discard(index)
        while self._first_fresh < len(self._state) and self._state[self._first_fresh] != _FRESH:
            self._first_fresh += 1
        self.ledger.served(self, index)

    def spend(self, index: int) -> None:
        """Item ``index`` is used up for good (a recorded call that never answered)."""
        self._state[index] = _SPENT
        self._returned.discard(index)

    def give_back(self, index: int) -> None:
        """Item ``index`` goes back: a later request may be served it again."""
        if self._state[index] == _SERVED:
            self._state[index] = _RETURNED
            self._returned.add(index)

    def left(self) -> list[int]:
        """Items a request may still be served: never served, or given back."""
        return [i for i, s in enumerate(self._state) if s in (_FRESH, _RETURNED)]

    def unused(self) -> list[int]:
        """Items never served to any request."""
        return [i for i in range(self._first_fresh, len(self._state)) if self._state[i] == _FRESH]
