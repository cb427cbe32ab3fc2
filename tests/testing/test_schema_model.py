"""``SchemaModel``: every offered tool called once with schema-made arguments, then an answer."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Literal

import jsonschema
import pytest
from pydantic import BaseModel

from handoff_sim import Agent, ConfigurationError, HandoffPolicy, Tool, simulate, tool
from handoff_sim.errors import ScriptError
from handoff_sim.events import ToolEndEvent, ToolStartEvent
from handoff_sim.messages import ToolSpec
from handoff_sim.simulation import Simulation
from handoff_sim.styles.flink import FlinkSubAgent
from handoff_sim.styles.sophi import AgentDefinition, sophi_agent
from handoff_sim.testing import SchemaModel, SchemaModelError
from tests.hostile._support import run_hostile

SEEDS = range(6)

SCHEMAS: dict[str, dict[str, Any]] = {
    "required and optional": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
        "required": ["city"],
    },
    "enum and const": {
        "type": "object",
        "properties": {
            "unit": {"enum": ["c", "f", "k"]},
            "version": {"const": 2},
            "mode": {"type": "string", "enum": ["fast", "slow"]},
        },
        "required": ["unit", "version", "mode"],
    },
    "nested objects and arrays": {
        "type": "object",
        "properties": {
            "filter": {
                "type": "object",
                "properties": {
                    "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 10},
                },
                "required": ["tags", "limit"],
                "additionalProperties": False,
            },
            "pair": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "boolean"}]},
        },
        "required": ["filter", "pair"],
    },
    "refs and defs": {
        "type": "object",
        "$defs": {
            "Point": {
                "type": "object",
                "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
                "required": ["x", "y"],
            }
        },
        "properties": {
            "origin": {"$ref": "#/$defs/Point"},
            "path": {"type": "array", "items": {"$ref": "#/$defs/Point"}},
        },
        "required": ["origin", "path"],
    },
    "unions, nullable and allOf": {
        "type": "object",
        "properties": {
            "maybe": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "either": {"oneOf": [{"type": "integer"}, {"type": "array"}]},
            "typed": {"type": ["string", "null"]},
            "both": {
                "allOf": [
                    {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                    {"properties": {"b": {"type": "integer"}}, "required": ["b"]},
                ]
            },
        },
        "required": ["maybe", "either", "typed", "both"],
    },
    "bounds, lengths and formats": {
        "type": "object",
        "properties": {
            "code": {"type": "string", "minLength": 12, "maxLength": 12},
            "short": {"type": "string", "maxLength": 2},
            "when": {"type": "string", "format": "date-time"},
            "mail": {"type": "string", "format": "email"},
            "id": {"type": "string", "format": "uuid"},
            "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
            "count": {"type": "integer", "exclusiveMinimum": 5, "multipleOf": 3},
            "low": {"type": "integer", "maximum": -4},
            "unique": {
                "type": "array",
                "items": {"type": "integer"},
                "minItems": 3,
                "uniqueItems": True,
            },
        },
        "required": ["code", "short", "when", "mail", "id", "ratio", "count", "low", "unique"],
    },
}


def _call(schema: dict[str, Any], seed: int = 0, **options: Any) -> dict[str, Any]:
    arguments = SchemaModel(seed=seed, **options).arguments_for(ToolSpec("t", "", schema))
    value: dict[str, Any] = json.loads(arguments)
    return value


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", list(SCHEMAS))
def test_arguments_are_valid_against_the_tools_schema(name: str, seed: int) -> None:
    schema = SCHEMAS[name]
    jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker()).validate(
        _call(schema, seed)
    )


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", list(SCHEMAS))
def test_arguments_with_optional_fields_filled_are_valid_too(name: str, seed: int) -> None:
    schema = SCHEMAS[name]
    jsonschema.Draft202012Validator(schema).validate(_call(schema, seed, include_optional=True))


def test_only_required_fields_are_filled_unless_asked() -> None:
    schema = SCHEMAS["required and optional"]
    assert _call(schema) == {"city": "city-0"}
    assert _call(schema, include_optional=True) == {"city": "city-0", "days": 0}


def test_the_seed_picks_among_alternatives_and_the_same_seed_gives_the_same_arguments() -> None:
    schema = SCHEMAS["enum and const"]
    assert [_call(schema, seed)["unit"] for seed in range(4)] == ["c", "f", "k", "c"]
    assert _call(schema, 7) == _call(schema, 7)


def test_an_empty_parameters_schema_gives_empty_arguments() -> None:
    assert _call({}) == {}


class _Address(BaseModel):
    street: str
    zip_code: str | None = None


class _Order(BaseModel):
    items: list[int]
    priority: Literal["low", "high"]
    ship_to: _Address


@pytest.mark.parametrize("include_optional", [False, True])
@pytest.mark.parametrize("seed", SEEDS)
def test_a_pydantic_typed_tool_accepts_the_arguments(seed: int, include_optional: bool) -> None:
    @tool
    def place(order: _Order, note: str = "", rush: bool = False) -> str:
        return f"{order.priority}:{len(order.items)}"

    agent = Agent("shop", SchemaModel(seed=seed, include_optional=include_optional), tools=[place])
    result = simulate(agent, "order")
    ends = result.trace.of_type(ToolEndEvent)
    assert [(e.tool, e.status) for e in ends] == [("place", "ok")]


def _unsupported_tool() -> Tool:
    schema = {
        "type": "object",
        "properties": {"sku": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]+$"}},
        "required": ["sku"],
    }
    return Tool("lookup", lambda sku: sku, description="", parameters=schema)


def test_an_unsupported_keyword_is_a_typed_error_naming_agent_tool_and_place() -> None:
    agent = Agent("shop", SchemaModel(), tools=[_unsupported_tool()])
    with pytest.raises(SchemaModelError) as info:
        simulate(agent, "go")
    assert isinstance(info.value, ScriptError)
    assert str(info.value).startswith(
        "agent 'shop': SchemaModel cannot make arguments for tool 'lookup': "
        "at parameters.properties.sku: keyword 'pattern' is not supported; give this tool "
        "fixed arguments with SchemaModel(arguments={'lookup': {...}})"
    )


def test_fixed_arguments_stand_in_for_a_schema_no_value_can_be_made_for() -> None:
    fake = SchemaModel(arguments={"lookup": {"sku": "ABC-1"}})
    result = simulate(Agent("shop", fake, tools=[_unsupported_tool()]), "go")
    assert result.output == '{"lookup": "ABC-1"}'


def test_an_unsupported_keyword_on_an_optional_field_left_out_is_no_problem() -> None:
    schema = {"type": "object", "properties": {"sku": {"type": "string", "pattern": "x"}}}
    assert _call(schema) == {}
    with pytest.raises(SchemaModelError, match=r"keyword 'pattern' is not supported"):
        _call(schema, include_optional=True)


def test_a_required_field_that_recurses_forever_is_refused_an_optional_one_is_not() -> None:
    node = {"type": "object", "properties": {"child": {"$ref": "#"}}, "required": ["child"]}
    with pytest.raises(SchemaModelError, match=r"nests deeper than 16: a required field recurses"):
        _call(node)
    assert _call({**node, "required": []}) == {}


@pytest.mark.parametrize(
    ("schema", "problem"),
    [
        ({"type": "string"}, "its parameters schema describes str, not an object"),
        (
            {"type": "object", "properties": {"a": {"$ref": "#/$defs/Nope"}}, "required": ["a"]},
            "$ref '#/$defs/Nope' points at nothing",
        ),
        (
            {
                "type": "object",
                "properties": {"a": {"$ref": "https://x/y.json"}},
                "required": ["a"],
            },
            "is not local to the schema",
        ),
        (
            {"type": "object", "required": ["a"], "additionalProperties": False},
            "required 'a' has no schema and no others allowed",
        ),
        (
            {
                "type": "object",
                "properties": {"n": {"type": "integer", "minimum": 5, "maximum": 3}},
                "required": ["n"],
            },
            "no number fits its bounds",
        ),
        (
            {"type": "object", "properties": {"n": {"type": "decimal"}}, "required": ["n"]},
            "type 'decimal' is not a JSON Schema type",
        ),
    ],
)
def test_a_schema_no_value_can_be_made_for_says_why(schema: dict[str, Any], problem: str) -> None:
    with pytest.raises(SchemaModelError) as info:
        _call(schema)
    assert "tool 't'" in str(info.value)
    assert problem in str(info.value)


def test_a_union_falls_back_to_an_alternative_a_value_can_be_made_for() -> None:
    schema = {
        "type": "object",
        "properties": {"v": {"anyOf": [{"type": "string", "pattern": "x"}, {"type": "integer"}]}},
        "required": ["v"],
    }
    assert _call(schema) == {"v": 0}


# -- in a run ---------------------------------------------------------------------------


def _slow(name: str) -> Tool:
    async def wait(text: str) -> str:
        await asyncio.sleep(2)
        return name

    text = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
    return Tool(name, wait, description="", parameters=text)


def _tree(model: SchemaModel, **options: Any) -> Agent:
    leaf = Agent("leaf", model, tools=[_slow("dig")], **options)
    lead = Agent(
        "lead",
        model,
        tools=[_slow("note")],
        subagents=[leaf],
        **options,
        handoff_policy=HandoffPolicy(max_depth=2),
    )
    return Agent("root", model, tools=[_slow("plan")], subagents=[lead], **options)


def test_each_agent_calls_every_offered_tool_once_in_offered_order_then_answers() -> None:
    result = simulate(_tree(SchemaModel()), "go")
    calls = [(e.agent, e.tool) for e in result.trace.of_type(ToolStartEvent)]
    assert calls == [
        ("root", "plan"),
        ("root", "subagent_lead"),
        ("lead", "note"),
        ("lead", "subagent_leaf"),
        ("leaf", "dig"),
    ]
    assert [(h.subagent, h.depth, h.status) for h in result.trace.handoffs()] == [
        ("lead", 1, "completed"),
        ("leaf", 2, "completed"),
    ]
    assert json.loads(result.output or "")["plan"] == "plan"


def test_calls_of_a_turn_run_one_after_another_or_together_as_the_agent_says() -> None:
    sequential = simulate(_tree(SchemaModel()), "go")
    parallel = simulate(_tree(SchemaModel(), parallel_tool_calls=True), "go")
    assert sequential.elapsed_ms == 6000  # plan, note, dig: 2 s each, in turn
    assert parallel.elapsed_ms == 2000  # every level's calls overlap


def test_max_depth_stops_calling_tools_at_that_handoff_depth() -> None:
    result = simulate(_tree(SchemaModel(max_depth=1)), "go")
    calls = [(e.agent, e.tool) for e in result.trace.of_type(ToolStartEvent)]
    assert calls == [("root", "plan"), ("root", "subagent_lead")]
    assert result.trace.handoffs()[0].output == "success (no tool calls)"


def test_the_same_seed_gives_the_same_trace() -> None:
    first = simulate(_tree(SchemaModel(seed=3)), "go", seed=1)
    again = simulate(_tree(SchemaModel(seed=3)), "go", seed=1)
    assert first.trace.render() == again.trace.render()


def test_call_tools_text_and_latency_options() -> None:
    fake = SchemaModel(call_tools=["note", "dig"], text="all done", latency="500ms")
    result = simulate(_tree(fake), "go")
    assert [e.tool for e in result.trace.of_type(ToolStartEvent)] == []
    assert result.output == "all done"
    assert result.elapsed_ms == 500
    assert [r.agent for r in fake.requests] == ["root"]


def test_a_sophi_tree_terminates_at_its_delegation_depth() -> None:
    researcher = AgentDefinition(
        name="researcher",
        description="facts",
        system_prompt="Find.",
        allowed_tools=("delegate_to_subagent",),
    )
    fake = SchemaModel(
        arguments={"delegate_to_subagent": {"subagent_type": "researcher", "prompt": "dig"}}
    )
    root = sophi_agent("main", fake, definitions=[researcher], max_delegation_depth=3)
    outcome = run_hostile(root)
    ends = [(h.depth, h.status, h.reason) for h in outcome.trace.handoffs()]
    assert ends == [
        (1, "completed", None),
        (2, "completed", None),
        (3, "completed", None),
        (4, "denied", "max_depth"),
    ]


def test_a_sophi_dispatcher_call_with_made_up_type_is_refused_and_ends() -> None:
    defs = [AgentDefinition(name="researcher", description="facts", system_prompt="Find.")]
    outcome = run_hostile(sophi_agent("main", SchemaModel(), definitions=defs))
    assert [(h.status, h.reason) for h in outcome.trace.handoffs()] == [("denied", "not_allowed")]


def test_a_flink_subagent_gets_arguments_made_from_its_input_type() -> None:
    child = Agent("checker", SchemaModel())
    root = Agent(
        "root", SchemaModel(), subagents=[FlinkSubAgent("checker", agent=child, input_type=_Order)]
    )
    result = simulate(root, "go")
    (handoff,) = result.trace.handoffs()
    assert handoff.status == "completed"
    _Order.model_validate_json(child.model.requests[0].messages[-1].content or "")  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"seed": -1}, "seed must be an int >= 0"),
        ({"call_tools": "search"}, "call_tools must be 'all' or a list of tool names"),
        ({"arguments": {"t": "x=1"}}, r"arguments\['t'\] must be an object of arguments"),
        ({"max_depth": True}, "max_depth must be an int >= 0"),
        ({"text": 3}, "text must be a str or None"),
        ({"latency": "soon"}, "SchemaModel latency"),
        ({"include_optional": "yes"}, "include_optional must be True or False"),
    ],
)
def test_wrong_options_are_configuration_errors(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        SchemaModel(**options)


def test_one_instance_serves_concurrent_runs_without_state_between_requests() -> None:
    fake = SchemaModel()
    agent = Agent("solo", fake, tools=[_slow("plan")])

    async def two() -> list[str | None]:
        runs = await asyncio.gather(agent.arun("a"), agent.arun("b"))
        return [r.output for r in runs]

    with Simulation() as sim:
        assert sim.run_coroutine(two()) == ['{"plan": "plan"}'] * 2
