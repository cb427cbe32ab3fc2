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
from typing import Any

from handoff_sim._context import ENVIRONMENT, FRAME, Frame, current_environment

__all__ = ["ReplayLane", "ReplayLedger"]

_FRESH, _SERVED, _RETURNED, _SPENT = 0, 1, 2, 3


def _run_key(frame: Frame | None, task: asyncio.Task[object] | None) -> object:
    """The run the current code belongs to: its handoff-sim run frame, else its task."""
    if frame is not None:
        return (current_environment(), frame.run_id)
    return task


def _cut_off(task: asyncio.Task[object]) -> bool:
    """Whether ``task`` ended cancelled (or stopped by an exception that is no error)."""
    if task.cancelled():
        return True
    error = task.exception()
    return error is not None and not isinstance(error, Exception)


def _never(_: int) -> bool:
    return False


_SCAN = -1
"""``ReplayLane.pick``'s ``fresh`` when the caller does not know it: the lane looks."""


_LastRun = tuple[int, "Frame | None", "asyncio.Task[object] | None", object, list[Any]]
"""A lane's last run: the ledger's count of give-backs then, frame, task, environment, items."""


class ReplayLedger:
    """Which run was served which recorded items, across the lanes of one replay.

    When a run is cut off (:meth:`cut_off`, or the task it was served in ends
    cancelled), every item it was served goes back to its lane. A task that ends is
    looked at when a lane next needs to know what was given back (:meth:`settle`), not
    by a callback each task would schedule.
    """

    def __init__(self) -> None:
        self._runs: dict[object, list[tuple[ReplayLane, int]]] = {}
        self._watched: dict[tuple[object, asyncio.Task[object]], None] = {}
        self._given_back = 0  # how many times items went back: a lane's memo of its run is stale

    def served(self, lane: ReplayLane, index: int) -> None:
        """Note that the current run was served ``lane``'s item ``index``."""
        frame, task = FRAME.get(), asyncio.current_task()
        env = None if frame is None else ENVIRONMENT.get()
        last = lane._last_run
        if (
            last is not None
            and last[1] is frame
            and last[2] is task
            and last[3] is env
            and last[0] == self._given_back
        ):
            last[4].append((lane, index))  # the run this lane served last, again
            return
        key = _run_key(frame, task)
        items = self._runs.setdefault(key, [])
        items.append((lane, index))
        if task is not None:
            self._watched[(key, task)] = None
        lane._last_run = (self._given_back, frame, task, env, items)

    def cut_off(self) -> None:
        """The current run was cut off: every item it was served goes back."""
        self._give_back(_run_key(FRAME.get(), asyncio.current_task()))

    def settle(self) -> None:
        """Give back what each run whose task has ended cut off was served."""
        ended = [pair for pair in self._watched if pair[1].done()]
        for pair in ended:
            del self._watched[pair]
            if _cut_off(pair[1]):
                self._give_back(pair[0])

    def _give_back(self, key: object) -> None:
        self._given_back += 1  # the run's list is gone: the next item starts a new one
        for lane, index in self._runs.pop(key, ()):
            lane.give_back(index)


class ReplayLane:
    """``size`` recorded items served once each, in lane order; see the module's docstring."""

    def __init__(self, size: int, ledger: ReplayLedger | None = None) -> None:
        self.ledger = ledger if ledger is not None else ReplayLedger()
        self._state = [_FRESH] * size
        self._first_fresh = 0
        self._returned: set[int] = set()
        # The ledger's memo of the run this lane served last (see ReplayLedger.served).
        self._last_run: _LastRun | None = None

    def __len__(self) -> int:
        return len(self._state)

    def pick(
        self,
        accepts: Callable[[int], bool],
        loose: Callable[[int], bool] = _never,
        fresh: int | None = _SCAN,
    ) -> int | None:
        """The first item never served that ``accepts`` takes, else the first given back.

        A ``loose`` item (one that records nothing to compare) is taken only as the first
        item left, fresh or given back: it stands for the next request, in lane order.
        ``fresh``, when the caller knows it, is the first item never served that
        ``accepts`` takes (``None``: there is none), so the lane is not scanned for it.
        """
        self.ledger.settle()
        state, returned = self._state, self._returned
        first = self._first_left()
        if first is None:
            return None
        if state[first] == _FRESH and loose(first):
            return first
        if fresh == _SCAN:
            fresh = next(
                (
                    i
                    for i in range(self._first_fresh, len(state))
                    if state[i] == _FRESH and accepts(i)
                ),
                None,
            )
        if fresh is not None:
            return fresh
        for index in sorted(returned):
            if accepts(index) or (index == first and loose(index)):
                return index
        return None

    def first_left(self) -> int | None:
        """The first item a request may still be served (never served, or given back)."""
        self.ledger.settle()
        return self._first_left()

    def _first_left(self) -> int | None:
        first = self._first_fresh if self._first_fresh < len(self._state) else None
        if self._returned:
            lowest = min(self._returned)
            return lowest if first is None or lowest < first else first
        return first

    def next_fresh(self) -> int | None:
        """The first item never served, if any."""
        return self._first_fresh if self._first_fresh < len(self._state) else None

    def is_fresh(self, index: int) -> bool:
        """Whether item ``index`` was never served."""
        return self._state[index] == _FRESH

    @property
    def given_back(self) -> bool:
        """Whether an item was given back and not served again."""
        self.ledger.settle()
        return bool(self._returned)

    def serve(self, index: int) -> None:
        """Hand item ``index`` to the current run."""
        state = self._state
        state[index] = _SERVED
        if self._returned:
            self._returned.discard(index)
        if index == self._first_fresh:
            size, fresh = len(state), index + 1
            while fresh < size and state[fresh] != _FRESH:
                fresh += 1
            self._first_fresh = fresh
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
        self.ledger.settle()
        return [i for i, s in enumerate(self._state) if s in (_FRESH, _RETURNED)]

    def unused(self) -> list[int]:
        """Items never served to any request."""
        return [i for i in range(self._first_fresh, len(self._state)) if self._state[i] == _FRESH]
