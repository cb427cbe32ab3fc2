"""Expectations on what a run left behind: saved sessions and how often each fake tool ran."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from handoff_sim.scenarios.schema import ExpectSpec, SessionExpect
from handoff_sim.sessions import Session

__all__ = ["check_sessions", "check_tool_runs"]

Add = Callable[[str, str, str, object, object], None]
"""``add(kind, message, field, expected, actual)`` records a mismatch."""


def check_tool_runs(add: Add, expect: ExpectSpec, runs: Mapping[str, int] | None) -> None:
    """Each named fake tool ran exactly as often as expected (0: it never ran)."""
    if expect.tool_runs is None:
        return
    if runs is None:
        add("tool_runs", "this runtime does not report tool runs", "expect.tool_runs", None, None)
        return
    for name, count in expect.tool_runs.items():
        actual = runs.get(name, 0)
        if actual != count:
            message = f"tool '{name}' ran {actual} time(s), expected {count}"
            add("tool_runs", message, f"expect.tool_runs.{name}", count, actual)


def check_sessions(add: Add, expect: ExpectSpec, sessions: Sequence[Session] | None) -> None:
    """Every saved session matches one pattern and every pattern one session (any order)."""
    wanted = expect.sessions
    if wanted is None:
        return
    if sessions is None:
        add("sessions", "this runtime does not report sessions", "expect.sessions", None, None)
        return
    by_id = {s.id: s for s in sessions}
    summaries = [_summary(s, by_id) for s in sessions]
    fits = [[i for i, s in enumerate(summaries) if _fits(p, s)] for p in wanted]
    pairing = _match(fits)
    expected = [p.model_dump(exclude_unset=True) for p in wanted]
    if len(sessions) != len(wanted):
        message = f"expected {len(wanted)} session(s), got {len(sessions)}"
        add("sessions", message, "expect.sessions", expected, summaries)
        return
    for index, found in enumerate(pairing):
        if found is None:
            message = f"no session matches pattern {index}"
            add("sessions", message, f"expect.sessions.{index}", expected[index], summaries)
            return


def _summary(session: Session, by_id: Mapping[str, Session]) -> dict[str, Any]:
    parent = by_id.get(session.parent_session_id or "")
    return {
        "title": session.title,
        "agent": session.agent,
        "status": session.status,
        "parent_session_id": session.parent_session_id,
        "parent_agent": parent.agent if parent is not None else None,
    }


def _fits(pattern: SessionExpect, summary: Mapping[str, Any]) -> bool:
    return all(getattr(pattern, k) == summary[k] for k in pattern.model_fields_set)


def _match(fits: list[list[int]]) -> list[int | None]:
    """A one-to-one pairing of patterns to sessions (augmenting paths); None: unpaired."""
    owner: dict[int, int] = {}

    def place(pattern: int, seen: set[int]) -> bool:
        for candidate in fits[pattern]:
            if candidate in seen:
                continue
            seen.add(candidate)
            if candidate not in owner or place(owner[candidate], seen):
                owner[candidate] = pattern
                return True
        return False

    for pattern in range(len(fits)):
        place(pattern, set())
    paired: list[int | None] = [None] * len(fits)
    for session, pattern in owner.items():
        paired[pattern] = session
    return paired
