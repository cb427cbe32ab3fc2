"""Matching expected event patterns against a trace: exact, subsequence, per branch."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from handoff_sim._durations import parse_duration
from handoff_sim.events import Event
from handoff_sim.scenarios._expect._values import Bindings, text_matches, value_matches

__all__ = ["branch_of", "find_unmatched", "matches", "text_matches", "values_match"]

Pattern = dict[str, Any]


def values_match(
    key: str, expected: object, actual: object, bindings: Bindings | None = None
) -> bool:
    """One pattern field against one event field (durations, matchers and captures understood)."""
    if key in ("t", "duration_ms") and not isinstance(expected, bool | dict):
        if isinstance(expected, str):
            seconds = parse_duration(expected, maximum=None)
            expected = seconds if key == "t" else seconds * 1000
        if isinstance(expected, int | float) and isinstance(actual, int | float):
            return math.isclose(expected, actual, rel_tol=0, abs_tol=1e-6)
    return value_matches(expected, actual, bindings, "value")


def matches(
    pattern: Pattern,
    event: Event,
    data: dict[str, Any] | None = None,
    bindings: Bindings | None = None,
) -> bool:
    """Whether every field of ``pattern`` holds for ``event``; its captures join ``bindings``."""
    data = data if data is not None else event.to_dict()
    trial: dict[str, object] = dict(bindings or {})
    if not all(
        key in data and values_match(key, value, data[key], trial) for key, value in pattern.items()
    ):
        return False
    if bindings is not None:
        bindings.update(trial)
    return True


def branch_of(event: Event) -> tuple[str, ...]:
    """An agent run is a branch; each tool call (and its handoff) is a branch of its own."""
    call_id = getattr(event, "call_id", None)
    return (event.run_id, call_id) if isinstance(call_id, str) else (event.run_id,)


def find_unmatched(
    patterns: Sequence[Pattern],
    events: Sequence[Event],
    mode: str,
    bindings: Bindings | None = None,
) -> tuple[int | None, str]:
    """The index of the first pattern that fails in ``mode`` (None if all match), and why.

    Patterns are tried in order; each one's captures hold for the patterns after it.
    """
    data = [e.to_dict() for e in events]
    finder: Callable[
        [Sequence[Pattern], Sequence[Event], list[dict[str, Any]], Bindings],
        tuple[int | None, str],
    ]
    finder = {"exact": _exact, "subsequence": _subsequence, "per_branch": _per_branch}[mode]
    return finder(patterns, events, data, bindings if bindings is not None else {})


def _exact(
    patterns: Sequence[Pattern],
    events: Sequence[Event],
    data: list[dict[str, Any]],
    bound: Bindings,
) -> tuple[int | None, str]:
    for index, pattern in enumerate(patterns):
        if index >= len(events):
            return index, f"expected event {index} is missing: the trace has {len(events)} event(s)"
        if not matches(pattern, events[index], data[index], bound):
            return index, f"event {index} (seq {events[index].seq}) does not match"
    if len(events) > len(patterns):
        extra = events[len(patterns)]
        return len(
            patterns
        ), f"unexpected extra event {len(patterns)} (seq {extra.seq}, {extra.type})"
    return None, ""


def _subsequence(
    patterns: Sequence[Pattern],
    events: Sequence[Event],
    data: list[dict[str, Any]],
    bound: Bindings,
) -> tuple[int | None, str]:
    position = 0
    for index, pattern in enumerate(patterns):
        start = position
        while position < len(events) and not matches(
            pattern, events[position], data[position], bound
        ):
            position += 1
        if position >= len(events):
            after = f" after seq {events[start - 1].seq}" if start > 0 else ""
            return index, f"expected event {index} not found{after}"
        position += 1
    return None, ""


def _per_branch(
    patterns: Sequence[Pattern],
    events: Sequence[Event],
    data: list[dict[str, Any]],
    bound: Bindings,
) -> tuple[int | None, str]:
    """Each pattern takes the first unused matching event after its branch's last match."""
    used: set[int] = set()
    last_in_branch: dict[tuple[str, ...], int] = {}
    for index, pattern in enumerate(patterns):
        chosen = None
        for position, event in enumerate(events):
            if position in used or position <= last_in_branch.get(branch_of(event), -1):
                continue
            if matches(pattern, event, data[position], bound):
                chosen = position
                break
        if chosen is None:
            return index, f"expected event {index} not found in order within any branch"
        used.add(chosen)
        last_in_branch[branch_of(events[chosen])] = chosen
    return None, ""
