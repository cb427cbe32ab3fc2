"""A recorded three-level delegation with parallel fan-out, checked in every trajectory mode,
and mutations of it (a call dropped, duplicated, moved to another agent, reordered, with
changed arguments) that fail exactly the modes they should."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import msgspec
import pytest

from handoff_sim import Trace
from handoff_sim.events import Event, ToolEndEvent, ToolStartEvent
from handoff_sim.testing import check_trajectory
from tests.trajectory._fan_out import recorded, run_fan_out

MODES = ("exact", "subsequence", "per_branch", "unordered", "superset", "subset")

# The recorded calls in start order: the parallel branches of billing and research interleave.
REFERENCE: list[dict[str, Any]] = [
    {"tool": "delegate_billing", "agent": "manager", "args": {"task": "bill"}},
    {"tool": "sql", "agent": "billing", "args": {"query": "select refunds", "limit": 10}},
    {"tool": "delegate_research", "agent": "manager", "args": {"task": "dig"}},
    {"tool": "search", "agent": "research", "args": {"q": "refund policy"}},
    {"tool": "delegate_worker", "agent": "research", "args": {"task": "build"}},
    {"tool": "search", "agent": "worker", "args": {"q": "build steps"}},
    {"tool": "sql", "agent": "billing", "args": {"query": "select invoices", "limit": 10}},
    {"tool": "lookup", "agent": "billing", "args": {"account": "A-7"}},
]

Mutation = Callable[[list[Event]], list[Event]]


def _of_call(events: list[Event], call_id: str) -> list[int]:
    return [
        i
        for i, e in enumerate(events)
        if isinstance(e, ToolStartEvent | ToolEndEvent) and e.call_id == call_id
    ]


def dropped(call_id: str) -> Mutation:
    def mutate(events: list[Event]) -> list[Event]:
        gone = set(_of_call(events, call_id))
        return [e for i, e in enumerate(events) if i not in gone]

    return mutate


def duplicated(call_id: str) -> Mutation:
    def mutate(events: list[Event]) -> list[Event]:
        where = _of_call(events, call_id)
        copies = [msgspec.structs.replace(events[i], call_id=f"{call_id}-again") for i in where]  # type: ignore[type-var]
        return events[: where[-1] + 1] + copies + events[where[-1] + 1 :]

    return mutate


def moved(call_id: str, to: str) -> Mutation:
    """The call's events as if another agent's run (the first of agent ``to``) had made them."""

    def mutate(events: list[Event]) -> list[Event]:
        run = next(e for e in events if e.type == "run_start" and e.agent == to)
        out = list(events)
        for i in _of_call(events, call_id):
            out[i] = msgspec.structs.replace(
                events[i], agent=to, run_id=run.run_id, depth=run.depth
            )
        return out

    return mutate


def swapped(first: str, second: str) -> Mutation:
    """The two calls trade places: each start (and end) where the other's was."""

    def mutate(events: list[Event]) -> list[Event]:
        out = list(events)
        for a, b in zip(_of_call(events, first), _of_call(events, second), strict=True):
            out[a], out[b] = events[b], events[a]
        return out

    return mutate


def reargued(call_id: str, arguments: dict[str, Any]) -> Mutation:
    def mutate(events: list[Event]) -> list[Event]:
        out = list(events)
        start = _of_call(events, call_id)[0]
        out[start] = msgspec.structs.replace(events[start], arguments=json.dumps(arguments))
        return out

    return mutate


def _failing(trace: Trace, args_mode: str = "exact") -> set[str]:
    return {
        mode
        for mode in MODES
        if not check_trajectory(trace, REFERENCE, mode=mode, args_mode=args_mode).passed
    }


def test_the_recorded_fan_out_is_the_run_it_records() -> None:
    assert [e.to_dict() | {"session_id": None} for e in recorded() if e.type == "tool_start"] == [
        e.to_dict() | {"session_id": None} for e in run_fan_out() if e.type == "tool_start"
    ]


def test_the_recorded_fan_out_holds_in_every_mode() -> None:
    assert _failing(recorded()) == set()


ALL = set(MODES)
ORDERED = {"exact", "subsequence", "per_branch"}

# mutation -> exactly the modes that must fail
TABLE: list[tuple[str, Mutation, set[str], str]] = [
    ("a call dropped", dropped("s2"), ALL - {"subset"}, "exact"),
    ("a call duplicated", duplicated("s2"), {"exact", "unordered", "subset"}, "exact"),
    ("a call moved to another agent", moved("s2", "research"), ALL, "exact"),
    ("two calls of one agent reordered", swapped("s2", "l1"), ORDERED, "exact"),
    (
        "calls of parallel branches reordered",
        swapped("s1", "q1"),
        {"exact", "subsequence"},
        "exact",
    ),
    ("a call with changed arguments", reargued("s1", {"query": "drop table"}), ALL, "exact"),
    ("changed arguments, arguments ignored", reargued("s1", {"query": "x"}), set(), "ignore"),
    (
        "an argument added, superset arguments",
        reargued("s1", {"query": "select refunds", "limit": 10, "x": 1}),
        set(),
        "superset",
    ),
    (
        "an argument added, subset arguments",
        reargued("s1", {"query": "select refunds", "limit": 10, "x": 1}),
        ALL,
        "subset",
    ),
    (
        "an argument left out, subset arguments",
        reargued("s1", {"query": "select refunds"}),
        set(),
        "subset",
    ),
]


@pytest.mark.parametrize(
    ("mutation", "failing", "args_mode"),
    [pytest.param(m, f, a, id=name) for name, m, f, a in TABLE],
)
def test_a_mutation_fails_exactly_the_modes_it_breaks(
    mutation: Mutation, failing: set[str], args_mode: str
) -> None:
    trace = Trace(mutation(list(recorded())))
    assert _failing(trace, args_mode) == failing
