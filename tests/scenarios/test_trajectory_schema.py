"""expect.trajectory, fake-tool tables, tool_runs bounds and stubs in the file format: the
JSON Schema accepts exactly what the loader accepts, and the loader's refusals say where
(file:line:col, the field path) and what was meant."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from handoff_sim.scenarios import ScenarioFileError, load_dict, load_text, scenario_json_schema
from handoff_sim.scenarios._build import model_kind_problems

from ._util import delegation


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(scenario_json_schema())


def _loads(data: dict[str, Any]) -> bool:
    try:
        load_dict(data)
    except ScenarioFileError:
        return False
    return True


def _trajectory(value: object) -> dict[str, Any]:
    return delegation(expect={"trajectory": value})


def _tool(spec: object, runs: object = None) -> dict[str, Any]:
    data = delegation(tools={"sql": spec})
    data["agents"]["manager"]["tools"] = ["sql"]
    if runs is not None:
        data["expect"] = {"tool_runs": {"sql": runs}}
    return data


def _stub(model: object) -> dict[str, Any]:
    data = delegation()
    data["agents"]["reviewer"]["model"] = model
    return data


TRAJECTORIES: list[object] = (
    [
        {"calls": ["sql"]},
        {"calls": []},
        [{"calls": ["sql"]}, {"mode": "superset", "calls": [{"tool": "x"}]}],
        *(
            {"mode": m, "calls": ["sql"]}
            for m in ("exact", "subsequence", "per_branch", "unordered", "superset", "subset")
        ),
        {"mode": "strict", "calls": ["sql"]},
        {"mode": None, "calls": ["sql"]},
    ]
    + [
        {"args_mode": m, "calls": ["sql"]}
        for m in ("exact", "ignore", "subset", "superset", "fuzzy")
    ]
    + [
        {"calls": ["sql"], "tool_args_modes": {"sql": "ignore"}},
        {"calls": ["sql"], "tool_args_modes": {"sql": "loose"}},
        {"calls": [{"tool": "sql", "count": 2}]},
        {"calls": [{"tool": "sql", "count": -1}]},
        {"calls": [{"tool": "sql", "count": 2, "min": 1}]},
        {"calls": [{"tool": "sql", "min": 1, "max": 3}]},
        {"calls": [{"tool": "sql", "max": 0}]},
        {"calls": [{"tool": "sql", "count": 1.5}]},
        {"calls": [{"tool": {"match": "^s"}}]},
        {"calls": [{"tool": {"subset": {"a": 1}}}]},
        {"calls": [{"tool": 3}]},
        {"calls": [{"tool": "sql", "args": {"q": {"contains": "x"}}}]},
        {"calls": [{"tool": "sql", "args": {"q": {"contain": "x"}}}]},
        {"calls": [{"tool": "sql", "args": {"q": {"nested": {"match": "x"}}}}]},
        {"calls": [{"tool": "sql", "args": {"subset": {"q": 1}}}]},
        {"calls": [{"tool": "sql", "args": {"match": "x", "q": 1}}]},
        {"calls": [{"tool": "sql", "args": [1, 2]}]},
        {"calls": [{"tool": "sql", "args": "raw"}]},
        {"calls": [{"tool": "sql", "args_mode": "subset"}]},
        {"calls": [{"tool": "sql", "args_mode": "partial"}]},
        {"calls": [{"tool": "sql", "agent": "reviewer"}]},
        {"calls": [{"tol": "sql"}]},
        {"calls": [""]},
        {"calls": [3]},
        {"calls": "sql"},
        {"mode": "exact"},
        {"calls": ["sql"], "scope": {"agent": "reviewer"}},
        {"calls": ["sql"], "scope": {"agent": {"match": "^rev"}}},
        {"calls": ["sql"], "scope": {"handoff": "delegate_review"}},
        {"calls": ["sql"], "scope": {"depth": 1}},
        {"calls": ["sql"], "scope": {"depth": -1}},
        {"calls": ["sql"], "scope": {"branch": ["manager", "reviewer"]}},
        {"calls": ["sql"], "scope": {"branch": []}},
        {"calls": ["sql"], "scope": {"branch": "manager"}},
        {"calls": ["sql"], "scope": {"agnet": "x"}},
        {"calls": ["sql"], "scope": {}},
        {"calls": ["sql"], "scope": None},
        "sql",
    ]
)


@pytest.mark.parametrize("value", TRAJECTORIES, ids=repr)
def test_a_trajectory_is_accepted_by_the_schema_exactly_when_the_loader_accepts_it(
    value: object, validator: jsonschema.Draft202012Validator
) -> None:
    data = _trajectory(value)
    assert (list(validator.iter_errors(data)) == []) == _loads(data)


TABLES: list[object] = [
    {"answers": [{"arguments": {"q": 1}, "returns": "a"}]},
    {"answers": [{"arguments": {"subset": {"q": {"contains": "x"}}}, "returns": "a"}]},
    {"answers": [{"arguments": {"subset": {"q": 1}, "q": 2}, "returns": "a"}]},
    {"answers": [{"arguments": {"q": {"match": "x"}}, "returns": "a"}]},
    {"answers": [{"arguments": '{"q": 1}', "returns": "a"}]},
    {"answers": [{"returns": "a", "raises": "b"}]},
    {"answers": [{"timeout": True}]},
    {"answers": [{"timeout": True, "returns": "x"}]},
    {"answers": [{"rate_limit": True}, {"rate_limit": "slow"}]},
    {"answers": [{"rate_limit": {"message": "slow", "retry_after": "2s"}}]},
    {"answers": [{"rate_limit": {"retry_after": "soon"}}]},
    {"answers": [{"malformed": True}, {"malformed": "<html>"}]},
    {"answers": [{"malformed": 3}]},
    {"answers": [{"raises": {"type": "ValueError", "message": "x"}}]},
    {"answers": [{"raises": {"type": "SystemExit"}}]},
    {"answers": [{"retruns": "a"}]},
    {"sequence": [None, {"timeout": True}, {"returns": 1, "latency": "1s"}]},
    {"sequence": [{"latency": "forever"}]},
    {"sequence": ["text"]},
    {"default": {"returns": "ok"}},
    {"default": "ok"},
    {"sequence": [None], "returns": "x"},
    {"default": {"returns": "ok"}, "latency": "1s"},
    {"answers": [], "raises": "boom"},
    {"returns": "x", "latency": "1s"},
]


@pytest.mark.parametrize("spec", TABLES, ids=repr)
def test_a_fake_tool_table_is_accepted_by_the_schema_exactly_when_the_loader_accepts_it(
    spec: object, validator: jsonschema.Draft202012Validator
) -> None:
    data = _tool(spec)
    assert (list(validator.iter_errors(data)) == []) == _loads(data)


RUNS: list[object] = [
    2, -1, {"min": 1}, {"max": 2}, {"min": 1, "max": 2}, {"count": 2}, {"count": 2, "max": 3},
    {"count": 1, "arguments": {"subset": {"q": 1}}}, {"arguments": {"q": {"match": "x"}}},
    {"arguments": {"contain": "x"}}, {"mni": 1}, {"min": -1}, {},
]  # fmt: skip


@pytest.mark.parametrize("runs", RUNS, ids=repr)
def test_a_tool_runs_bound_is_accepted_by_the_schema_exactly_when_the_loader_accepts_it(
    runs: object, validator: jsonschema.Draft202012Validator
) -> None:
    data = _tool({"returns": "x"}, runs)
    assert (list(validator.iter_errors(data)) == []) == _loads(data)


STUBS: list[object] = [
    {"kind": "stub"},
    {"kind": "stub", "default": "ok"},
    {"kind": "stub", "answers": [{"arguments": {"subset": {"task": "x"}}, "returns": "a"}]},
    {"kind": "stub", "sequence": [None, {"raises": "down"}]},
    {"kind": "stub", "answer": []},
    {"kind": "stub", "answers": "x"},
]


def _validates(data: dict[str, Any]) -> bool:
    """What ``handoff-sim validate`` says: it loads, and every model kind is built."""
    try:
        loaded = load_dict(data)
    except ScenarioFileError:
        return False
    return model_kind_problems(loaded, lambda scenario: []) == []


@pytest.mark.parametrize("model", STUBS, ids=repr)
def test_a_stub_model_is_accepted_by_the_schema_exactly_when_validate_accepts_it(
    model: object, validator: jsonschema.Draft202012Validator
) -> None:
    data = _stub(model)
    assert (list(validator.iter_errors(data)) == []) == _validates(data)


BAD = """\
scenario: bad
tools:
  sql:
    sequence: [null, {timeout: true, returns: x}]
