"""S13: NEW_SESSION gives each handoff a fresh session; REUSE_SESSION keeps one per tool name."""

from __future__ import annotations

from handoff_sim import Agent, SessionMode, SubAgent, simulate
from handoff_sim.simulation import Simulation
from handoff_sim.testing import ScriptedModel
from tests._helpers import ConcurrencyTracker, delegate, leaf, parent_of, starts, turn

REUSE = SessionMode.REUSE_SESSION


def _inputs_seen(agent: Agent) -> list[list[str | None]]:
    """For every model call of ``agent``: the user messages it was shown."""
    assert isinstance(agent.model, ScriptedModel)
    return [[m.content for m in r.messages if m.role == "user"] for r in agent.model.requests]


def _twice(sub: SubAgent, *, parallel: bool = False) -> Agent:
    """A parent that delegates to ``sub`` twice (one turn each, or both in one parallel turn)."""
    first = delegate(sub.tool_name, "first", id="c1")
    second = delegate(sub.tool_name, "second", id="c2")
    steps = [turn(first, second)] if parallel else [turn(first), turn(second)]
    return parent_of([sub], *steps, parallel_tool_calls=parallel)


def test_s13_new_session_gives_every_handoff_a_fresh_session() -> None:
    child = leaf("child", {"text": "one"}, {"text": "two"})
    result = simulate(_twice(SubAgent("child", agent=child)), "go")
    first, second = starts(result.trace)
    assert first.session_id != second.session_id
    assert _inputs_seen(child) == [["first"], ["second"]]
    assert {s.session_mode for s in starts(result.trace)} == {"new_session"}


def test_s13_new_session_parent_session_id_is_the_callers_session() -> None:
    child = leaf("child", {"text": "one"}, {"text": "two"})
    result = simulate(_twice(SubAgent("child", agent=child)), "go")
    for start in starts(result.trace):
        assert start.session_id is not None
        saved = child.session_store.load(start.session_id)
        assert saved is not None
        assert saved.parent_session_id == result.session_id


def test_s13_reuse_session_keeps_one_session_and_accumulates_memory() -> None:
    child = leaf("child", {"text": "one"}, {"text": "two"})
    result = simulate(_twice(SubAgent("child", agent=child, session_mode=REUSE)), "go")
    first, second = starts(result.trace)
    assert first.session_id == second.session_id
    assert _inputs_seen(child) == [["first"], ["first", "second"]]
    assert {s.session_mode for s in starts(result.trace)} == {"reuse_session"}


def test_s13_reuse_session_lives_as_long_as_the_parent_agent() -> None:
    child = leaf("child", {"text": "one"}, {"text": "two"})
    sub = SubAgent("child", agent=child, session_mode=REUSE)
    parent = Agent(
        name="parent",
        model=ScriptedModel([turn(delegate(sub.tool_name, "first")), {"text": "a"}] * 2),
        subagents=[sub],
    )
    with Simulation() as sim:
        sim.run(parent, "turn one")
        sim.run(parent, "turn two")
        ids = {s.session_id for s in starts(sim.trace)}
    assert len(ids) == 1
    assert _inputs_seen(child)[-1] == ["first", "first"]


def test_s13_two_parent_agents_do_not_share_a_reused_session() -> None:
    child = leaf("child", {"text": "one"}, {"text": "two"})
    parents = [
        parent_of(
            [SubAgent("child", agent=child, session_mode=REUSE)],
            turn(delegate("subagent_child", t)),
        )
        for t in ("first", "second")
    ]
    with Simulation() as sim:
        for parent in parents:
            sim.run(parent, "go")
        ids = [s.session_id for s in starts(sim.trace)]
    assert ids[0] != ids[1]
    assert _inputs_seen(child) == [["first"], ["second"]]


def test_s13_reuse_is_per_tool_name() -> None:
    child = leaf("child", {"text": "one"}, {"text": "two"})
    subs = [
        SubAgent("a", agent=child, session_mode=REUSE, tool_name="delegate_a"),
        SubAgent("b", agent=child, session_mode=REUSE, tool_name="delegate_b"),
    ]
    parent = parent_of(
        subs, turn(delegate("delegate_a", "first")), turn(delegate("delegate_b", "second"))
    )
    result = simulate(parent, "go")
    first, second = starts(result.trace)
    assert first.session_id != second.session_id
    assert _inputs_seen(child) == [["first"], ["second"]]


def test_s13_parent_session_scope_keeps_one_session_per_parent_session() -> None:
    child = leaf("child", *({"text": f"answer-{i}"} for i in range(3)))
    sub = SubAgent("child", agent=child, session_mode=REUSE, session_scope="parent_session")
    parent = Agent(
        name="parent",
        model=ScriptedModel(
            [
                turn(delegate(sub.tool_name, f"task-{i}")) if i % 2 == 0 else {"text": "ok"}
                for i in range(6)
            ]
        ),
        subagents=[sub],
    )
    with Simulation() as sim:
        first = sim.run(parent, "conversation one")
        sim.run(parent, "conversation one, again", session=first.session_id)
        sim.run(parent, "conversation two")
        ids = [s.session_id for s in starts(sim.trace)]
    assert ids[0] == ids[1]
    assert ids[2] != ids[0]
    assert _inputs_seen(child) == [["task-0"], ["task-0", "task-2"], ["task-4"]]


def test_s13_concurrent_calls_into_one_reused_session_are_serialised() -> None:
    tracker = ConcurrencyTracker(latency=3)
    child = Agent(name="child", model=tracker.model())
    result = simulate(
        _twice(SubAgent("child", agent=child, session_mode=REUSE), parallel=True), "go"
    )
    assert tracker.peak == 1
    assert tracker.entries == 2
    assert result.elapsed_ms == 6000
    assert [r.status for r in result.trace.handoffs()] == ["completed", "completed"]


def test_s13_concurrent_calls_with_new_sessions_overlap() -> None:
    tracker = ConcurrencyTracker(latency=3)
    child = Agent(name="child", model=tracker.model())
    result = simulate(_twice(SubAgent("child", agent=child), parallel=True), "go")
    assert tracker.peak == 2
    assert result.elapsed_ms == 3000
