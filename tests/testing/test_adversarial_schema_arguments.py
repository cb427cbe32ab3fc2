"""AdversarialModel reads each offered tool's JSON Schema: valid, near-valid and broken calls.

Issue 20, item 3: a framework's delegation tools take ``{"input": ...}`` or the user's own
parameters; the adversarial model must call them the way their schema says, as
``SchemaModel`` does, and also nearly so (a field missing, mistyped or extra).
"""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import jsonschema
import pytest

from handoff_sim.messages import Message, ModelRequest, ModelResponse, ToolSpec
from handoff_sim.subagents._definition import DELEGATION_SCHEMA
from handoff_sim.testing import AdversarialModel, Behaviour
from handoff_sim.testing._tool_arguments import EXTRA_FIELD

AS_TOOL = {  # what openai-agents' Agent.as_tool offers
    "type": "object",
    "properties": {"input": {"type": "string"}},
    "required": ["input"],
    "additionalProperties": False,
}
JOKES = {  # what pydantic-ai makes of ``joke_factory(ctx, count: int)``
    "type": "object",
    "properties": {"count": {"type": "integer"}},
    "required": ["count"],
    "additionalProperties": False,
}
ORDER = {
    "type": "object",
    "properties": {
        "sku": {"type": "string", "minLength": 3},
        "quantity": {"type": "integer", "minimum": 1, "maximum": 9},
        "rush": {"type": "boolean"},
        "lines": {"type": "array", "minItems": 2, "items": {"$ref": "#/$defs/Line"}},
    },
    "required": ["sku", "quantity", "lines"],
    "additionalProperties": False,
    "$defs": {"Line": {"type": "object", "properties": {"n": {"type": "number"}}}},
}
SCHEMAS = {"translate": AS_TOOL, "joke_factory": JOKES, "place_order": ORDER, "ping": {}}


def _request(schemas: dict[str, Any], agent: str = "boss") -> ModelRequest:
    tools = tuple(ToolSpec(name, "", schema) for name, schema in schemas.items())
    return ModelRequest(
        agent=agent, model="m", messages=(Message(role="user", content="go"),), tools=tools
    )


def _answer(model: AdversarialModel, request: ModelRequest) -> ModelResponse:
    return asyncio.run(model.complete(request))


@pytest.mark.parametrize("seed", range(8))
def test_valid_calls_call_every_offered_tool_with_arguments_its_schema_accepts(seed: int) -> None:
    response = _answer(AdversarialModel(seed, ["valid_calls"]), _request(SCHEMAS))
    assert [c.name for c in response.tool_calls] == list(SCHEMAS)
    assert len({c.id for c in response.tool_calls}) == len(SCHEMAS)
    for call in response.tool_calls:
        jsonschema.validate(json.loads(call.arguments), SCHEMAS[call.name] or {"type": "object"})


def test_handoff_sims_own_sub_agent_tools_keep_their_task_arguments() -> None:
    """A task-shaped tool still gets ``{"task": "adversarial task <turn>"}``, as before."""
    response = _answer(
        AdversarialModel(3, ["valid_calls"]), _request({"helper": DELEGATION_SCHEMA})
    )
    assert [json.loads(c.arguments) for c in response.tool_calls] == [
        {"task": "adversarial task 1"}
    ]


def test_a_tool_no_value_can_be_made_for_gets_task_arguments_not_an_error() -> None:
    """A schema the generator refuses (a pattern, a bomb) is still called, with ``task``."""
    bomb: dict[str, Any] = {"type": "string"}
    for _ in range(3):
        bomb = {"type": "array", "minItems": 1000, "items": bomb}
    schemas = {
        "coded": {"type": "object", "properties": {"c": {"pattern": "^x$"}}, "required": ["c"]},
        "bomb": {"type": "object", "properties": {"b": bomb}, "required": ["b"]},
    }
    response = _answer(AdversarialModel(0, ["valid_calls"]), _request(schemas))
    assert [json.loads(c.arguments) for c in response.tool_calls] == [
        {"task": "adversarial task 1"}
    ] * 2


