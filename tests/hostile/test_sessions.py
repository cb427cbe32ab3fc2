"""Hostile session stores: a failed save still ends the run; hostile text and ids are stored;
corrupt store files are refused with a SessionStoreError; rollbacks reach the store."""

from __future__ import annotations

from pathlib import Path

import pytest

from handoff_sim import (
    Agent,
    FailureAction,
    HandoffPolicy,
    JsonlSessionStore,
    Session,
    SessionMode,
    SessionStore,
    SubAgent,
    simulate,
)
from handoff_sim._sessions import InMemorySessionStore
from handoff_sim.errors import SessionStoreError
from handoff_sim.events import Event, RunEndEvent, RunStartEvent
from handoff_sim.messages import Message, ToolCall
from handoff_sim.testing import ScriptedModel, SimulatedModelError
from tests._helpers import delegate, leaf, parent_of, turn
from tests.hostile._support import run_hostile

# Text a model may produce that once broke the store: lone surrogates (not encodable as
# UTF-8), line separators that str.splitlines() splits on, control characters.
HOSTILE_TEXT = [
    "\ud800",
    "\udfff tail",
    "head \udc80 \udcff",
    "line\u2028separator\u2029paragraph",
    "next\x85line\x1crecord",
    "nul\x00byte",
    "crlf\r\nlf\ncr\r",
    "emoji 😀 and é",
    'quote " backslash \\ slash /',
    "",
]


class FailingStore(InMemorySessionStore):
    """A store whose saves raise ``error`` (a full disk, a user's Ctrl-C) after ``after`` work."""

    def __init__(self, error: BaseException, *, after: int = 0) -> None:
        super().__init__()
        self.error = error
        self.after = after
        self.attempts = 0

    def save(self, session: Session) -> None:
        self.attempts += 1
        if self.attempts > self.after:
            raise self.error
        super().save(session)


class UnprintableError(OSError):
    def __str__(self) -> str:
        raise RuntimeError("no text for you")


def run_ends(events: tuple[Event, ...]) -> list[RunEndEvent]:
    return [e for e in events if isinstance(e, RunEndEvent)]


def child_run_end(events: tuple[Event, ...], agent: str) -> RunEndEvent:
    [end] = [e for e in run_ends(events) if e.agent == agent]
    return end


# --- saving: hostile text and ids round-trip -------------------------------------------


def test_i4_a_lone_surrogate_in_model_output_is_stored_and_read_back(tmp_path: Path) -> None:
    agent = leaf("a", {"text": "bad \ud800 text"}, session_store=JsonlSessionStore(tmp_path))
    outcome = run_hostile(agent)
    assert outcome.result.output == "bad \ud800 text"
    [end] = run_ends(outcome.trace.events)
    assert (end.status, end.error) == ("completed", None)
    loaded = JsonlSessionStore(tmp_path).load(outcome.result.session_id)
    assert loaded is not None
    assert [m.content for m in loaded.messages] == ["go", "bad \ud800 text"]
    for path in tmp_path.iterdir():
        path.read_bytes().decode("utf-8")  # the files stay valid UTF-8


@pytest.mark.parametrize("text", HOSTILE_TEXT, ids=range(len(HOSTILE_TEXT)))
def test_i4_jsonl_store_round_trips_any_text_in_every_field(text: str, tmp_path: Path) -> None:
    session = Session(
        id=f"id {text}",
        parent_session_id=text,
        root_session_id=text,
        title=text,
        agent=text,
        status="failed",
        messages=[
            Message(role="system", content=text),
            Message(role="user", content=text),
            Message(role="assistant", content=text, tool_calls=(ToolCall(text, text, text),)),
            Message(role="tool", content=text, tool_call_id=text, name=text, is_error=True),
        ],
    )
    JsonlSessionStore(tmp_path).save(session)
    store = JsonlSessionStore(tmp_path)
    loaded = store.load(session.id)
    assert loaded is not None
    assert loaded.metadata() == session.metadata()
    assert loaded.messages == session.messages
    assert store.ids() == [session.id]


def test_i4_session_ids_too_long_for_a_file_name_are_stored_apart(tmp_path: Path) -> None:
    ids = ["x" * 300, "x" * 299 + "y", "é" * 200, "/" * 120, "x" * 100 + "%%", "\ud800" * 100]
    store = JsonlSessionStore(tmp_path)
    for session_id in ids:
        store.save(Session(id=session_id, messages=[Message(role="user", content=session_id)]))
    assert all(len(p.name.encode()) <= 255 for p in tmp_path.iterdir())
    assert sorted(store.ids()) == sorted(ids)
    for session_id in ids:
        loaded = JsonlSessionStore(tmp_path).load(session_id)
        assert loaded is not None
        assert (loaded.id, [m.content for m in loaded.messages]) == (session_id, [session_id])