agents:
  main:
    tools: [sql]
    model: {script: [done]}
run: [go]
expect:
  trajectory:
    mode: unorderd
    scope: {agent: mian}
    calls:
      - {tool: sql, args_mdoe: subset}
      - {tool: {contain: sql}}
  tool_runs:
    sql: {count: 1, max: 2}
"""


def _problems(text: str) -> list[str]:
    with pytest.raises(ScenarioFileError) as raised:
        load_text(text, "bad.yaml")
    return [f"{p.line}:{p.column}: {p.field}: {p.message}" for p in raised.value.problems]


def test_every_problem_of_the_new_keys_is_reported_at_its_line_with_a_hint() -> None:
    found = _problems(BAD)
    assert found == [
        "4:22: tools.sql.sequence.1: give one of 'returns', 'raises', 'timeout', "
        "'rate_limit' or 'malformed', not 'returns' and 'timeout'",
        "12:5: expect.trajectory.mode: must be one of 'exact', 'subsequence', 'per_branch', "
        "'unordered', 'superset' or 'subset' (did you mean 'unordered'?)",
        "15:21: expect.trajectory.calls.0.args_mdoe: unknown field 'args_mdoe' "
        "(did you mean 'args_mode'?)",
        "18:5: expect.tool_runs.sql: give either 'count' or 'min'/'max', not both",
    ]


def test_patterns_are_checked_once_the_shape_is_right() -> None:
    text = (
        BAD.replace(", returns: x", "")
        .replace("unorderd", "unordered")
        .replace("args_mdoe", "args_mode")
        .replace("count: 1, max: 2", "count: 1")
    )
    # names are not checked against the file: a recorded trace's agents are not in it
    assert _problems(text) == [
        "16:17: expect.trajectory.calls.1.tool.contain: unknown matcher 'contain' "
        "(did you mean 'contains'?); a mapping here must be a matcher",
    ]


def test_a_stub_with_a_wrong_outcome_is_refused_at_its_kind_by_validate() -> None:
    data = _stub({"kind": "stub", "answers": [{"retruns": "x"}]})
    (problem,) = model_kind_problems(load_dict(data), lambda scenario: [])
    assert problem.field == "agents.reviewer.model.kind"
    assert problem.message == (
        "model kind 'stub': ConfigurationError: answers.0.retruns: unknown key; known: "
        "returns, raises, timeout, rate_limit, malformed, latency"
    )
