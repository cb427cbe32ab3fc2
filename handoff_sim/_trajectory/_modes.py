"""The six trajectory modes over the calls of a scope, each giving what went wrong.

A pattern stands for one call; one with a bound (``count``, ``min``, ``max``) stands for
every call of the scope that fits it, and their number must be within the bound. Then:
``exact`` the calls one for one, in order; ``subsequence`` in order with others between;
``per_branch`` in order within each run, any order across runs; ``unordered`` the same
calls in any order; ``superset`` at least these; ``subset`` nothing but these.

A bounded pattern's copies (its slots) share one row of fits, and every scan walks a
pattern's fitting calls once, so a trace of thousands of calls checks in linear time
plus the augmenting paths a conflict needs.
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
    """For ``order``: the call after which the pattern was looked for; for ``extra``: the
    call that holds the place of a pattern the extra call fits too."""
    count: int = 0


@dataclass(slots=True)
class _Board:
    """The expanded patterns (slots) against the scope's calls, with what fits what."""

    calls: list[Call]
    slots: list[int]
    """The pattern index of each slot."""
    rows: list[list[bool]]
    """Per pattern: whether each call fits it."""
    fitting: list[list[int]]
    """Per pattern: the calls that fit it, in order."""

    def fit(self, slot: int, call: int) -> bool:
        return self.rows[self.slots[slot]][call]

    def candidates(self, slot: int) -> list[int]:
        return self.fitting[self.slots[slot]]

    def pairing(self) -> list[int | None]:
        """A largest one-to-one pairing of slots to calls: greedily in call order, then
        augmenting paths for the slots left over."""
        owner: dict[int, int] = {}
        paired: list[int | None] = [None] * len(self.slots)
        start = [0] * len(self.rows)
        for slot, pattern in enumerate(self.slots):
            row = self.fitting[pattern]
            while start[pattern] < len(row) and row[start[pattern]] in owner:
                start[pattern] += 1
            if start[pattern] < len(row):
                owner[row[start[pattern]]] = slot
        placed = set(owner.values())
        for slot in range(len(self.slots)):
            if slot not in placed:
                self._augment(slot, owner)
        for call, slot in owner.items():
            paired[slot] = call
        return paired

    def _augment(self, root: int, owner: dict[int, int]) -> None:
        """Kuhn's step without recursion: move ``root`` onto a free call along a path, if any."""
        seen: set[int] = set()
        stack = [(root, iter(self.candidates(root)))]
        via: list[int] = []
        """``via[k]`` is the call that leads from the slot at ``stack[k]`` to the next one."""
        while stack:
            _, candidates = stack[-1]
            call = next((c for c in candidates if c not in seen), None)
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
            stack.append((owner[call], iter(self.candidates(owner[call]))))


def _board(spec: TrajectorySpec, calls: list[Call], found: list[Problem]) -> _Board:
    rows = [[fits(spec, pattern, call) for call in calls] for pattern in spec.calls]
    fitting = [[i for i, ok in enumerate(row) if ok] for row in rows]
    slots: list[int] = []
    for index, pattern in enumerate(spec.calls):
        if not pattern.bounded:
            slots.append(index)
            continue
        count = len(fitting[index])
        if count < pattern.minimum or (pattern.maximum is not None and count > pattern.maximum):
            found.append(Problem("count", index, count=count))
        kept = count if pattern.maximum is None else min(count, pattern.maximum)
        slots.extend([index] * kept)
    return _Board(calls, slots, rows, fitting)


def _unpaired(board: _Board, *, missing: bool, extra: bool) -> list[Problem]:
    paired = board.pairing()
    found: list[Problem] = []
    if missing:
        found += [Problem("missing", board.slots[s]) for s, c in enumerate(paired) if c is None]
    if extra:
        used = {c for c in paired if c is not None}
        holders = {board.slots[s]: c for s, c in enumerate(paired) if c is not None}
        present = set(board.slots)
        found += [
            _extra(board, holders, present, i) for i in range(len(board.calls)) if i not in used
        ]
    return found


def _extra(board: _Board, holders: dict[int, int], present: set[int], call: int) -> Problem:
    """An unpaired call; when a pattern fits it, which call holds that pattern's place."""
    pattern = next((p for p, row in enumerate(board.rows) if row[call] and p in present), None)
    if pattern is None:
        return Problem("extra", call=board.calls[call])
    holder = holders.get(pattern)
    after = board.calls[holder] if holder is not None else None
    return Problem("extra", pattern, board.calls[call], after)


def _exact(board: _Board) -> list[Problem]:
    calls, slots = board.calls, board.slots
    if len(slots) == len(calls) and all(board.fit(i, i) for i in range(len(slots))):
        return []
    found = _unpaired(board, missing=True, extra=True)
    if found:
        return found
    wrong = next(i for i in range(len(slots)) if not board.fit(i, i))
    later = next(c for c in board.candidates(wrong) if c != wrong)
    after = calls[wrong - 1] if wrong > 0 else None
    return [Problem("order", slots[wrong], calls[later], after)]


def _order_or_missing(board: _Board, slot: int, used: set[int], after: Call | None) -> Problem:
    earlier = next((c for c in board.candidates(slot) if c not in used), None)
    if earlier is None:
        return Problem("missing", board.slots[slot])
    return Problem("order", board.slots[slot], board.calls[earlier], after)


def _subsequence(board: _Board) -> list[Problem]:
    position, used = 0, set[int]()
    cursor = [0] * len(board.rows)
    for slot, pattern in enumerate(board.slots):
        row = board.fitting[pattern]
        while cursor[pattern] < len(row) and (
            row[cursor[pattern]] < position or row[cursor[pattern]] in used
        ):
            cursor[pattern] += 1  # before the position, or taken: never a candidate again
        if cursor[pattern] >= len(row):
            after = board.calls[position - 1] if position > 0 else None
            return [_order_or_missing(board, slot, used, after)]
        found = row[cursor[pattern]]
        used.add(found)
        position = found + 1
    return []


def _per_branch(board: _Board) -> list[Problem]:
    """Each slot takes the first unused fitting call after the last one its run matched."""
    used: set[int] = set()
    last: dict[int, int] = {}
    cursor = [0] * len(board.rows)
    for slot, pattern in enumerate(board.slots):
        row = board.fitting[pattern]
        while cursor[pattern] < len(row) and (
            row[cursor[pattern]] in used
            or row[cursor[pattern]] <= last.get(board.calls[row[cursor[pattern]]].run, -1)
        ):
            cursor[pattern] += 1  # taken, or before its run's last match: never again
        if cursor[pattern] >= len(row):
            return [_late(board, slot, used, last)]
        chosen = row[cursor[pattern]]
        used.add(chosen)
        last[board.calls[chosen].run] = chosen
    return []


def _late(board: _Board, slot: int, used: set[int], last: dict[int, int]) -> Problem:
    problem = _order_or_missing(board, slot, used, None)
    if problem.call is None:
        return problem
    before = last.get(problem.call.run)
    after = board.calls[before] if before is not None else None
    return Problem("order", problem.pattern, problem.call, after)


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
