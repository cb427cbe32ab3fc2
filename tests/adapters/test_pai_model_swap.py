"""``override_models`` on pydantic-ai graphs: the agents a graph's tool functions run, by name."""

# no "from __future__ import annotations": pydantic-ai reads the tool functions' annotations,
# whose RunContext is imported inside the function that defines them
from typing import Any

import pytest

from handoff_sim import ConfigurationError, HandoffPolicy
from handoff_sim.testing import ScriptedModel, override_models
from tests.adapters._extras import installed, needs

if not installed("pydantic_ai"):
    pytest.skip(needs("pydantic-ai"), allow_module_level=True)


def graph() -> Any:
    """A selector delegating three ways: our governed(), governed_tool on its own function,
    and a plain docs-style tool function that runs an agent from its closure."""
    from pydantic_ai import Agent, RunContext

    from handoff_sim.adapters.pydantic_ai import governed, governed_tool

    researcher = Agent("test", name="researcher")
    writer = Agent("test", name="writer")
    checker = Agent("test", name="checker")
    selector = Agent("test", name="selector", tools=[governed(researcher, policy=HandoffPolicy())])

    @selector.tool
    @governed_tool(policy=HandoffPolicy())
    async def write(ctx: RunContext[None], notes: str) -> str:
        return (await writer.run(notes, usage=ctx.usage)).output

    @selector.tool
    async def check(ctx: RunContext[None], text: str) -> str:
        return (await checker.run(text, usage=ctx.usage)).output

    return selector, researcher, writer, checker


def test_override_models_finds_every_agent_a_pydantic_ai_graph_delegates_to() -> None:
    from handoff_sim.adapters.pydantic_ai import simulate_run

    selector, *_ = graph()
    ask = {
        "tool_calls": [
            {"name": "subagent_researcher", "arguments": {"task": "facts?"}},
            {"name": "write", "arguments": {"notes": "n"}},
            {"name": "check", "arguments": {"text": "t"}},
        ]
    }
    fakes = {
        "selector": ScriptedModel([ask, "done"]),
        "researcher": ScriptedModel(["facts"]),
        "writer": ScriptedModel(["prose"]),
        "checker": ScriptedModel(["ok"]),
    }
    with override_models(selector, fakes) as tree:
        assert tree.names == ["checker", "researcher", "selector", "writer"]
        run = simulate_run(lambda: selector.run("go"))
    assert run.final_output == "done"
    for fake in fakes.values():
        fake.assert_complete()  # every agent ran on its fake


def test_override_models_on_a_pydantic_ai_graph_names_the_known_agents() -> None:
    swap = override_models(graph()[0], {"editor": ScriptedModel(["x"])})
    with pytest.raises(
        ConfigurationError, match=r"no agent named 'editor' in the pydantic-ai graph"
    ):
        swap.__enter__()