def test_i4_a_run_in_a_session_with_a_very_long_id_is_saved(tmp_path: Path) -> None:
    store = JsonlSessionStore(tmp_path)
    agent = leaf("a", session_store=store)
    long_id = "session-" + "0" * 400
    outcome = run_hostile(lambda: agent.arun("go", session=Session(id=long_id)))
    assert outcome.result.session_id == long_id
    loaded = store.load(long_id)
    assert loaded is not None
    assert [m.content for m in loaded.messages] == ["go", "a-done"]


# --- saving: a store that fails ---------------------------------------------------------


def test_i4_a_jsonl_store_that_cannot_write_ends_the_run_and_names_session_and_file(
    tmp_path: Path,
) -> None:
    (tmp_path / "blocked.jsonl").mkdir()  # the file the store must write is a folder
    agent = leaf("a", session_store=JsonlSessionStore(tmp_path))
    outcome = run_hostile(
        lambda: agent.arun("go", session=Session(id="blocked")), expect=SessionStoreError
    )
    message = str(outcome.error)
    assert "session 'blocked'" in message
    assert str(tmp_path / "blocked.jsonl") in message
    assert "IsADirectoryError" in message
    assert isinstance(outcome.error, SessionStoreError)
    assert isinstance(outcome.error.__cause__, OSError)
    [end] = run_ends(outcome.trace.events)
    assert end.status == "failed"
    assert end.error is not None
    assert "session not saved" in end.error
    assert "blocked.jsonl" in end.error


def test_i4_any_error_of_a_custom_store_becomes_a_session_store_error() -> None:
    store = FailingStore(OSError("disk full"))
    agent = leaf("a", session_store=store)
    outcome = run_hostile(agent, expect=SessionStoreError)
    [end] = run_ends(outcome.trace.events)
    message = str(outcome.error)
    [start] = [e for e in outcome.trace.events if isinstance(e, RunStartEvent)]
    assert f"session {start.session_id!r}" in message
    assert "agent 'a'" in message
    assert "FailingStore: OSError: disk full" in message
    assert isinstance(outcome.error, SessionStoreError)
    assert isinstance(outcome.error.__cause__, OSError)
    assert (end.status, end.output) == ("failed", "a-done")


def test_i4_a_store_error_whose_text_cannot_be_rendered_still_ends_the_run() -> None:
    agent = leaf("a", session_store=FailingStore(UnprintableError()))
    outcome = run_hostile(agent, expect=SessionStoreError)
    assert "UnprintableError" in str(outcome.error)
    [end] = run_ends(outcome.trace.events)
    assert end.status == "failed"


def test_i4_a_store_that_raises_session_store_error_is_reported_as_it_is() -> None:
    agent = leaf("a", session_store=FailingStore(SessionStoreError("quota of tenant t1 reached")))
    outcome = run_hostile(agent, expect=SessionStoreError)
    assert str(outcome.error) == "quota of tenant t1 reached"


def test_i4_a_failing_save_does_not_mask_the_runs_own_error() -> None:
    agent = leaf("a", {"error": "provider down"}, session_store=FailingStore(OSError("disk full")))
    outcome = run_hostile(agent, expect=SimulatedModelError)
    assert "provider down" in str(outcome.error)
    notes = getattr(outcome.error, "__notes__", [])
    assert any("session not saved" in n and "disk full" in n for n in notes), notes
    [end] = run_ends(outcome.trace.events)
    assert end.status == "failed"
    assert end.error is not None
    assert end.error.startswith("SimulatedModelError: provider down; session not saved:")


def test_i4_an_interrupt_while_saving_still_ends_the_run() -> None:
    agent = leaf("a", session_store=FailingStore(KeyboardInterrupt()))
    outcome = run_hostile(agent, expect=KeyboardInterrupt)
    assert len(run_ends(outcome.trace.events)) == 1