def _near_valid_calls(schemas: dict[str, Any], seeds: range) -> list[tuple[str, Any]]:
    calls = []
    for seed in seeds:
        response = _answer(AdversarialModel(seed, ["near_valid_arguments"]), _request(schemas))
        (call,) = response.tool_calls
        calls.append((call.name, json.loads(call.arguments)))
    return calls


def test_near_valid_arguments_break_exactly_one_thing_each_way() -> None:
    """Missing, mistyped and extra fields all occur; each call is one field off valid."""
    seen = set()
    for name, arguments in _near_valid_calls({"place_order": ORDER}, range(40)):
        assert name == "place_order"
        with pytest.raises(jsonschema.ValidationError) as info:
            jsonschema.validate(arguments, ORDER)
        seen.add(info.value.validator)
        wrong = {k for k in ORDER["required"] if k not in arguments} | (
            set(arguments) - set(ORDER["properties"])
        )
        mistyped = [k for k, v in arguments.items() if k in ORDER["properties"] and _bad(k, v)]
        assert len(wrong) + len(mistyped) == 1, arguments
    assert seen == {"required", "type", "additionalProperties"}


def _bad(key: str, value: Any) -> bool:
    try:
        jsonschema.validate(value, {**ORDER["properties"][key], "$defs": ORDER["$defs"]})
    except jsonschema.ValidationError:
        return True
    return False


def test_near_valid_arguments_on_a_tool_without_parameters_add_a_field() -> None:
    calls = _near_valid_calls({"ping": {}}, range(5))
    assert calls == [("ping", {EXTRA_FIELD: "a field the schema does not have"})] * 5


def test_the_extra_field_is_never_one_the_schema_has() -> None:
    schema = {"type": "object", "properties": {EXTRA_FIELD: {"type": "string"}}}
    for _, arguments in _near_valid_calls({"odd": schema}, range(5)):
        assert set(arguments) == {EXTRA_FIELD + "_"}


def test_the_sdks_agent_tool_is_known_as_a_delegation_and_preferred() -> None:
    """Targeted behaviours aim at ``{input}`` tools before plain ones, as at ``subagent_*``."""
    schemas = {"lookup": ORDER, "translate": AS_TOOL}
    for seed in range(10):
        response = _answer(AdversarialModel(seed, ["mixed_text_and_calls"]), _request(schemas))
        assert [c.name for c in response.tool_calls] == ["translate"]


def test_deep_recursion_calls_every_tool_when_none_is_known_as_a_sub_agent_tool() -> None:
    response = _answer(AdversarialModel(0, ["deep_recursion"]), _request({"joke_factory": JOKES}))
    (call,) = response.tool_calls
    assert call.name == "joke_factory"
    jsonschema.validate(json.loads(call.arguments), JOKES)


def test_deep_recursion_with_no_tool_at_all_still_calls_its_own_name() -> None:
    response = _answer(AdversarialModel(0, ["deep_recursion"]), _request({}, agent="boss"))
    assert [c.name for c in response.tool_calls] == ["subagent_boss"]


def test_valid_calls_with_no_tool_offered_answer_with_text() -> None:
    response = _answer(AdversarialModel(0, ["valid_calls"]), _request({}))
    assert (response.tool_calls, response.text) == (
        (),
        "adversarial model: no tool offered to call",
    )


def _transcript(seed: int) -> list[ModelResponse]:
    model = AdversarialModel(seed, ["valid_calls", "near_valid_arguments", "fan_out"], fan_out=3)
    return [_answer(model, _request(SCHEMAS)) for _ in range(30)]


def test_schema_arguments_are_the_same_for_the_same_seed_and_leave_global_random_alone() -> None:
    random.seed(1)
    first = _transcript(5)
    random.seed(2)
    state = random.getstate()
    assert _transcript(5) == first
    assert random.getstate() == state
    assert _transcript(6) != first


def test_every_behaviour_still_answers_a_request_with_schema_tools() -> None:
    """The whole catalogue against framework-shaped tools: no behaviour is lost or raises
    anything but the model failure it is meant to raise."""
    for behaviour in Behaviour:
        if behaviour in (Behaviour.ENDLESS_LATENCY, Behaviour.RAISING):
            continue
        response = _answer(AdversarialModel(0, [behaviour], fan_out=4), _request(SCHEMAS))
        assert isinstance(response, ModelResponse), behaviour
