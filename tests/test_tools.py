"""R2 tools and ``@tool``; R3 model output that names unknown tools or bad arguments."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic import BaseModel

from handoff_sim import (
    Agent,
    ReservedPrefixError,
    Tool,
    ToolCall,
    UnknownToolError,
    simulate,
    tool,
)
from handoff_sim._tools import ToolSetExecutor
from handoff_sim.testing import ScriptedModel
from tests._helpers import call, tool_results, turn


@tool
def add(a: int, b: int = 2) -> int:
    """Add two numbers.

    The second paragraph is not part of the description.
    """
    return a + b


@tool(name="fetch_weather", description="Weather for a city")
async def weather(city: str) -> dict[str, Any]:
    await asyncio.sleep(1)
    return {"city": city, "sky": "clear"}


def _agent(*tools: Tool, calls: list[dict[str, Any]]) -> Agent:
    return Agent(
        name="agent",
        model=ScriptedModel([turn(*calls), {"text": "done"}]),
        tools=tools,
    )


def _results(agent: Agent) -> list[tuple[str, bool]]:
    result = simulate(agent, "go")
    assert result.output == "done"
    return [(m.content, m.is_error) for m in tool_results(result.messages)]


def test_r2_tool_decorator_derives_the_schema_from_type_hints() -> None:
    assert add.name == "add"
    assert add.description == "Add two numbers."
    assert add.parameters == {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer", "default": 2}},
        "required": ["a"],
    }


def test_r2_tool_decorator_takes_name_and_description() -> None:
    assert (weather.name, weather.description) == ("fetch_weather", "Weather for a city")
    assert weather.parameters["required"] == ["city"]


def test_r2_tool_schema_from_a_pydantic_type() -> None:
    class Query(BaseModel):
        text: str
        limit: int = 5

    search = Tool("search", lambda text, limit: f"{text}:{limit}", arguments_model=Query)
    assert search.parameters["required"] == ["text"]
    assert _results(_agent(search, calls=[call("search", {"text": "q"})])) == [("q:5", False)]


def test_r2_sync_and_async_tools_both_run() -> None:
    agent = _agent(
        add, weather, calls=[call("add", {"a": 1}), call("fetch_weather", {"city": "Oslo"})]
    )
    assert _results(agent) == [("3", False), ('{"city": "Oslo", "sky": "clear"}', False)]


def test_r2_string_results_pass_through_unchanged() -> None:
    echo = Tool("echo", lambda text: text, parameters={"type": "object", "properties": {}})
    assert _results(_agent(echo, calls=[call("echo", {"text": "  raw  "})])) == [("  raw  ", False)]


def test_r2_a_raising_tool_becomes_an_error_result_and_the_run_goes_on() -> None:
    def explode() -> str:
        raise KeyError("missing-key")

    agent = _agent(Tool("explode", explode), calls=[call("explode")])
    assert _results(agent) == [("Error: KeyError: 'missing-key'", True)]


def test_r2_a_raising_async_tool_reports_type_and_message() -> None:
    async def fail() -> str:
        await asyncio.sleep(0.5)
        raise RuntimeError("  disk full ")

    assert _results(_agent(Tool("fail", fail), calls=[call("fail")])) == [
        ("Error: RuntimeError: disk full", True)
    ]


def test_r2_an_error_without_message_shows_the_type() -> None:
    def fail() -> str:
        raise ValueError

    assert _results(_agent(Tool("fail", fail), calls=[call("fail")])) == [
        ("Error: ValueError", True)
    ]


def test_r2_tool_spec_is_what_the_model_is_offered() -> None:
    agent = _agent(add, calls=[call("add", {"a": 1})])
    simulate(agent, "go")
    assert isinstance(agent.model, ScriptedModel)
    [spec] = agent.model.requests[0].tools
    assert (spec.name, spec.description, spec.parameters) == (
        "add",
        add.description,
        add.parameters,
    )


def test_r3_unknown_tool_gets_an_error_result_naming_it() -> None:
    assert _results(_agent(add, calls=[call("no_such_tool")])) == [
        ("Error: Tool 'no_such_tool' not found", True)
    ]


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ({"a": "one"}, "a: Input should be a valid integer"),
        ({}, "a: Field required"),
        ({"a": 1, "b": [2]}, "b: Input should be a valid integer"),
    ],
)
def test_r3_arguments_that_do_not_fit_the_schema_get_an_error_naming_the_problem(
    arguments: dict[str, Any], problem: str
) -> None:
    [(content, is_error)] = _results(_agent(add, calls=[call("add", arguments)]))
    assert is_error
    assert "invalid arguments for tool 'add'" in content
    assert problem in content


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ({}, "missing required argument 'city'"),
        ({"city": 3}, "argument 'city' must be of type string"),
        ({"city": "Oslo", "extra": 1}, "unexpected argument 'extra'"),
    ],
)
def test_r3_explicit_json_schema_is_checked_too(arguments: dict[str, Any], problem: str) -> None:
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "additionalProperties": False,
    }
    lookup = Tool("lookup", lambda city: city, parameters=schema)
    [(content, is_error)] = _results(_agent(lookup, calls=[call("lookup", arguments)]))
    assert is_error
    assert problem in content


@pytest.mark.parametrize("raw", ["{not json", "[1, 2]", "true", '"a"'])
def test_r3_malformed_arguments_get_an_error_result(raw: str) -> None:
    assert _results(_agent(add, calls=[call("add", raw)])) == [
        ("add arguments must be a JSON object", True)
    ]


def test_r3_nothing_crashes_on_a_turn_full_of_bad_calls() -> None:
    calls = [
        call("ghost"),
        call("add", "]]"),
        call("add", {"a": "x"}),
        call("add", {"a": 40}),
    ]
    results = _results(_agent(add, calls=calls))
    assert [is_error for _, is_error in results] == [True, True, True, False]
    assert results[-1][0] == "42"


def test_f1_plain_tool_with_the_reserved_prefix_is_refused() -> None:
    with pytest.raises(ReservedPrefixError) as info:
        Agent(name="a", model=ScriptedModel([]), tools=[Tool("subagent_helper", lambda: "")])
    assert str(info.value) == (
        "Tool name 'subagent_helper' must not start with the reserved prefix 'subagent_', "
        "which identifies sub-agent callables"
    )


def test_tool_set_executor_raises_unknown_tool_error_for_names_it_does_not_serve() -> None:
    executor = ToolSetExecutor([add])
    with pytest.raises(UnknownToolError) as info:
        asyncio.run(executor.execute(ToolCall("c1", "other", "{}")))
    assert isinstance(info.value, LookupError)
    assert info.value.name == "other"


def test_tool_set_executor_runs_a_served_tool() -> None:
    executor = ToolSetExecutor([add])
    assert asyncio.run(executor.execute(ToolCall("c1", "add", '{"a": 5}'))) == "7"
