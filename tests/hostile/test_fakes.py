"""Hostile cases for the schema-driven fake and model swaps: odd schemas, interrupts, sizes."""

from __future__ import annotations

from typing import Any

import pytest

from handoff_sim import Agent, SubAgent, Tool
from handoff_sim.events import ToolStartEvent
from handoff_sim.testing import SchemaModel, SchemaModelError, ScriptedModel, override_models
from tests.hostile._support import run_hostile


def _tool(name: str, parameters: dict[str, Any]) -> Tool:
    return Tool(name, lambda **kwargs: "ran", description="", parameters=parameters)


def _nested(levels: int) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        node = {"type": "object", "properties": {"n": node}, "required": ["n"]}
    return node


def test_a_schema_nested_thousands_deep_is_a_typed_error_not_a_recursion_error() -> None:
    agent = Agent("main", SchemaModel(), tools=[_tool("deep", _nested(5000))])
    outcome = run_hostile(agent, expect=SchemaModelError)
    assert "tool 'deep'" in str(outcome.error)
    assert "schemas nest deeper than 64" in str(outcome.error)


def test_a_schema_that_contains_itself_is_a_typed_error() -> None:
    schema: dict[str, Any] = {"type": "object", "required": ["me"]}
    schema["properties"] = {"me": schema}  # a cycle of Python objects, not a $ref
    agent = Agent("main", SchemaModel(), tools=[_tool("loop", schema)])
    outcome = run_hostile(agent, expect=SchemaModelError)
    assert "tool 'loop'" in str(outcome.error)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"a": False}, "required": ["a"]},
        {"type": "object", "properties": {"a": {"enum": "abc", "type": 3}}, "required": ["a"]},
        {
            "type": "object",
            "properties": {"a": {"type": "array", "minItems": "ten"}},
            "required": ["a"],
        },
        {"type": "object", "properties": {"a": {"anyOf": {"type": "string"}}}, "required": ["a"]},
        {"type": "object", "properties": {"a": {"allOf": [1, 2]}}, "required": ["a"]},
    ],
    ids=["false-schema", "wrong-types", "text-bound", "anyOf-not-a-list", "allOf-of-numbers"],
)
def test_a_malformed_schema_ends_the_run_with_a_typed_error(schema: dict[str, Any]) -> None:
    agent = Agent("main", SchemaModel(), tools=[_tool("odd", schema)])
    outcome = run_hostile(agent, expect=SchemaModelError)
    assert "agent 'main'" in str(outcome.error)
    assert "tool 'odd'" in str(outcome.error)


def test_five_hundred_tools_are_each_called_once() -> None:
    tools = [_tool(f"t{i}", {"type": "object"}) for i in range(500)]
    outcome = run_hostile(Agent("main", SchemaModel(), tools=tools))
    assert [e.tool for e in outcome.trace.of_type(ToolStartEvent)] == [t.name for t in tools]


def test_an_interrupt_inside_an_override_still_restores_the_model() -> None:
    own = ScriptedModel([])
    agent = Agent("main", own)
    with pytest.raises(KeyboardInterrupt), agent.override(model=SchemaModel()):
        raise KeyboardInterrupt
    assert agent.model is own


def test_override_models_skips_a_mount_whose_agent_is_not_one_of_ours() -> None:
    worker = Agent("worker", ScriptedModel([]))
    root = Agent("root", ScriptedModel([]), subagents=[SubAgent("worker", "w", worker)])
    root.executor.mounts["subagent_worker"].agent = object()  # type: ignore[assignment]
    with override_models(root, {"*": SchemaModel()}) as tree:
        assert tree.names == ["root"]
