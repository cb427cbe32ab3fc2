"""The six trajectory modes over the calls of a scope, each giving what went wrong.

A pattern stands for one call; one with a bound (``count``, ``min``, ``max``) stands for
every call of the scope that fits it, and their number must be within the bound. Then:
``exact`` the calls one for one, in order; ``subsequence`` in order with others between;
``per_branch`` in order within each run, any order across runs; ``unordered`` the same
calls in any order; ``superset`` at least these; ``subset`` nothing but these.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from handoff_sim._trajectory._calls import Call
from handoff_sim._trajectory._fit import fits
from handoff_sim._trajectory._spec import TrajectorySpec

__all__ = ["Problem", "problems"]

Kind = Literal["missing", "extra", "order", "count"]


@dataclass(frozen=True, slots=True)
class Problem:
    """One way the calls break the expectation: ``pattern`` indexes ``spec.calls``."""

    kind: Kind
    pattern: int | None = None
    call: Call | None = None
    after: Call | None = None
    """For ``order``: the call after which the pattern was looked for."""
    count: int = 0


@dataclass(slots=True)
class _Board:
    """The expanded patterns (slots) against the scope's calls, with what fits what."""

    spec: TrajectorySpec
    calls: list[Call]
    slots: list[int]
    fit: list[list[bool]]

    def pairing(self) -> list[int | None]:
        """A largest one-to-one pairing of slots to calls (augmenting paths), call order first."""
        owner: dict[int, int] = {}
        for slot in range(len(self.slots)):
            self._augment(slot, owner)
        paired: list[int | None] = [None] * len(self.slots)
        for call, slot in owner.items():
            paired[slot] = call
        return paired

    def _augment(self, root: int, owner: dict[int, int]) -> None:
        """Kuhn's step without recursion: move ``root`` onto a free call along a path, if any."""
        seen: set[int] = set()
        stack = [(root, iter(range(len(self.calls))))]
        via: list[int] = []
        """``via[k]`` is the call that leads from the slot at ``stack[k]`` to the next one."""
        while stack:
            slot, candidates = stack[-1]
            row = self.fit[slot]
            call = next((c for c in candidates if row[c] and c not in seen), None)
            if call is None:
                stack.pop()
                if via:
                    via.pop()
                continue
            seen.add(call)
            if call not in owner:
                for level, taken in enumerate([*via, call]):
                    owner[taken] = stack[level][0]
                return
            via.append(call)
            stack.append((owner[call], iter(range(len(self.calls)))))


def _board(spec: TrajectorySpec, calls: list[Call], found: list[Problem]) -> _Board:
    slots: list[int] = []
    for index, pattern in enumerate(spec.calls):
        if not pattern.bounded:
            slots.append(index)
            continue
        fitting = sum(fits(spec, pattern, call) for call in calls)
        if fitting < pattern.minimum or (pattern.maximum is not None and fitting > pattern.maximum):
            found.append(Problem("count", index, count=fitting))
        kept = fitting if pattern.maximum is None else min(fitting, pattern.maximum)
        slots.extend([index] * kept)
    table = [[fits(spec, spec.calls[s], call) for call in calls] for s in slots]
    return _Board(spec, calls, slots, table)


def _unpaired(board: _Board, *, missing: bool, extra: bool) -> list[Problem]:
    paired = board.pairing()
    found: list[Problem] = []
    if missing:
        found += [Problem("missing", board.slots[s]) for s, c in enumerate(paired) if c is None]
    if extra:
        used = {c for c in paired if c is not None}
        found += [_extra(board, paired, i) for i in range(len(board.calls)) if i not in used]
    return found


def _extra(board: _Board, paired: list[int | None], call: int) -> Problem:
    """An unpaired call; when a pattern fits it, which call holds that pattern's place."""
    slot = next((s for s in range(len(board.slots)) if board.fit[s][call]), None)
    if slot is None:
        return Problem("extra", call=board.calls[call])
    holder = paired[slot]
    after = board.calls[holder] if holder is not None else None
    return Problem("extra", board.slots[slot], board.calls[call], after)


def _exact(board: _Board) -> list[Problem]:
    calls, slots = board.calls, board.slots
    if len(slots) == len(calls) and all(board.fit[i][i] for i in range(len(slots))):
        return []
    found = _unpaired(board, missing=True, extra=True)
    if found:
        return found
    wrong = next(i for i in range(len(slots)) if not board.fit[i][i])
    later = next(c for c in range(len(calls)) if board.fit[wrong][c])
    after = calls[wrong - 1] if wrong > 0 else None
    return [Problem("order", slots[wrong], calls[later], after)]


def _first_after(board: _Board, slot: int, start: int, used: set[int]) -> int | None:
    return next(
        (c for c in range(start, len(board.calls)) if board.fit[slot][c] and c not in used), None
    )


def _order_or_missing(board: _Board, slot: int, used: set[int], after: Call | None) -> Problem:
    earlier = next(
        (c for c in range(len(board.calls)) if board.fit[slot][c] and c not in used), None
    )
    if earlier is None:
        return Problem("missing", board.slots[slot])
    return Problem("order", board.slots[slot], board.calls[earlier], after)


def _subsequence(board: _Board) -> list[Problem]:
    position, used = 0, set[int]()
    for slot in range(len(board.slots)):
        found = _first_after(board, slot, position, used)
        if found is None:
            after = board.calls[position - 1] if position > 0 else None
            return [_order_or_missing(board, slot, used, after)]
        used.add(found)
        position = found + 1
    return []


def _per_branch(board: _Board) -> list[Problem]:
    used: set[int] = set()
    last: dict[int, int] = {}
    for slot in range(len(board.slots)):
        chosen = next(
            (
                c
                for c, call in enumerate(board.calls)
                if board.fit[slot][c] and c not in used and c > last.get(call.run, -1)
            ),
            None,
        )
        if chosen is None:
            problem = _order_or_missing(board, slot, used, None)
            if problem.call is not None:
                before = last.get(problem.call.run)
                after = board.calls[before] if before is not None else None
                problem = Problem("order", problem.pattern, problem.call, after)
            return [problem]
        used.add(chosen)
        last[board.calls[chosen].run] = chosen
    return []


_MODES: dict[str, Callable[[_Board], list[Problem]]] = {
    "exact": _exact,
    "subsequence": _subsequence,
    "per_branch": _per_branch,
    "unordered": lambda board: _unpaired(board, missing=True, extra=True),
    "superset": lambda board: _unpaired(board, missing=True, extra=False),
    "subset": lambda board: _unpaired(board, missing=False, extra=True),
}


def problems(spec: TrajectorySpec, calls: list[Call]) -> list[Problem]:
    """Everything that keeps the scope's ``calls`` from holding ``spec`` (empty: it holds)."""
    found: list[Problem] = []
    board = _board(spec, calls, found)
    return found + _MODES[spec.mode](board)
