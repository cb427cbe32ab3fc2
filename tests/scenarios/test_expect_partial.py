"""Partial matching: matchers wherever a value is compared, and enum values with a did-you-mean.

Outputs, handoff fields, event fields, session fields and tool parameters take the same
matchers (match, contains, subset, json, equals); a plain mapping is compared exactly.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest

from handoff_sim.scenarios import (
    ScenarioFileError,
    load_dict,
    load_file,
    run_scenario,
    scenario_json_schema,
)
from handoff_sim.scenarios._expect import value_matches

from ._util import delegation

ENVELOPE = {"type": "tool_end", "tool": "delegate_review"}


def _passes(**expect: Any) -> bool:
    return run_scenario(delegation(expect=expect)).passed


def _refusal(data: dict[str, Any]) -> str:
    with pytest.raises(ScenarioFileError) as caught:
        load_dict(data)
    return str(caught.value)


# -- the matchers on their own ------------------------------------------------------------


@pytest.mark.parametrize(
    ("expected", "actual", "verdict"),
    [
        ({"contains": "red"}, "the build is red", True),
        ({"contains": "green"}, "the build is red", False),
        ({"contains": "b"}, ["a", "b"], True),
        ({"contains": "c"}, ("a", "b"), False),
        ({"contains": "x"}, None, False),
        ({"match": r"^\d+ findings$"}, "2 findings", True),
        ({"match": "^findings"}, "2 findings", False),
        ({"subset": {"a": 1}}, {"a": 1, "b": 2}, True),
        ({"subset": {"a": 1, "c": 3}}, {"a": 1, "b": 2}, False),
        ({"subset": {"a": {"b": 1}}}, {"a": {"b": 1, "c": 2}}, True),  # nested: a subset too
        ({"subset": {"a": [1, {"b": 2}]}}, {"a": [1, {"b": 2, "c": 3}]}, True),
        ({"subset": {"a": [1]}}, {"a": [1, 2]}, False),  # a list matches item for item
        ({"subset": {"a": 1}}, "text", False),
        ({"json": {"subset": {"task": "x"}}}, '{"task": "x", "n": 1}', True),
        ({"json": {"task": "x"}}, '{"task": "x", "n": 1}', False),  # plain mapping: exact
        ({"json": {"task": "x"}}, "not json", False),
        ({"equals": {"match": "x"}}, {"match": "x"}, True),  # a mapping keyed like a matcher
        ({"contains": "2", "match": "^R-"}, "R-2", True),  # every matcher must hold
        ({"contains": "3", "match": "^R-"}, "R-2", False),
        ({"a": {"match": "x"}}, {"a": {"match": "x"}}, True),  # exact: nothing read inside
        (True, 1, False),  # true is not 1
        ([1, 2], (1, 2), True),
    ],
)
def test_a_matcher_holds_exactly_when_its_rule_says(
    expected: object, actual: object, verdict: bool
) -> None:
    assert value_matches(expected, actual) is verdict


# -- at every place a value is compared -----------------------------------------------------


def test_outputs_handoff_fields_and_event_fields_take_matchers() -> None:
    assert _passes(
        output={"contains": "do"},
        handoffs=[{"tool": {"match": "^delegate_"}, "output": {"contains": "gt"}}],
        trace=[
            {"type": "tool_start", "arguments": {"json": {"subset": {"task": "x"}}}},
            {**ENVELOPE, "output": {"json": {"subset": {"output": "lgtm"}}}},
            {"type": "model_request", "agent": "manager", "tools": {"contains": "delegate_review"}},
        ],
    )


@pytest.mark.parametrize(
    "expect",
    [
        {"output": {"contains": "nope"}},
        {"handoffs": [{"output": {"contains": "nope"}}]},
        {"handoffs": [{"subagent": {"match": "^x"}}]},
        {"trace": [{**ENVELOPE, "output": {"json": {"subset": {"output": "nope"}}}}]},
        {"trace": [{"type": "tool_start", "arguments": {"json": {"subset": {"other": 1}}}}]},
    ],
    ids=["output", "handoff-output", "handoff-subagent", "event-json", "event-arguments"],
)
def test_a_matcher_that_does_not_hold_is_a_mismatch(expect: dict[str, Any]) -> None:
    assert not _passes(**expect)


def _with_step_check(check: dict[str, Any]) -> dict[str, Any]:
    data = delegation()
    data["agents"]["manager"]["model"]["script"][0]["expect"] = check
    return data


@pytest.mark.parametrize(
    ("parameters", "passes"),
    [
        ({"subset": {"properties": {"task": {"type": "string"}}}}, True),
        ({"subset": {"properties": {"task": {"type": "integer"}}}}, False),
        ({"type": "object"}, False),  # a plain mapping compares the whole schema exactly
    ],
)
def test_tool_parameters_of_a_script_step_take_a_subset(
    parameters: dict[str, Any], passes: bool
) -> None:
    data = _with_step_check({"tool_parameters": {"delegate_review": parameters}})
    result = run_scenario(data)
    assert result.passed is passes
    if not passes:
        assert "parameters are" in str(result.error)


def test_a_step_check_on_a_description_takes_contains() -> None:
    data = _with_step_check({"tool_descriptions": {"delegate_review": {"contains": "reviewer"}}})
    assert run_scenario(data).passed


# -- refused at load, with the line and a hint ----------------------------------------------


@pytest.mark.parametrize(
    ("expect", "field", "fragment"),
    [
        ({"output": {"contain": "x"}}, "expect.output.contain", "did you mean 'contains'?"),
        ({"output": {"contains": 3}}, "expect.output.contains", "'contains' takes text"),
        ({"output": {"match": "("}}, "expect.output.match", "invalid regular expression"),
        ({"output": {"subset": {"a": 1}}}, "expect.output.subset", "{json: {subset"),
        ({"output": {}}, "expect.output", "an empty mapping is not a matcher"),
        ({"output": 3}, "expect.output", "must be text or a matcher"),
        (
            {"handoffs": [{"output": {"contains": "x", "extra": 1}}]},
            "expect.handoffs.0.output.extra",
            "write {equals: {...}}",
        ),
        (
            {"trace": [{"type": "tool_end", "output": {"json": {"a": {"match": "x"}}}}]},
            "expect.trace.0.output.json.a",
            "compared exactly",
        ),
        (
            {"trace": [{"type": "handoff_end", "agent": {"x": 1}}]},
            "expect.trace.0.agent.x",
            "a mapping here must be a matcher",
        ),
    ],
)
def test_a_misused_matcher_is_refused_at_load_with_its_field(
    expect: dict[str, Any], field: str, fragment: str
) -> None:
    message = _refusal(delegation(expect=expect))
    assert f": {field}: " in message
    assert fragment in message


@pytest.mark.parametrize(
    ("pattern", "field", "hint"),
    [
        ({"type": "handoff_attempt_end", "outcome": "timout"}, "outcome", "timeout"),
        ({"type": "handoff_end", "status": "complete"}, "status", "completed"),
        ({"type": "handoff_end", "reason": "max-depth"}, "reason", "max_depth"),
        ({"type": "tool_end", "status": "eror"}, "status", "error"),
        ({"type": "handoff_start", "session_mode": "reuse"}, "session_mode", "reuse_session"),
        ({"type": "handof_end"}, "type", "handoff_end"),
    ],
)
def test_e12_an_enum_value_of_an_event_pattern_is_refused_with_did_you_mean(
    pattern: dict[str, Any], field: str, hint: str
) -> None:
    message = _refusal(delegation(expect={"trace": [pattern]}))
    assert f"expect.trace.0.{field}: " in message
    assert f"(did you mean '{hint}'?)" in message


def test_e12_an_enum_of_a_handoff_summary_or_session_is_refused_with_did_you_mean() -> None:
    message = _refusal(
        delegation(expect={"handoffs": [{"status": "denyed"}], "sessions": [{"status": "opn"}]})
    )
    assert "expect.handoffs.0.status: must be one of" in message
    assert "(did you mean 'denied'?)" in message
    assert "(did you mean 'open'?)" in message


def test_e12_an_enum_error_names_the_file_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "typo.yaml"
    path.write_text(
        "scenario: s\nagents:\n  m: {model: {script: [done]}}\nrun: [go]\nexpect:\n"
        "  trace:\n    - {type: handoff_attempt_end, outcome: timout}\n",
        encoding="utf-8",
    )
    with pytest.raises(ScenarioFileError) as caught:
        load_file(path)
    assert str(caught.value).startswith(f"{path}:7:35: expect.trace.0.outcome: unknown outcome")


def test_enum_fields_still_take_null_where_the_event_allows_it_and_matchers() -> None:
    assert _passes(trace=[{"type": "handoff_end", "reason": None, "status": {"match": "^comp"}}])


# -- the JSON Schema agrees with the loader -------------------------------------------------

_VALUES: list[tuple[str, object]] = [
    ("output", {"contains": "x"}),
    ("output", {"contains": 1}),
    ("output", {"contain": "x"}),
    ("output", {"subset": {"a": 1}}),
    ("output", {}),
    ("output", {"match": "x", "contains": "y"}),
    ("output", {"capture": "a", "ref": "a"}),
    ("output", {"capture": "1a"}),
    ("output", ["x"]),
    ("output", None),
    ("output", {"json": {"a": 1}}),
    ("output", {"json": {"a": {"match": "x"}}}),
    ("output", {"json": {"subset": {"a": {"match": "x"}}}}),
    ("output", {"json": {"subset": {"a": {"match": "x", "b": 1}}}}),
    ("output", {"json": {"a": {"b": {"match": "x", "c": 1}}}}),
    ("output", {"json": {"match": "x", "a": 1}}),
    ("output", {"equals": {"match": 1}}),
    ("trace-agent", {"contains": "x"}),
    ("trace-agent", {"x": 1}),
    ("trace-agent", [1, {"match": "x"}]),
    ("trace-agent", [1, {"x": 1}]),
    ("trace-outcome", "timeout"),
    ("trace-outcome", "timout"),
    ("trace-outcome", None),
    ("trace-outcome", {"match": "time"}),
    ("trace-reason", None),
    ("trace-reason", "error"),
    ("trace-risks", ["safe", "destructive"]),
    ("trace-risks", ["safe", "destructve"]),
    ("trace-risks", "safe"),
    ("session-title", {"contains": "x"}),
    ("session-title", 3),
    ("message-tool_calls", [{"subset": {"id": "a"}}]),
    ("message-tool_calls", [{"id": {"match": "a"}}]),
]


def _place(where: str, value: object) -> dict[str, Any]:
    if where == "output":
        return {"output": value}
    if where.startswith("trace-"):
        kind = {"agent": "handoff_end", "outcome": "handoff_attempt_end", "reason": "handoff_end"}
        field = where.removeprefix("trace-")
        return {"trace": [{"type": kind.get(field, "confirmation_request"), field: value}]}
    if where == "session-title":
        return {"sessions": [{"title": value}]}
    return {"sessions": [{"messages": [{"tool_calls": value}]}]}


@pytest.mark.parametrize(
    ("where", "value"), _VALUES, ids=[f"{w}-{i}" for i, (w, _) in enumerate(_VALUES)]
)
def test_a_value_pattern_is_accepted_by_the_schema_exactly_when_the_loader_accepts_it(
    where: str, value: object
) -> None:
    data = delegation(expect=_place(where, value))
    schema = jsonschema.Draft202012Validator(scenario_json_schema())
    try:
        load_dict(data)
        loads = True
    except ScenarioFileError:
        loads = False
    assert (not list(schema.iter_errors(data))) is loads
