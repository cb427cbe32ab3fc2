"""Y1, Y3: the scenario schema — strict types, shorthands, durations, JSON Schema export."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from handoff_sim.cli import main
from handoff_sim.scenarios import ScenarioSpec, scenario_json_schema

from ._util import delegation


def _spec(**overrides: Any) -> ScenarioSpec:
    return ScenarioSpec.model_validate(delegation(**overrides))


def test_top_agent_is_first_agent_unless_entry_given() -> None:
    assert _spec().entry_agent == "manager"
    assert _spec(entry="reviewer").entry_agent == "reviewer"


@pytest.mark.parametrize(
    ("raw", "seconds"), [(2, 2.0), (0.5, 0.5), ("250ms", 0.25), ("2s", 2.0), ("1m", 60.0)]
)
def test_durations_accept_seconds_and_unit_strings(raw: object, seconds: float) -> None:
    """Y3: numbers are seconds; strings like 250ms, 2s, 1m carry a unit."""
    data = delegation()
    data["agents"]["manager"]["policy"] = {"timeout": raw}
    data["tools"] = {"t": {"latency": raw}}
    spec = ScenarioSpec.model_validate(data)
    policy = spec.agents["manager"].policy
    assert policy is not None
    assert policy.timeout == seconds
    assert spec.tools["t"].latency == seconds


def test_types_are_strict_no_silent_coercion() -> None:
    data = delegation()
    data["agents"]["manager"]["policy"] = {"max_depth": "2"}
    with pytest.raises(ValidationError):
        ScenarioSpec.model_validate(data)


def test_shorthands_for_turns_steps_and_subagents() -> None:
    spec = _spec(
        run=["hello", {"input": "again"}],
        agents={
            "m": {"model": {"script": ["plain text"]}, "subagents": ["w"]},
            "w": {"model": {"script": ["ok"]}},
        },
    )
    assert [t.input for t in spec.turns()] == ["hello", "again"]
    assert spec.agents["m"].mounts()[0].agent == "w"


def test_custom_model_kind_is_accepted_with_its_own_keys() -> None:
    spec = _spec(agents={"m": {"model": {"kind": "replay", "file": "x.jsonl"}}})
    model = spec.agents["m"].model
    assert model.model_dump() == {"kind": "replay", "file": "x.jsonl"}


def test_matrix_variant_ids_follow_name_rules() -> None:
    with pytest.raises(ValidationError):
        _spec(matrix=[{"id": "has space"}])


def test_json_schema_accepts_single_and_list_forms() -> None:
    """Y1: the exported JSON Schema describes both file shapes and every top-level key."""
    schema = scenario_json_schema()
    assert schema["$schema"].startswith("https://json-schema.org/")
    single = schema["$defs"]["Scenario"]
    assert set(single["properties"]) == {
        "scenario", "description", "tags", "seed", "entry", "agents", "tools", "agent_types",
        "agent_types_dir", "run", "expect", "matrix",
    }  # fmt: skip
    assert single["additionalProperties"] is False
    refs = [alt.get("$ref") for alt in schema["anyOf"]]
    assert "#/$defs/Scenario" in refs
    listed = next(alt for alt in schema["anyOf"] if "properties" in alt)
    assert listed["required"] == ["scenarios"]


def test_json_schema_resolves_every_reference() -> None:
    schema = scenario_json_schema()
    text = json.dumps(schema)
    for name in schema["$defs"]:
        assert f'"#/$defs/{name}"' in text or name == "Scenario"
    for ref in {part.split('"')[0] for part in text.split('"$ref": "#/$defs/')[1:]}:
        assert ref in schema["$defs"], ref


def test_json_schema_documents_durations_and_event_patterns() -> None:
    text = json.dumps(scenario_json_schema())
    assert "250ms" in text
    assert '"const": "handoff_end"' in text


def test_schema_command_prints_the_same_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    assert json.loads(capsys.readouterr().out) == scenario_json_schema()
