"""Sessions as data: messages (roles and contents, partial), lineage, and a JSONL store.

``expect.sessions`` pairs one pattern with each saved session; ``session_store: jsonl``
makes the run save them as files and the check read them back.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest

from handoff_sim import hookimpl
from handoff_sim.events import Event, RunEndEvent
from handoff_sim.scenarios import ScenarioFileError, load_dict, load_file, run_scenario

from ._util import BUNDLED, delegation

MANAGER_MESSAGES: list[dict[str, Any]] = [
    {"role": "user", "content": "go"},
    {"role": "assistant", "tool_calls": [{"subset": {"name": "delegate_review"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": {"json": {"subset": {"output": "lgtm"}}}},
    {"role": "assistant", "content": "done"},
]


MESSAGE = "expect.sessions.0.messages.0"


def _sessions(*patterns: dict[str, Any], **top: Any) -> dict[str, Any]:
    return delegation(expect={"sessions": list(patterns)}, **top)


def test_the_bundled_scenario_checks_messages_and_lineage_from_a_jsonl_store() -> None:
    [scenario] = load_file(BUNDLED / "sophi" / "sessions_as_data.yaml")
    assert scenario.spec.session_store == "jsonl"
    result = run_scenario(scenario)
    assert result.passed, result.render_failure()


def test_messages_are_matched_one_pattern_each_comparing_only_the_fields_given() -> None:
    result = run_scenario(
        _sessions(
            {"agent": "manager", "messages": MANAGER_MESSAGES},
            {"agent": "reviewer", "messages": [{"role": "user"}, {"content": "lgtm"}]},
        )
    )
    assert result.passed, result.render_failure()


@pytest.mark.parametrize(
    "messages",
    [
        MANAGER_MESSAGES[:3],  # one message short
        [*MANAGER_MESSAGES[:3], {"role": "assistant", "content": {"contains": "nope"}}],
        [{"role": "assistant"}, *MANAGER_MESSAGES[1:]],  # wrong role
        [*MANAGER_MESSAGES[:2], {"role": "tool", "is_error": True}, MANAGER_MESSAGES[3]],
    ],
    ids=["count", "content", "role", "is_error"],
)
def test_a_message_pattern_that_does_not_hold_fails_its_session_pattern(
    messages: list[dict[str, Any]],
) -> None:
    result = run_scenario(_sessions({"agent": "manager", "messages": messages}, {}))
    assert not result.passed
    [mismatch] = result.mismatches
    assert mismatch.field == "expect.sessions.0"
    assert "no session matches pattern 0" in mismatch.message
    assert isinstance(mismatch.actual, list)
    assert all("messages" in s for s in mismatch.actual)  # the messages are shown


def test_lineage_root_and_parent_of_each_session() -> None:
    data = _sessions(
        {"agent": "manager", "root_session_id": None, "parent_session_id": None},
        {
            "agent": "reviewer",
            "parent_agent": "manager",
            "root_agent": {"match": "^man"},
            "root_session_id": {"match": "^session-"},
        },
    )
    result = run_scenario(data)
    assert result.passed, result.render_failure()
    wrong = _sessions({"agent": "manager"}, {"agent": "reviewer", "root_agent": "reviewer"})
    assert not run_scenario(wrong).passed


class _FilesAtRunEnd:
    """Lists the session files under ``root`` each time a top-level run ends."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.seen: list[list[str]] = []

    @hookimpl
    def handoff_sim_event(self, event: Event) -> None:
        if isinstance(event, RunEndEvent) and event.depth == 0:
            self.seen.append(sorted(p.name for p in self.root.rglob("*.meta.json")))


def test_a_jsonl_store_holds_the_sessions_while_running_and_leaves_nothing_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    watch = _FilesAtRunEnd(tmp_path)
    patterns = ({"agent": "manager", "messages": MANAGER_MESSAGES}, {"agent": "reviewer"})
    result = run_scenario(_sessions(*patterns, session_store="jsonl"), observers=[watch])
    assert result.passed, result.render_failure()
    assert len(watch.seen) == 1
    assert len(watch.seen[0]) == 2  # the reviewer's, saved when it ended, and the manager's
    assert list(tmp_path.iterdir()) == []


def test_the_same_expectations_hold_for_the_memory_and_the_jsonl_store() -> None:
    patterns = ({"agent": "manager", "messages": MANAGER_MESSAGES}, {"agent": "reviewer"})
    for store in ("memory", "jsonl"):
        result = run_scenario(_sessions(*patterns, session_store=store))
        assert result.passed, (store, result.render_failure())


@pytest.mark.parametrize(
    ("sessions", "field", "fragment"),
    [
        ([{"messages": [{"role": "usr"}]}], f"{MESSAGE}.role", "did you mean 'user'"),
        ([{"messages": [{"text": "x"}]}], f"{MESSAGE}.text", "unknown field 'text'"),
        ([{"title": {"contain": "x"}}], "expect.sessions.0.title.contain", "'contains'?"),
        ([{"root_id": "x"}], "expect.sessions.0.root_id", "did you mean 'root_session_id'"),
        (
            [{"messages": [{"tool_calls": [{"id": {"match": "x"}}]}]}],
            "expect.sessions.0.messages.0.tool_calls.0.id",
            "compared exactly",
        ),
    ],
)  # fmt: skip
def test_a_misused_session_pattern_is_refused_at_load_with_its_field(
    sessions: list[dict[str, Any]], field: str, fragment: str
) -> None:
    with pytest.raises(ScenarioFileError) as caught:
        load_dict(delegation(expect={"sessions": sessions}))
    assert f": {field}: " in str(caught.value)
    assert fragment in str(caught.value)


def test_session_store_takes_memory_or_jsonl_only() -> None:
    with pytest.raises(ScenarioFileError) as caught:
        load_dict(delegation(session_store="jsnl"))
    assert "session_store: must be one of 'memory' or 'jsonl' (did you mean 'jsonl'?)" in str(
        caught.value
    )