def test_i4_a_subagent_whose_store_fails_aborts_the_run_without_retrying() -> None:
    store = FailingStore(OSError("disk full"))
    child = leaf("child", {"text": "one"}, {"text": "two"}, session_store=store)
    parent = parent_of(
        [SubAgent("child", agent=child)],
        turn(delegate("subagent_child")),
        policy=HandoffPolicy(max_retries=2, on_error=FailureAction.REPORT_TO_MODEL),
    )
    outcome = run_hostile(parent, expect=SessionStoreError)
    assert "agent 'child'" in str(outcome.error)
    assert store.attempts == 1
    [record] = outcome.trace.handoffs()
    assert (record.status, record.attempts) == ("failed", 1)
    assert child_run_end(outcome.trace.events, "parent").status == "failed"


def test_i4_a_failing_child_store_in_a_parallel_turn_cancels_the_siblings() -> None:
    slow = leaf("slow", {"text": "late", "latency": 60})
    broken = leaf("broken", session_store=FailingStore(OSError("disk full")))
    parent = parent_of(
        [SubAgent("slow", agent=slow), SubAgent("broken", agent=broken)],
        turn(delegate("subagent_slow"), delegate("subagent_broken")),
        parallel_tool_calls=True,
    )
    outcome = run_hostile(parent, expect=SessionStoreError)
    assert "agent 'broken'" in str(outcome.error)
    statuses = {r.tool: r.status for r in outcome.trace.handoffs()}
    assert statuses == {"subagent_slow": "cancelled", "subagent_broken": "failed"}


def test_i4_a_failing_child_store_does_not_stop_a_timeout() -> None:
    child = leaf("child", {"text": "late", "latency": 60}, session_store=FailingStore(OSError("x")))
    parent = parent_of(
        [SubAgent("child", agent=child)],
        turn(delegate("subagent_child")),
        policy=HandoffPolicy(timeout=1),
    )
    outcome = run_hostile(parent)
    assert outcome.result.output == "done"
    [record] = outcome.trace.handoffs()
    assert (record.status, record.reason) == ("failed", "timeout")
    end = child_run_end(outcome.trace.events, "child")
    assert end.status == "cancelled"
    assert end.error is not None
    assert "session not saved" in end.error


# --- saving: values that are not what a session holds ----------------------------------


@pytest.mark.parametrize(
    ("session", "fragment"),
    [
        (Session(id=42), "its id must be a string (got int)"),  # type: ignore[arg-type]
        (Session(id="s1", title=["t"]), "title: must be a string or null (got an array)"),  # type: ignore[arg-type]
        (Session(id="s1", status="paused"), "status: must be one of"),
        (
            Session(id="s1", messages=[Message(role="user", content=12345)]),  # type: ignore[arg-type]
            "message 1: content: must be a string or null (got an integer)",
        ),
        (
            Session(id="s1", messages=[Message(role="wizard")]),  # type: ignore[arg-type]
            "message 1: role: must be one of",
        ),
        (Session(id="s1", messages=["hello"]), "message 1: must be a Message (got str)"),  # type: ignore[list-item]
    ],
    ids=["id", "title", "status", "content", "role", "not-a-message"],
)
def test_i4_jsonl_store_refuses_to_save_what_it_could_not_read_back(
    session: Session, fragment: str, tmp_path: Path
) -> None:
    with pytest.raises(SessionStoreError, match="could not save session") as caught:
        JsonlSessionStore(tmp_path).save(session)
    assert repr(session.id) in str(caught.value)
    assert fragment in str(caught.value)
    assert list(tmp_path.iterdir()) == []


# --- loading: corrupt files ---------------------------------------------------------------

