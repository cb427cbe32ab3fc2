"""Expectations on what a run left behind: saved sessions and how often each fake tool ran."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from handoff_sim._sessions import Session
from handoff_sim.scenarios._expect._values import resolved, value_matches
from handoff_sim.scenarios._schema import (
    ExpectSpec,
    MessageExpect,
    Place,
    SessionExpect,
    ToolRunsBound,
)

__all__ = ["check_sessions", "check_tool_runs"]

Add = Callable[[str, str, str, object, object], None]
"""``add(kind, message, field, expected, actual)`` records a mismatch."""


def check_tool_runs(add: Add, expect: ExpectSpec, runs: Mapping[str, int] | None) -> None:
    """Each named fake tool ran as often as expected (0: it never ran); a bound with
    ``arguments`` counts only the runs whose arguments fit."""
    if expect.tool_runs is None:
        return
    if runs is None:
        add("tool_runs", "this runtime does not report tool runs", "expect.tool_runs", None, None)
        return
    for name, wanted in expect.tool_runs.items():
        field = f"expect.tool_runs.{name}"
        if isinstance(wanted, int):
            actual = runs.get(name, 0)
            if actual != wanted:
                message = f"tool '{name}' ran {actual} time(s), expected {wanted}"
                add("tool_runs", message, field, wanted, actual)
            continue
        if "arguments" in wanted.model_fields_set:
            _check_filtered(add, name, wanted, getattr(runs, "arguments", None), field)
        elif not wanted.holds(runs.get(name, 0)):
            message = f"tool '{name}' ran {runs.get(name, 0)} time(s), expected {wanted.text()}"
            add(
                "tool_runs", message, field, wanted.model_dump(exclude_none=True), runs.get(name, 0)
            )


def _check_filtered(
    add: Add,
    name: str,
    wanted: ToolRunsBound,
    arguments: Mapping[str, list[object]] | None,
    field: str,
) -> None:
    """The runs of ``name`` whose arguments fit ``wanted.arguments``, against its bound."""
    if arguments is None:
        add(
            "tool_runs",
            "this runtime does not report the arguments of tool runs",
            field,
            None,
            None,
        )
        return
    every = arguments.get(name, [])
    fitting = [a for a in every if value_matches(wanted.arguments, a, None, "any")]
    if not wanted.holds(len(fitting)):
        message = (
            f"tool '{name}' ran {len(fitting)} time(s) with arguments that fit "
            f"(of {len(every)} run(s)), expected {wanted.text()}"
        )
        add("tool_runs", message, field, wanted.model_dump(exclude_none=True), every)


def check_sessions(
    add: Add,
    expect: ExpectSpec,
    sessions: Sequence[Session] | None,
    bound: dict[str, object] | None = None,
) -> None:
    """Every saved session matches one pattern and every pattern one session (any order).

    References name values captured before; a pattern's captures take the values of the
    session it is paired with.
    """
    wanted = expect.sessions
    if wanted is None:
        return
    if sessions is None:
        add("sessions", "this runtime does not report sessions", "expect.sessions", None, None)
        return
    bound = bound if bound is not None else {}
    by_id = {s.id: s for s in sessions}
    with_messages = any(p.messages is not None for p in wanted)
    summaries = [_summary(s, by_id, with_messages) for s in sessions]
    fits = [[i for i, s in enumerate(summaries) if _fits(p, s, dict(bound))] for p in wanted]
    pairing = _match(fits)
    expected = [resolved(p.model_dump(exclude_unset=True), bound) for p in wanted]
    if len(sessions) != len(wanted):
        message = f"expected {len(wanted)} session(s), got {len(sessions)}"
        add("sessions", message, "expect.sessions", expected, summaries)
        return
    for index, found in enumerate(pairing):
        if found is None:
            message = f"no session matches pattern {index}"
            add("sessions", message, f"expect.sessions.{index}", expected[index], summaries)
            return
    captured = dict(bound)
    for pattern, found in zip(wanted, pairing, strict=True):
        assert found is not None
        _fits(pattern, summaries[found], captured)
    bound.update(captured)


def _summary(session: Session, by_id: Mapping[str, Session], with_messages: bool) -> dict[str, Any]:
    parent = by_id.get(session.parent_session_id or "")
    root = by_id.get(session.root_session_id or "")
    summary: dict[str, Any] = {
        "id": session.id,
        "title": session.title,
        "agent": session.agent,
        "status": session.status,
        "parent_session_id": session.parent_session_id,
        "parent_agent": parent.agent if parent is not None else None,
        "root_session_id": session.root_session_id,
        "root_agent": root.agent if root is not None else None,
    }
    if with_messages:
        summary["messages"] = [m.to_dict() for m in session.messages]
    return summary


def _fits(pattern: SessionExpect, summary: Mapping[str, Any], bound: dict[str, object]) -> bool:
    """Whether ``summary`` fits ``pattern``; its captures are added to ``bound``."""
    given = pattern.model_fields_set
    for key in (k for k in SessionExpect.model_fields if k in given):
        value = getattr(pattern, key)
        if key == "messages":
            ok = _messages_fit(value, summary["messages"], bound)
        elif key == "status":
            ok = value == summary[key]
        else:
            ok = value_matches(value, summary[key], bound, "text")
        if not ok:
            return False
    return True


def _messages_fit(
    patterns: list[MessageExpect], messages: list[dict[str, Any]], bound: dict[str, object]
) -> bool:
    """One pattern per message, in order; each compares only the fields it gives."""
    if len(patterns) != len(messages):
        return False
    for pattern, message in zip(patterns, messages, strict=True):
        given = pattern.model_fields_set
        for key in (k for k in MessageExpect.model_fields if k in given):
            value, actual = getattr(pattern, key), message.get(key, _ABSENT[key])
            place: Place = "any" if key == "tool_calls" else "text"
            ok = (
                value == actual
                if key in ("role", "is_error")
                else value_matches(value, actual, bound, place)
            )
            if not ok:
                return False
    return True


_ABSENT: dict[str, Any] = {
    "role": None,
    "content": None,
    "name": None,
    "tool_call_id": None,
    "tool_calls": [],
    "is_error": False,
}
"""What ``Message.to_dict`` leaves out, as the value a pattern compares with."""


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
