"""The JSON Schema of the scenario file format, for editors and ``handoff-sim schema`` (Y1)."""

from __future__ import annotations

from typing import Any

from handoff_sim.scenarios._schema import ScenarioSpec

__all__ = ["scenario_json_schema"]


def scenario_json_schema() -> dict[str, Any]:
    """A JSON Schema (2020-12) accepting one scenario, or several under ``scenarios:``."""
    single = ScenarioSpec.model_json_schema(ref_template="#/$defs/{model}")
    defs: dict[str, Any] = single.pop("$defs", {})
    defs["Scenario"] = single
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