DEEP = "[" * 3000 + "]" * 3000


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        ('"just a string"', "must be a JSON object (got a string)"),
        ('{"role": 1}', "role: must be a string (got an integer)"),
        ('{"role": "wizard"}', "role: must be one of system, user, assistant, tool"),
        ('{"content": "x"}', "role: missing"),
        ('{"role": "user", "content": ["a"]}', "content: must be a string or null (got an array)"),
        ('{"role": "assistant", "tool_calls": "c1"}', "tool_calls: must be an array"),
        (
            '{"role": "assistant", "tool_calls": [{"id": 1, "name": "t"}]}',
            "tool_calls[0]: id: must be a string (got an integer)",
        ),
        ('{"role": "assistant", "tool_calls": [{"name": "t"}]}', "tool_calls[0]: id: missing"),
        ('{"role": "assistant", "tool_calls": [7]}', "tool_calls[0]: must be a JSON object"),
        ('{"role": "tool", "is_error": "yes"}', "is_error: must be a boolean (got a string)"),
        ('{"role": "user", "colour": "red"}', "colour: unknown field"),
        ('{"role": "user", "content": ' + DEEP + "}", "nested too deeply"),
        ("not json at all", "not valid JSON"),
    ],
    ids=lambda value: value[:30] if isinstance(value, str) and len(value) < 3000 else "deep",
)
def test_i4_a_corrupt_message_line_is_refused_with_file_line_and_session(
    line: str, fragment: str, tmp_path: Path
) -> None:
    store = JsonlSessionStore(tmp_path)
    store.save(Session(id="s1", messages=[Message(role="user", content="fine")]))
    path = tmp_path / "s1.jsonl"
    path.write_text(path.read_text(encoding="utf-8") + line + "\n", encoding="utf-8")
    with pytest.raises(SessionStoreError) as caught:
        store.load("s1")
    message = str(caught.value)
    assert f"{path}:2: not a message: " in message
    assert fragment in message
    assert "session 's1'" in message


def test_i4_message_file_that_is_not_utf8_is_refused_with_its_line(tmp_path: Path) -> None:
    store = JsonlSessionStore(tmp_path)
    store.save(Session(id="s1"))
    path = tmp_path / "s1.jsonl"
    path.write_bytes(b'{"role": "user", "content": "ok"}\n{"role": "user", "content": "\xff"}\n')
    with pytest.raises(SessionStoreError, match=r"s1\.jsonl:2: not valid UTF-8 \(session 's1'\)"):
        store.load("s1")


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (b"\xff\xfe{}", "not valid UTF-8"),
        (b"[]", "not session metadata: must be a JSON object (got an array)"),
        (b'{"id": 5}', "id: must be a string (got an integer)"),
        (b'{"status": "open"}', "id: missing"),
        (b'{"id": "s1", "status": "weird"}', "status: must be one of"),
        (b'{"id": "s1", "title": ["t"]}', "title: must be a string or null (got an array)"),
        (b'{"id": "s1", "message_count": true}', "message_count: must be an integer"),
        (b'{"id": "s1", "owner": "me"}', "owner: unknown field"),
        (b'{"id": "s1", "x": ' + DEEP.encode() + b"}", "nested too deeply"),
        (b'{"id": "other"}', "holds session 'other', expected 's1'"),
    ],
    ids=["utf8", "array", "id-type", "no-id", "status", "title", "count", "unknown", "deep", "id"],
)
def test_i4_corrupt_metadata_is_refused_with_its_path(
    content: bytes, fragment: str, tmp_path: Path
) -> None:
    store = JsonlSessionStore(tmp_path)
    store.save(Session(id="s1"))
    path = tmp_path / "s1.meta.json"
    path.write_bytes(content)
    with pytest.raises(SessionStoreError) as caught:
        store.load("s1")
    assert str(caught.value).startswith(f"{path}: ")
    assert fragment in str(caught.value)


def test_i4_listing_a_folder_with_a_corrupt_metadata_file_names_it(tmp_path: Path) -> None:
    store = JsonlSessionStore(tmp_path)
    store.save(Session(id="s1"))
    (tmp_path / "s1.meta.json").write_bytes(b'{"id": ' + b"[" * 3000)
    with pytest.raises(
        SessionStoreError, match=r"s1\.meta\.json: not valid JSON: nested too deeply"
    ):
        store.ids()


def test_i4_continuing_from_a_corrupt_session_file_is_a_session_store_error(
    tmp_path: Path,
) -> None:
    store = JsonlSessionStore(tmp_path)
    agent = Agent(name="a", model=ScriptedModel([{"text": "one"}]), session_store=store)
    first = simulate(agent, "hello")
    (tmp_path / f"{first.session_id}.jsonl").write_text('{"role": 1}\n', encoding="utf-8")
    outcome = run_hostile(
        lambda: agent.arun("again", session=first.session_id), expect=SessionStoreError
    )
    assert f"{first.session_id}.jsonl:1: not a message: role" in str(outcome.error)
    assert run_ends(outcome.trace.events) == []


# --- item 5: a rolled-back attempt of a reused session reaches the store ---------------


def _reused_child(second: dict[str, object], store: SessionStore) -> Agent:
    child = leaf("child", {"text": "one"}, second, session_store=store)
    parent = parent_of(
        [SubAgent("child", agent=child, session_mode=SessionMode.REUSE_SESSION)],
        turn(delegate("subagent_child", "first")),
        turn(delegate("subagent_child", "second")),
        policy=HandoffPolicy(timeout=5),
    )
    return parent


