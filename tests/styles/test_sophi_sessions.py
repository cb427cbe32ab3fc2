"""SoPhi style, sessions: K5 (``subagent:<name>`` titles, lineage, saved on failure, file store)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from handoff_sim import JsonlSessionStore, ModelRequest, Session, simulate
from handoff_sim._sessions import InMemorySessionStore
from handoff_sim.styles.sophi import sophi_agent
from handoff_sim.testing import FunctionModel, ScriptedModel
from tests.styles._support import definition, delegation, turn

EXPLORE = definition("explore")
RECURSIVE = definition("recursive", "delegate_to_subagent")


def sub_sessions(store: Any, top_id: str) -> list[Session]:
    sessions = [store.load(i) for i in store.ids() if i != top_id]
    return [s for s in sessions if s is not None]


def run(sub_model: Any, store: Any, definitions: list[Any] | None = None, **kwargs: Any) -> Any:
    agent = sophi_agent(
        "main",
        ScriptedModel([turn(delegation((definitions or [EXPLORE])[0].name, id="d1")), "ok"]),
        definitions=definitions or [EXPLORE],
        models={d.name: sub_model for d in definitions or [EXPLORE]},
        session_store=store,
        **kwargs,
    )
    return simulate(agent, "go")


def test_k5_subagent_session_is_titled_and_linked_to_the_top_level_session() -> None:
    store = InMemorySessionStore()
    result = run(ScriptedModel(["found"]), store)
    (session,) = sub_sessions(store, result.session_id)
    assert session.title == "subagent:explore"
    assert session.agent == "explore"
    assert session.parent_session_id == result.session_id
    assert session.root_session_id == result.session_id
    assert [m.content for m in session.messages] == ["You are explore.", "do it", "found"]
    assert result.trace.handoffs()[0].session_id == session.id


def test_k5_an_explicit_parent_session_id_is_recorded() -> None:
    store = InMemorySessionStore()
    result = run(ScriptedModel(["found"]), store, parent_session_id="parent-42")
    (session,) = sub_sessions(store, result.session_id)
    assert session.parent_session_id == "parent-42"


def test_k5_session_is_saved_even_when_the_subagent_run_fails() -> None:
    store = InMemorySessionStore()
    result = run(ScriptedModel([{"error": "provider down"}]), store)
    assert result.messages[2].content == "Error: provider down"
    assert result.messages[2].is_error
    (session,) = sub_sessions(store, result.session_id)
    assert (session.title, session.status) == ("subagent:explore", "failed")


def test_k5_every_nested_level_records_the_same_top_level_parent() -> None:
    calls: list[ModelRequest] = []

    def respond(request: ModelRequest) -> Any:
        calls.append(request)
        if len(calls) == 1:
            return turn(delegation("recursive", "nested task", id="n1"))
        return "depth-1 subagent result"

    store = InMemorySessionStore()
    result = run(FunctionModel(respond), store, [RECURSIVE], parent_session_id="parent-1")
    sessions = sub_sessions(store, result.session_id)
    assert len(sessions) == 2
    assert {s.parent_session_id for s in sessions} == {"parent-1"}
    assert {s.title for s in sessions} == {"subagent:recursive"}


def test_k5_a_refused_delegation_saves_no_session() -> None:
    store = InMemorySessionStore()
    result = run(ScriptedModel([]), store, max_delegation_depth=0)
    assert result.messages[2].content == "Error: max delegation depth (0) exceeded"
    assert store.ids() == [result.session_id]


def test_k5_file_store_keeps_title_and_parent_in_the_metadata_side_file(tmp_path: Path) -> None:
    store = JsonlSessionStore(tmp_path)
    result = run(ScriptedModel(["found"]), store)
    (session,) = sub_sessions(store, result.session_id)
    assert (session.title, session.parent_session_id) == ("subagent:explore", result.session_id)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        f"{i}{suffix}" for i in store.ids() for suffix in (".jsonl", ".meta.json")
    )
    # saving again leaves no temporary files behind
    store.save(session)
    assert len(list(tmp_path.iterdir())) == 4
