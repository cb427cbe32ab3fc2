"""``model: {kind: schema}`` in scenario files: the schema-driven fake, built in."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from handoff_sim.cli import main
from handoff_sim.scenarios import run_scenario
from handoff_sim.scenarios._schema import scenario_json_schema

TREE = """\
scenario: schema-kind
tools:
  lookup:
    returns: "got {arguments}"
    parameters: {type: object, properties: {q: {enum: [a, b]}}, required: [q]}
agents:
  boss:
    tools: [lookup]
    subagents: [helper]
    model: {kind: schema, seed: 1}
  helper:
    model: {kind: schema, text: helped, latency: 2s}
run: [go]
expect:
  elapsed: 2s  # the helper answers at once: one model call of 2s
  handoffs:
    - {tool: subagent_helper, subagent: helper, status: completed, output: helped}
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "tree.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_tree_of_schema_models_runs_without_a_script(tmp_path: Path) -> None:
    result = run_scenario(_write(tmp_path, TREE))
    assert result.passed, result.mismatches
    answer = json.loads(result.outputs[-1] or "")
    assert answer["lookup"] == 'got {"q":"b"}'  # seed 1 picks the second enum value
    assert json.loads(answer["subagent_helper"])["output"] == "helped"


def test_a_wrong_option_is_reported_at_the_models_line_by_validate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = "{kind: schema, sed: 1, max_depth: -1}"
    path = _write(tmp_path, f"scenario: s\nagents:\n  bot:\n    model: {model}\nrun: [go]\n")
    assert main(["validate", str(path)]) == 2
    assert capsys.readouterr().err == (
        f"{path}:4:13: agents.bot.model.kind: model kind 'schema': max_depth: Input should be "
        "greater than or equal to 0; sed: Extra inputs are not permitted\n"
    )


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(scenario_json_schema())


def _with_model(model: dict[str, Any]) -> dict[str, Any]:
    return {"scenario": "s", "agents": {"bot": {"model": model}}, "run": ["go"]}


@pytest.mark.parametrize(
    "model",
    [
        {"kind": "schema"},
        {"kind": "schema", "seed": 3, "latency": "250ms", "call_tools": ["a"], "max_depth": 1},
        {"kind": "schema", "arguments": {"t": {"q": [1, {"x": None}]}}, "include_optional": True},
        {"kind": "a-plugin-kind", "anything": 1},
    ],
)
def test_the_json_schema_accepts_the_schema_kind_and_leaves_plugin_kinds_open(
    model: dict[str, Any], validator: jsonschema.Draft202012Validator
) -> None:
    assert list(validator.iter_errors(_with_model(model))) == []


@pytest.mark.parametrize(
    "model",
    [
        {"kind": "schema", "sed": 1},
        {"kind": "schema", "seed": -1},
        {"kind": "schema", "call_tools": "some"},
        {"kind": "schema", "latency": "soon"},
        {"kind": "schema", "arguments": {"t": "q=1"}},
    ],
)
def test_the_json_schema_refuses_what_the_schema_kind_refuses(
    model: dict[str, Any], validator: jsonschema.Draft202012Validator
) -> None:
    assert list(validator.iter_errors(_with_model(model))) != []
