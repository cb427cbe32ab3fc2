"""Issue 19, item 6: schema bombs end the schema-driven fake at once, with the place named.

Each bomb would have run for hours (10^9 or 10^12 values), filled memory (10^8
characters) or raised a bare ``OverflowError`` before the budget of one argument set
(``MAX_SCHEMA_VALUES`` values, ``MAX_SCHEMA_CHARS`` characters). The same bombs as
scenario files are in ``files/schema_bombs.yaml``, which the whole corpus also runs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from handoff_sim import Agent, Tool
from handoff_sim._limits import MAX_SCHEMA_CHARS, MAX_SCHEMA_VALUES
from handoff_sim.cli import main
from handoff_sim.events import ToolStartEvent
from handoff_sim.messages import ToolSpec
from handoff_sim.testing import SchemaModel, SchemaModelError
from tests.hostile._support import run_hostile

FILE = Path(__file__).parent / "files" / "schema_bombs.yaml"


def _required(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties)}


def _arrays(items: int, levels: int) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        node = {"type": "array", "minItems": items, "items": node}
    return _required(rows=node)


def _ref_fan_out(width: int, levels: int) -> dict[str, Any]:
    """``levels`` definitions of ``width`` required fields each, all ``$ref`` to the next."""
    defs: dict[str, Any] = {f"d{levels}": {"type": "string"}}
    for level in range(levels):
        fields = {f"f{i}": {"$ref": f"#/$defs/d{level + 1}"} for i in range(width)}
        defs[f"d{level}"] = _required(**fields)
    return {**_required(root={"$ref": "#/$defs/d0"}), "$defs": defs}


def _long_strings(count: int, length: int) -> dict[str, Any]:
    return _required(**{f"s{i}": {"type": "string", "minLength": length} for i in range(count)})


def _alternatives(count: int) -> dict[str, Any]:
    """``anyOf`` whose every member spends 9,000 values before it fails."""
    member = {
        **_required(
            a={"type": "array", "minItems": 100, "items": {"type": "array", "minItems": 89}}
        ),
        "minProperties": 2,
    }
    return _required(v={"anyOf": [member] * count})


def _all_of(count: int) -> dict[str, Any]:
    members = [_required(**{f"k{i}": {"type": "string"}}) for i in range(count)]
    return _required(v={"allOf": members})


def _cyclic_const() -> dict[str, Any]:
    value: list[Any] = []
    value.append(value)
    return _required(v={"const": value})


def _run(schema: dict[str, Any], name: str = "bomb") -> str:
    tool = Tool(name, lambda **kwargs: "ran", description="", parameters=schema)
    outcome = run_hostile(Agent("main", SchemaModel(), tools=[tool]), expect=SchemaModelError)
    assert outcome.trace.of_type(ToolStartEvent) == []  # refused before any call is made
    return str(outcome.error)


BOMBS: dict[str, tuple[dict[str, Any], str]] = {
    # 10^9 strings: hours of work and gigabytes before
    "arrays-1000-three-deep": (
        _arrays(1000, 3),
        "at parameters.properties.rows.items.items: keyword 'minItems' asks for 1,000 items, "
        f"more than the 975 values left of the {MAX_SCHEMA_VALUES:,} one argument set may take",
    ),
    # 10^12 strings from a 7 KB schema
    "ref-fan-out": (
        _ref_fan_out(10, 12),
        f"the arguments would take more than the {MAX_SCHEMA_VALUES:,} values one argument set "
        "may take",
    ),
    # 10^8 characters: a MemoryError before
    "thousand-strings-of-100000": (
        _long_strings(1000, 100_000),
        "at parameters.properties.s9: keyword 'minLength' asks for 100,000 characters, more "
        f"than the 99,980 left of the {MAX_SCHEMA_CHARS:,} one argument set may take",
    ),
    "alternatives-each-spend-the-budget": (
        _alternatives(1000),
        "at parameters.properties.v.anyOf[2].properties.a.items: keyword 'minItems' asks for 89",
    ),
    "all-of-5000-members": (_all_of(5000), "at parameters.properties.v.allOf["),
    "const-that-contains-itself": (_cyclic_const(), "at parameters.properties.v: the arguments"),
}


@pytest.mark.parametrize("bomb", list(BOMBS))
def test_a_schema_bomb_is_a_schema_model_error_naming_the_place(bomb: str) -> None:
    schema, place = BOMBS[bomb]
    message = _run(schema)
    assert message.startswith("agent 'main': SchemaModel cannot make arguments for tool 'bomb': ")
    assert place in message


INF, NAN = float("inf"), float("nan")
NUMBERS: list[tuple[dict[str, Any], str]] = [
    ({"type": "integer", "minimum": INF}, "keyword 'minimum' must be a finite number"),
    ({"type": "number", "maximum": -INF}, "keyword 'maximum' must be a finite number"),
    ({"type": "number", "maximum": NAN}, "got nan"),
    ({"type": "number", "exclusiveMinimum": float("1e400")}, "'exclusiveMinimum' must be"),
    ({"type": "integer", "minimum": 10**400}, "got <an integer of ~"),
    ({"type": "number", "minimum": "5"}, "keyword 'minimum' must be a number, got '5'"),
    (
        {"type": "integer", "exclusiveMinimum": 10, "maximum": 3},
        "no number fits its bounds (exclusiveMinimum 10, maximum 3)",
    ),
    ({"type": "number", "exclusiveMaximum": 1, "minimum": 1}, "no number fits its bounds"),
    ({"type": "number", "multipleOf": 0}, "keyword 'multipleOf' must be > 0, got 0"),
    ({"type": "integer", "multipleOf": -2}, "keyword 'multipleOf' must be > 0, got -2"),
    ({"type": "number", "multipleOf": NAN}, "keyword 'multipleOf' must be a finite number"),
    (
        {"type": "number", "minimum": 1e300, "multipleOf": 1e-300},
        "keyword 'multipleOf' 1e-300 has no multiple near 1e+300",
    ),
    ({"type": "string", "maxLength": INF}, "'maxLength' must be a non-negative integer, got inf"),
    ({"type": "array", "minItems": NAN}, "'minItems' must be a non-negative integer, got nan"),
    ({"type": "array", "minItems": -1}, "'minItems' must be a non-negative integer, got -1"),
    ({"type": "array", "maxItems": 2.5}, "'maxItems' must be a non-negative integer, got 2.5"),
    ({"const": NAN}, "the value nan given is not a JSON number"),
    ({"enum": [10**5000]}, "is not a JSON number"),
]


def _id(node: dict[str, Any]) -> str:
    return ",".join(f"{k}={v if k == 'type' else type(v).__name__}" for k, v in node.items())


@pytest.mark.parametrize(
    ("node", "problem"), NUMBERS, ids=[f"{i}-{_id(n)}" for i, (n, _) in enumerate(NUMBERS)]
)
def test_a_non_finite_or_contradictory_number_is_refused_by_name_not_overflow(
    node: dict[str, Any], problem: str
) -> None:
    message = _run(_required(n=node), name="count")
    assert "tool 'count': at parameters.properties.n: " in message
    assert problem in message


def test_the_budget_is_per_argument_set_so_large_honest_schemas_still_work() -> None:
    """1,000 objects of five fields (about 16,000 values) for two tools in one turn."""
    item = _required(**{f"f{i}": {"type": "string"} for i in range(5)})
    schema = _required(orders={"type": "array", "minItems": 1000, "items": item})
    tools = [Tool(n, lambda **kwargs: "ok", description="", parameters=schema) for n in "ab"]
    outcome = run_hostile(Agent("main", SchemaModel(), tools=tools))
    starts = outcome.trace.of_type(ToolStartEvent)
    assert [e.tool for e in starts] == ["a", "b"]  # type: ignore[attr-defined]
    for start in starts:
        arguments = json.loads(start.arguments)  # type: ignore[attr-defined]
        jsonschema.validate(arguments, schema)
        assert len(arguments["orders"]) == 1000


def test_strings_up_to_the_character_budget_are_made() -> None:
    schema = _long_strings(9, 100_000)  # 900,000 characters and the names: under 1,000,000
    arguments = json.loads(SchemaModel().arguments_for(ToolSpec("t", "", schema)))
    assert [len(v) for v in arguments.values()] == [100_000] * 9


def test_the_bomb_file_passes_every_scenario(capsys: pytest.CaptureFixture[str]) -> None:
    """Each scenario of the file expects its SchemaModelError and the place it names."""
    assert main(["run", str(FILE)]) == 0
    out = capsys.readouterr().out
    assert "== 13 passed, 0 failed, 0 error(s) ==" in out
