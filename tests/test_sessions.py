"""R6: sessions, the in-memory and JSON-lines stores, saving on error, seeded ids."""

from __future__ import annotations

from pathlib import Path

import pytest

from handoff_sim import (
    Agent,
    ConfigurationError,
    JsonlSessionStore,
    Session,
    SessionStore,
    SubAgent,
    simulate,
)
from handoff_sim._sessions import InMemorySessionStore
from handoff_sim.errors import SessionStoreError
from handoff_sim.messages import Message, ToolCall
from handoff_sim.simulation import Simulation
from handoff_sim.testing import ScriptedModel, SimulatedModelError
from tests._helpers import delegate, leaf, parent_of, run_raising, starts, turn


def test_r6_session_has_id_parent_and_messages() -> None:
    session = Session(id="s1", parent_session_id="s0")
    assert (session.id, session.parent_session_id, session.messages) == ("s1", "s0", [])


@pytest.mark.parametrize("make", [InMemorySessionStore, None], ids=["memory", "jsonl"])
def test_r6_stores_follow_the_protocol_and_round_trip(make: type | None, tmp_path: Path) -> None:
    store = make() if make else JsonlSessionStore(tmp_path)
    assert isinstance(store, SessionStore)
    session = Session(
        id="s1",
        parent_session_id="s0",
        messages=[
            Message(role="user", content="héllo"),
            Message(role="assistant", tool_calls=(ToolCall("c1", "t", '{"a":1}'),)),
            Message(role="tool", content="Error: x", tool_call_id="c1", name="t", is_error=True),
        ],
        title="subagent:writer",
    )
    store.save(session)
    loaded = store.load("s1")
    assert loaded is not None
    assert loaded is not session
    assert (loaded.id, loaded.parent_session_id, loaded.title) == ("s1", "s0", "subagent:writer")
    assert loaded.messages == session.messages
    assert store.load("missing") is None
    assert store.ids() == ["s1"]


def test_r6_in_memory_store_keeps_a_snapshot() -> None:
    store = InMemorySessionStore()
    session = Session(id="s1")
    store.save(session)
    session.messages.append(Message(role="user", content="later"))
    loaded = store.load("s1")
    assert loaded is not None
    assert loaded.messages == []


def test_r6_a_run_saves_its_session_when_it_ends() -> None:
    agent = leaf("a", {"text": "hi"})
    result = simulate(agent, "hello")
    saved = agent.session_store.load(result.session_id)
    assert saved is not None
    assert [m.content for m in saved.messages] == ["hello", "hi"]
    assert saved.status == "completed"


def test_r6_a_run_saves_its_session_also_when_it_ends_in_an_error() -> None:
    agent = leaf("a", {"error": "provider down"})
    run_raising(agent, SimulatedModelError, "hello")
    [session_id] = agent.session_store.ids()
    saved = agent.session_store.load(session_id)
    assert saved is not None
    assert saved.status == "failed"
    assert [m.content for m in saved.messages] == ["hello"]


def test_r6_a_failed_subagent_run_saves_its_session_too() -> None:
    child = leaf("child", {"error": "child broke"})
    parent = parent_of([SubAgent("child", agent=child)], turn(delegate("subagent_child")))
    result = simulate(parent, "go")
    [start] = starts(result.trace)
    assert start.session_id is not None
    saved = child.session_store.load(start.session_id)
    assert saved is not None
    assert (saved.status, saved.parent_session_id) == ("failed", result.session_id)


def test_r6_jsonl_store_writes_files_an_agent_can_continue_from(tmp_path: Path) -> None:
    store = JsonlSessionStore(tmp_path / "sessions")
    agent = Agent(
        name="a",
        model=ScriptedModel([{"text": "one"}, {"text": "two"}]),
        session_store=store,
    )
    with Simulation() as sim:
        first = sim.run(agent, "hello")
        sim.run(agent, "again", session=first.session_id)
    assert sorted(p.name for p in (tmp_path / "sessions").iterdir()) == [
        f"{first.session_id}.jsonl",
        f"{first.session_id}.meta.json",
    ]
    loaded = JsonlSessionStore(tmp_path / "sessions").load(first.session_id)
    assert loaded is not None
    assert [m.content for m in loaded.messages] == ["hello", "one", "again", "two"]


def test_r6_continuing_a_session_shows_the_model_its_history() -> None:
    model = ScriptedModel([{"text": "one"}, {"text": "two"}])
    agent = Agent(name="a", model=model)
    with Simulation() as sim:
        first = sim.run(agent, "hello")
        second = sim.run(agent, "again", session=first.session_id)
    assert second.session_id == first.session_id
    assert [m.content for m in model.requests[1].messages] == ["hello", "one", "again"]


def test_r6_continuing_an_unknown_session_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="no session with id 'nope'"):
        simulate(leaf("a"), "go", session="nope")


def test_r6_ids_are_deterministic_for_a_seed() -> None:
    def ids(seed: int) -> list[str | None]:
        child = leaf("child", {"text": "1"}, {"text": "2"})
        parent = parent_of(
            [SubAgent("child", agent=child)],
            turn(delegate("subagent_child")),
            turn(delegate("subagent_child")),
        )
        result = simulate(parent, "go", seed=seed)
        return [result.session_id, *(s.session_id for s in starts(result.trace))]

    assert ids(5) == ids(5)
    assert ids(5) != ids(6)
    assert len(set(ids(5))) == 3


def test_r6_jsonl_store_keeps_ids_that_differ_only_in_unsafe_characters_apart(
    tmp_path: Path,
) -> None:
    store = JsonlSessionStore(tmp_path)
    store.save(Session(id="a/b", messages=[Message(role="user", content="one")]))
    store.save(Session(id="a_b", messages=[Message(role="user", content="two")]))
    first, second = store.load("a/b"), store.load("a_b")
    assert first is not None
    assert second is not None
    assert [m.content for m in first.messages] == ["one"]
    assert [m.content for m in second.messages] == ["two"]


def test_r6_jsonl_store_reports_a_corrupt_metadata_file_with_its_path(tmp_path: Path) -> None:
    store = JsonlSessionStore(tmp_path)
    store.save(Session(id="s1"))
    (tmp_path / "s1.meta.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(SessionStoreError, match=r"s1\.meta\.json: not valid JSON"):
        store.load("s1")
