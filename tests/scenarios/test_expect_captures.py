"""Captured values: ``{capture: name}`` names a value once, ``{ref: name}`` reuses it later.

A turn can run in a session an earlier turn captured; a misused name is a load error
at its line; a reference that does not hold is a mismatch that shows the captured value.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest

from handoff_sim.errors import ScenarioError
from handoff_sim.events import ModelRequestEvent, RunStartEvent
from handoff_sim.scenarios import (
    ScenarioFileError,
    load_dict,
    load_file,
    run_scenario,
    scenario_json_schema,
)
from handoff_sim.scenarios._expect import TurnSessions
from handoff_sim.scenarios._schema import SessionRef, TurnExpectSpec, TurnSpec

from ._util import BUNDLED, delegation, write

THREE_TURNS = """
    scenario: three-turns
    agents:
      main:
        model: {script: [one, two, three]}
    run:
      - input: first
        expect: {session_id: {capture: first}}
      - input: second
        session: SECOND
      - input: third
        session: THIRD
        expect: {session_id: {ref: first}}
"""


def _three_turns(tmp_path: Path, second: str, third: str) -> Path:
    text = THREE_TURNS.replace("SECOND", second).replace("THIRD", third)
    return write(tmp_path, text)


LATER = {"type": "run_end", "output": {"capture": "later"}}


def _refusal(data: dict[str, Any]) -> str:
    with pytest.raises(ScenarioFileError) as caught:
        load_dict(data)
    return str(caught.value)


def test_the_bundled_scenario_captures_and_reuses_a_session_over_three_turns() -> None:
    [scenario] = load_file(BUNDLED / "ai4j" / "session_captured_over_three_turns.yaml")
    turns = scenario.spec.turns()
    assert [t.session for t in turns][1] == "new"
    result = run_scenario(scenario)
    assert result.passed, result.render_failure()
    roots = [e for e in result.trace if isinstance(e, RunStartEvent) and e.depth == 0]
    sessions = [e.session_id for e in roots]
    assert sessions[0] == sessions[2] != sessions[1]


def test_a_turn_returns_to_a_captured_session_and_sees_its_messages(tmp_path: Path) -> None:
    result = run_scenario(_three_turns(tmp_path, "new", "{ref: first}"))
    assert result.passed, result.render_failure()
    requests = [e for e in result.trace if isinstance(e, ModelRequestEvent)]
    assert [e.messages for e in requests] == [1, 1, 3]  # turn 3 remembers turn 1


def test_a_reference_that_does_not_hold_is_a_mismatch_showing_the_captured_value(
    tmp_path: Path,
) -> None:
    result = run_scenario(_three_turns(tmp_path, "new", "continue"))
    assert not result.passed
    [mismatch] = result.mismatches
    assert mismatch.field == "run.2.expect.session_id"
    assert mismatch.line == 12
    first = next(e for e in result.trace if isinstance(e, RunStartEvent))
    assert mismatch.expected == first.session_id
    assert "another session than the one captured as 'first'" in mismatch.message


def test_a_handoff_id_captured_at_the_start_is_carried_by_its_end() -> None:
    trace = [
        {"type": "handoff_start", "handoff_id": {"capture": "h"}},
        {"type": "handoff_attempt_end", "handoff_id": {"ref": "h"}, "outcome": "ok"},
        {"type": "handoff_end", "handoff_id": {"ref": "h"}, "status": "completed"},
    ]
    assert run_scenario(delegation(expect={"trace": trace})).passed


def test_a_value_captured_in_a_handoff_summary_is_referred_to_by_an_event() -> None:
    captured = {"handoffs": [{"output": {"capture": "answer"}}]}
    same = delegation(
        expect={**captured, "trace": [{"type": "handoff_end", "output": {"ref": "answer"}}]}
    )
    assert run_scenario(same).passed
    other = {"type": "run_end", "agent": "manager", "output": {"ref": "answer"}}  # "done"
    result = run_scenario(delegation(expect={**captured, "trace": [other]}))
    assert not result.passed
    [mismatch] = result.mismatches
    assert mismatch.field == "expect.trace.0"
    assert isinstance(mismatch.expected, dict)
    assert mismatch.expected["events"][0]["output"] == "lgtm"  # shown as the captured value


def test_captured_values_hold_in_session_patterns() -> None:
    data = delegation(
        run=[{"input": "go", "expect": {"session_id": {"capture": "top"}}}],
        expect={
            "sessions": [
                {"id": {"ref": "top"}, "agent": "manager"},
                {"agent": "reviewer", "parent_session_id": {"ref": "top"}},
            ]
        },
    )
    assert run_scenario(data).passed


# -- misuse is refused at load, at its line ---------------------------------------------------


@pytest.mark.parametrize(
    ("expect", "field", "fragment"),
    [
        (
            {"output": {"ref": "later"}, "trace": [LATER]},
            "expect.output.ref",
            "'later' is referred to before it is captured (at expect.trace.0.output.capture)",
        ),
        (
            {"trace": [
                {"type": "handoff_start", "handoff_id": {"capture": "h"}},
                {"type": "handoff_end", "handoff_id": {"capture": "h"}},
            ]},
            "expect.trace.1.handoff_id.capture",
            "'h' is already captured at expect.trace.0.handoff_id.capture",
        ),
        (
            {"trace": [
                {"type": "handoff_start", "handoff_id": {"capture": "handoff"}},
                {"type": "handoff_end", "handoff_id": {"ref": "handof"}},
            ]},
            "expect.trace.1.handoff_id.ref",
            "nothing is captured as 'handof' (did you mean 'handoff'?)",
        ),
        (
            {"output": {"ref": "x"}},
            "expect.output.ref",
            "nothing is captured as 'x': write {capture: x}",
        ),
        (
            {"output": {"capture": "x y"}},
            "expect.output.capture",
            "'capture' takes a name",
        ),
        (
            {"output": {"capture": "x", "ref": "x"}},
            "expect.output.ref",
            "cannot both capture a value and refer to one",
        ),
        (
            {"sessions": [{"id": {"capture": "s"}}, {"parent_session_id": {"ref": "s"}}]},
            "expect.sessions.1.parent_session_id.ref",
            "sessions are matched in any order",
        ),
    ],
    ids=["ref-before-capture", "captured-twice", "unknown-did-you-mean", "nothing-captured",
         "bad-name", "capture-and-ref", "ref-within-sessions"],
)  # fmt: skip
def test_a_misused_capture_is_refused_at_load_with_its_field(
    expect: dict[str, Any], field: str, fragment: str
) -> None:
    message = _refusal(delegation(expect=expect))
    assert f": {field}: " in message
    assert fragment in message


def test_a_turn_session_must_name_a_session_captured_by_an_earlier_turn(tmp_path: Path) -> None:
    later = THREE_TURNS.replace("SECOND", "{ref: first}").replace("THIRD", "{ref: other}")
    later = later.replace("{session_id: {ref: first}}", "{session_id: {capture: other}}")
    with pytest.raises(ScenarioFileError) as caught:
        load_file(write(tmp_path, later))
    lines = str(caught.value).splitlines()
    assert len(lines) == 1
    assert ":11:" in lines[0]
    assert "run.2.session.ref: 'other' must be captured by an earlier turn's session_id" in lines[0]
    assert "it is captured at run.2.expect.session_id.capture" in lines[0]


def test_a_turn_session_cannot_name_a_value_captured_in_the_trace() -> None:
    data = delegation(
        run=["go", {"input": "again", "session": {"ref": "s"}}],
        expect={"trace": [{"type": "run_start", "session_id": {"capture": "s"}}]},
    )
    assert "run.1.session.ref: 's' must be captured by an earlier turn's" in _refusal(data)


def test_a_script_step_check_cannot_capture() -> None:
    data = delegation()
    data["agents"]["manager"]["model"]["script"][0]["expect"] = {"input": {"capture": "x"}}
    message = _refusal(data)
    assert "agents.manager.model.script.0.expect.input.capture: a script step's checks" in message


def test_each_matrix_variant_is_checked_with_its_own_expectations() -> None:
    base = {
        "handoffs": [{"output": {"capture": "out"}}],
        "trace": [{"type": "handoff_end", "output": {"ref": "out"}}],
    }
    keeps = {"id": "keeps", "expect": {"output": "done"}}
    drops = {"id": "drops", "expect": {"handoffs": [{"tool": "delegate_review"}]}}
    assert [s.id for s in load_dict(delegation(expect=base, matrix=[keeps]))] == [
        "delegation[keeps]"
    ]
    message = _refusal(delegation(expect=base, matrix=[keeps, drops]))
    assert message.count("\n") == 0
    assert "expect.trace.0.output.ref: nothing is captured as 'out'" in message
    assert "(matrix variant 'drops')" in message


@pytest.mark.parametrize(
    "session",
    ["new", "continue", "newer", {"ref": "first"}, {"ref": "1st"}, {"reff": "first"}, None, 3],
)
def test_a_turn_session_is_accepted_by_the_schema_exactly_when_the_loader_accepts_it(
    session: object,
) -> None:
    first = {"input": "go", "expect": {"session_id": {"capture": "first"}}}
    data = delegation(run=[first, {"input": "again", "session": session}])
    schema = jsonschema.Draft202012Validator(scenario_json_schema())
    try:
        load_dict(data)
        loads = True
    except ScenarioFileError:
        loads = False
    assert (not list(schema.iter_errors(data))) is loads


def test_turn_sessions_continue_start_anew_or_return_to_a_captured_session() -> None:
    first = TurnSpec(input="a", expect=TurnExpectSpec(session_id={"capture": "first"}))
    sessions = TurnSessions()
    assert sessions.choose(first) is None  # the first turn opens a session
    sessions.ran(first, "s-1")
    assert sessions.choose(TurnSpec(input="b")) == "s-1"
    assert sessions.choose(TurnSpec(input="b", session="new")) is None
    sessions.ran(TurnSpec(input="b", session="new"), "s-2")
    assert sessions.choose(TurnSpec(input="c")) == "s-2"
    assert sessions.choose(TurnSpec(input="c", session=SessionRef(ref="first"))) == "s-1"


def test_a_session_reference_nobody_captured_is_a_scenario_error_when_run_unchecked() -> None:
    with pytest.raises(ScenarioError, match="no earlier turn captured 'x'"):
        TurnSessions().choose(TurnSpec(input="a", session=SessionRef(ref="x")))
