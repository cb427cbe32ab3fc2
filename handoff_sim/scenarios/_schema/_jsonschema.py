"""The JSON Schema of the scenario file format, for editors and ``handoff-sim schema``."""

from __future__ import annotations

import copy
from typing import Any

from handoff_sim.scenarios._schema._expect import EVENT_JSON_DEFS
from handoff_sim.scenarios._schema._scenario import ScenarioSpec
from handoff_sim.scenarios._schema._types import DEF_KEY, JSON_DEFS

__all__ = ["scenario_json_schema"]


def scenario_json_schema() -> dict[str, Any]:
    """A JSON Schema (2020-12) accepting one scenario, or several under ``scenarios:``."""
    single = ScenarioSpec.model_json_schema(ref_template="#/$defs/{model}")
    defs: dict[str, Any] = single.pop("$defs", {})
    shared = {**JSON_DEFS, **EVENT_JSON_DEFS}
    assert not set(shared) & set(defs), "a field type's name is taken by a model"
    defs.update(copy.deepcopy(shared))
    defs["Scenario"] = single
    _add_built_in_kinds(defs)
    _link(defs)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://handoff-sim.dev/schemas/scenario.json",
        "title": "handoff-sim scenario file",
        "description": "One scenario, or several under 'scenarios:'. See docs/scenarios.md.",
        "anyOf": [
            {"$ref": "#/$defs/Scenario"},
            {
                "type": "object",
                "properties": {
                    "scenarios": {
                        "type": "array",
                        "items": {"$ref": "#/$defs/Scenario"},
                        "minItems": 1,
                    }
                },
                "required": ["scenarios"],
                "additionalProperties": False,
            },
        ],
        "$defs": defs,
    }


def _add_built_in_kinds(defs: dict[str, Any]) -> None:
    """``kind: schema`` (the schema-driven fake) and ``kind: stub`` (a stub answering from a
    table) are built in: their options are checked too."""
    from handoff_sim.testing._schema_model import SchemaModelSpec
    from handoff_sim.testing._stub import StubModelSpec

    rules = []
    for spec in (SchemaModelSpec, StubModelSpec):
        options = spec.model_json_schema(ref_template="#/$defs/{model}")
        for name, definition in options.pop("$defs", {}).items():
            assert defs.setdefault(name, definition) == definition, f"two definitions of {name}"
        if "latency" in options["properties"]:
            options["properties"]["latency"] = {DEF_KEY: "Duration"}
        defs[spec.__name__] = options
        rules.append(
            {
                "if": {"properties": {"kind": {"const": spec.KIND}}, "required": ["kind"]},
                "then": {"$ref": f"#/$defs/{spec.__name__}"},
            }
        )
    defs["CustomModelSpec"]["allOf"] = rules


def _link(node: Any) -> None:
    """Turn each mark of a shared field type into a ``$ref`` to its definition, in place."""
    if isinstance(node, dict):
        if DEF_KEY in node:
            node["$ref"] = f"#/$defs/{node.pop(DEF_KEY)}"
        for value in node.values():
            _link(value)
    elif isinstance(node, list):
        for value in node:
            _link(value)