@pytest.mark.parametrize(
    "second", [{"text": "late", "latency": 60}, {"error": "boom"}], ids=["timeout", "error"]
)
@pytest.mark.parametrize("kind", ["memory", "jsonl"])
def test_i5_a_failed_attempt_in_a_reused_session_leaves_no_orphan_in_the_store(
    second: dict[str, object], kind: str, tmp_path: Path
) -> None:
    store = InMemorySessionStore() if kind == "memory" else JsonlSessionStore(tmp_path)
    parent = _reused_child(second, store)
    outcome = run_hostile(parent)
    first, failed = outcome.trace.handoffs()
    assert (first.status, failed.status) == ("completed", "failed")
    assert first.session_id == failed.session_id
    assert failed.session_id is not None
    stored = store.load(failed.session_id)
    assert stored is not None
    assert [m.content for m in stored.messages] == ["first", "one"]


def test_i5_a_lone_attempt_that_times_out_leaves_the_reused_session_empty_in_the_store() -> None:
    child = leaf("child", {"text": "late", "latency": 60})
    parent = parent_of(
        [SubAgent("child", agent=child, session_mode=SessionMode.REUSE_SESSION)],
        turn(delegate("subagent_child", "first")),
        policy=HandoffPolicy(timeout=5),
    )
    outcome = run_hostile(parent)
    [record] = outcome.trace.handoffs()
    assert (record.status, record.reason) == ("failed", "timeout")
    assert record.session_id is not None
    stored = child.session_store.load(record.session_id)
    assert stored is not None
    assert (stored.messages, stored.status) == ([], "cancelled")


def test_i5_a_retry_after_a_timed_out_attempt_stores_only_the_attempt_that_worked() -> None:
    child = leaf("child", {"text": "late", "latency": 60}, {"text": "ok"})
    parent = parent_of(
        [SubAgent("child", agent=child, session_mode=SessionMode.REUSE_SESSION)],
        turn(delegate("subagent_child", "first")),
        policy=HandoffPolicy(timeout=5, max_retries=1),
    )
    outcome = run_hostile(parent)
    [record] = outcome.trace.handoffs()
    assert (record.status, record.attempts) == ("completed", 2)
    assert record.session_id is not None
    stored = child.session_store.load(record.session_id)
    assert stored is not None
    assert [m.content for m in stored.messages] == ["first", "ok"]


def test_i5_a_rollback_whose_save_fails_keeps_the_timeout_and_the_last_good_copy() -> None:
    store = FailingStore(OSError("disk full"), after=1)  # the first handoff's save works
    parent = _reused_child({"text": "late", "latency": 60}, store)
    outcome = run_hostile(parent)
    assert outcome.result.output == "done"
    first, failed = outcome.trace.handoffs()
    assert (first.status, failed.status, failed.reason) == ("completed", "failed", "timeout")
    assert store.attempts == 3  # the cancelled run's save, then the rollback's save
    assert failed.session_id is not None
    stored = store.load(failed.session_id)
    assert stored is not None
    assert [m.content for m in stored.messages] == ["first", "one"]


class LoadingStore(InMemorySessionStore):
    """A custom store whose ``load`` raises ``error`` or returns ``found``."""

    def __init__(self, *, error: Exception | None = None, found: object = None) -> None:
        super().__init__()
        self.error, self.found = error, found

    def load(self, session_id: str) -> Session | None:
        if self.error is not None:
            raise self.error
        return self.found  # type: ignore[return-value]


def test_i4_a_custom_store_failing_to_load_is_a_session_store_error_naming_agent_and_id() -> None:
    agent = leaf("a", session_store=LoadingStore(error=KeyError("tenant t1")))
    with pytest.raises(SessionStoreError) as caught:
        simulate(agent, "go", session="s-42")
    message = str(caught.value)
    assert "agent 'a'" in message
    assert "session 's-42'" in message
    assert "LoadingStore: KeyError" in message
    assert isinstance(caught.value.__cause__, KeyError)


def test_i4_a_custom_store_loading_something_else_than_a_session_is_refused() -> None:
    agent = leaf("a", session_store=LoadingStore(found={"id": "s-42"}))
    with pytest.raises(SessionStoreError, match="load\\(\\) returned dict, expected a Session"):
        simulate(agent, "go", session="s-42")
