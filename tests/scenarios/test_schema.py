"""Y1, Y3: the scenario schema — strict types, shorthands, durations, JSON Schema export.

Issue 9, item 15: the JSON Schema accepts exactly what the loader accepts.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from pydantic import ValidationError

from handoff_sim import strategies
from handoff_sim.cli import main
from handoff_sim.scenarios import (
    ScenarioFileError,
    ScenarioSpec,
    load_dict,
    load_file,
    scenario_json_schema,
)

from ._util import BUNDLED, REPO, delegation


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
        "scenario", "description", "tags", "seed", "clock", "entry", "agents", "tools",
        "agent_types", "agent_types_dir", "run", "expect", "matrix",
        "session_store", "recorded",
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


# -- the schema accepts exactly what the loader accepts -------------------------------------

MALFORMED = sorted((Path(__file__).parent / "malformed").glob("*.yaml"))
BUNDLED_FILES = sorted(BUNDLED.rglob("*.y*ml"))
EXAMPLES = [REPO / "README.md", BUNDLED / "README.md"]

# Malformed files the loader refuses for a reason no JSON Schema of one document can state.
NOT_A_SCHEMA_REASON = {
    "agent_type_redefined": "files on disk: a definition file already defines the type",
    "agent_type_without_description": "files on disk: no definition file defines the type",
    "agent_types_dir_bad_file": "files on disk: a definition file is malformed",
    "agent_types_dir_missing": "files on disk: the directory does not exist",
    "agent_types_dir_skip_valid_file": "files on disk: a file listed as invalid is valid",
    "dispatcher_approve_undefined_tool": "reference: the approved tool is not defined",
    "dispatcher_undefined_type": "reference: the agent type is not defined",
    "duplicate_key": "YAML: a key written twice (parsed, the document keeps only one)",
    "duplicate_scenario_names": "uniqueness of a field across list items",
    "entry_undefined": "reference: the entry agent is not defined",
    "expect_bad_regex": "Python regular-expression syntax",
    "expect_capture_twice": "captured values: a name captured twice",
    "expect_ref_before_capture": "captured values: the order expectations are checked in",
    "expect_tool_runs_undefined": "reference: the tool is not defined",
    "matrix_duplicate_id": "uniqueness of a field across list items",
    "matrix_undefined_agent": "reference: the agent is not defined",
    "matrix_unset_also_given": "reference: the same key is set by the variant",
    "matrix_unset_not_set": "reference: the scenario does not set the key",
    "real_clock_latency_too_long": "a bound that depends on another key (clock: real)",
    "subagent_cycle": "references: a cycle of sub-agents",
    "subagent_self_cycle": "references: a cycle of sub-agents",
    "subagent_undefined_agent": "reference: the agent is not defined",
    "subagent_undefined_shorthand": "reference: the agent is not defined",
    "tool_undefined": "reference: the tool is not defined",
    "turn_session_ref_uncaptured": "captured values: no earlier turn captures the session",
    "yaml_bad_indentation": "YAML syntax: there is no document to check",
    "yaml_unclosed_flow": "YAML syntax: there is no document to check",
}


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    schema = scenario_json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _schema_errors(validator: jsonschema.Draft202012Validator, data: object) -> list[str]:
    return [
        f"{'.'.join(map(str, e.absolute_path)) or '<root>'}: {e.message[:200]}"
        for e in validator.iter_errors(data)
    ]


def _loads(data: dict[str, Any]) -> bool:
    try:
        load_dict(data)
    except ScenarioFileError:
        return False
    return True


@pytest.mark.parametrize("path", BUNDLED_FILES, ids=[p.stem for p in BUNDLED_FILES])
def test_y1_every_bundled_scenario_file_is_valid_against_the_schema(
    path: Path, validator: jsonschema.Draft202012Validator
) -> None:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert _schema_errors(validator, data) == []


def test_y1_the_readme_examples_are_valid_against_the_schema(
    validator: jsonschema.Draft202012Validator,
) -> None:
    blocks = [
        yaml.safe_load(block)
        for doc in EXAMPLES
        for block in re.findall(r"```yaml\n(.*?)```", doc.read_text(encoding="utf-8"), re.S)
    ]
    scenarios = [b for b in blocks if isinstance(b, dict) and "scenario" in b]
    assert len(scenarios) >= 2
    for data in scenarios:
        assert _schema_errors(validator, data) == [], data["scenario"]


@pytest.mark.parametrize("path", MALFORMED, ids=[p.stem for p in MALFORMED])
def test_y1_a_file_refused_for_its_shape_is_refused_by_the_schema_too(
    path: Path, validator: jsonschema.Draft202012Validator
) -> None:
    with pytest.raises(ScenarioFileError):
        load_file(path)
    reason = NOT_A_SCHEMA_REASON.get(path.stem)
    if reason is not None and reason.startswith("YAML syntax"):
        with pytest.raises(yaml.YAMLError):
            yaml.safe_load(path.read_text(encoding="utf-8"))
        return
    errors = _schema_errors(validator, yaml.safe_load(path.read_text(encoding="utf-8")))
    if reason is None:
        assert errors, "the loader refuses this file's shape; the schema must refuse it too"
    else:  # the list stays exact: a file the schema refuses does not belong on it
        assert errors == [], f"listed as '{reason}', yet the schema refuses it"


def test_y1_files_listed_as_not_schema_refusals_exist() -> None:
    assert set(NOT_A_SCHEMA_REASON) <= {p.stem for p in MALFORMED}


_FIELDS = {
    "expect.elapsed": lambda d, v: d.setdefault("expect", {}).update(elapsed=v),
    "expect.handoffs.0.duration": lambda d, v: d.setdefault("expect", {}).update(
        handoffs=[{"duration": v}]
    ),
    "latency": lambda d, v: d["agents"]["manager"]["model"]["script"][1].update(latency=v),
    "tools.t.latency": lambda d, v: d.update(tools={"t": {"latency": v}}),
    "policy.timeout": lambda d, v: d["agents"]["manager"].update(policy={"timeout": v}),
}
# NaN is left out: JSON cannot write it (and the loader refuses it)
_VALUES = [
    0, 2, 0.5, "250ms", "2s", "1m", "1h", "90", " 3 s ", ".5s", "0ms", "0",
    31622400, "8784h", 31622401, "8785h", 10**400, "2 fortnights", "1e3s", "", "-1s",
    -1, True, None, [], {"s": 1}, "２s", "1,5s", "1.s", "527040m", "527041m", "08784h",
    "8784.0h", "8784.01h", "31622400000ms", "31622400001ms", "31622400000000us",
    "31622400000001us", ".000001us", "0.0h", float("inf"),
]  # fmt: skip


@pytest.mark.parametrize("field", sorted(_FIELDS))
@pytest.mark.parametrize("value", _VALUES, ids=[repr(v)[:20] for v in _VALUES])
def test_y3_a_duration_is_accepted_by_the_schema_exactly_when_the_loader_accepts_it(
    field: str, value: object, validator: jsonschema.Draft202012Validator
) -> None:
    data = delegation()
    _FIELDS[field](data, value)
    assert (_schema_errors(validator, data) == []) == _loads(data)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("max_retries", 100),
        ("max_retries", 101),
        ("max_steps", 10_000),
        ("max_steps", 10_001),
        ("max_steps", 0),
        ("tags", ["xfail"]),
        ("tags", ["XFail"]),
        ("tags", ["_private"]),
        ("tags", ["timeouts", "skip_me"]),
        ("run", ["go"] * 10_001),
        ("seed", 10**30),
    ],
)
def test_y1_bounds_and_reserved_tags_are_in_the_schema_too(
    field: str, value: object, validator: jsonschema.Draft202012Validator
) -> None:
    data = delegation()
    if field in ("max_retries",):
        data["agents"]["manager"]["policy"] = {field: value}
    elif field == "max_steps":
        data["agents"]["manager"][field] = value
    else:
        data[field] = value
    assert (_schema_errors(validator, data) == []) == _loads(data)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strategies.scenarios(collisions=False))
@pytest.mark.slow
def test_y1_every_generated_scenario_the_loader_accepts_the_schema_accepts(
    validator: jsonschema.Draft202012Validator, data: dict[str, Any]
) -> None:
    assert _loads(data)
    assert _schema_errors(validator, json.loads(json.dumps(data))) == []


_PATTERN_VALUES = [
    ("t", "90s"), ("t", 90), ("t", 31622401), ("t", {"match": "^9"}), ("t", {"x": 1}),
    ("t", "soon"), ("t", True), ("t", None), ("t", [1]),
    ("duration_ms", 250), ("duration_ms", "250ms"), ("duration_ms", -1),
    ("duration_ms", 31622400001), ("duration_ms", {"match": "^2"}), ("duration_ms", None),
    ("agent", "reviewer"), ("agent", None), ("agent", 3), ("agent", {"match": "rev"}),
    ("agent", {"match": 1}), ("agent", {"other": "x"}),
]  # fmt: skip


@pytest.mark.parametrize(("field", "value"), _PATTERN_VALUES)
def test_y2_an_event_pattern_field_is_accepted_by_the_schema_exactly_when_the_loader_accepts_it(
    field: str, value: object, validator: jsonschema.Draft202012Validator
) -> None:
    data = delegation(expect={"trace": [{"type": "handoff_end", field: value}]})
    assert (_schema_errors(validator, data) == []) == _loads(data)
