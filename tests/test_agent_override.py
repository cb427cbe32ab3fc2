"""``Agent.override(model=...)`` and ``override_models``: swap models in a built tree."""

from __future__ import annotations

import asyncio

import pytest

from handoff_sim import Agent, ConfigurationError, HandoffPolicy, SubAgent, simulate
from handoff_sim.simulation import Simulation
from handoff_sim.styles.flink import FlinkSubAgent
from handoff_sim.styles.sophi import AgentDefinition, sophi_agent
from handoff_sim.testing import SchemaModel, ScriptedModel, override_models
from tests._helpers import delegate, turn


def _tree() -> tuple[Agent, Agent, Agent]:
    """root -> lead -> leaf, each on a script that would fail if it were asked."""
    leaf = Agent("leaf", ScriptedModel([]))
    lead = Agent(
        "lead", ScriptedModel([]), subagents=[leaf], handoff_policy=HandoffPolicy(max_depth=2)
    )
    root = Agent("root", ScriptedModel([]), subagents=[lead])
    return root, lead, leaf


def test_override_swaps_the_model_inside_the_block_only() -> None:
    own = ScriptedModel(["own"])
    agent = Agent("bot", own)
    with agent.override(model=ScriptedModel(["swapped"])):
        assert simulate(agent, "go").output == "swapped"
    assert agent.model is own
    assert simulate(agent, "go").output == "own"


def test_override_is_undone_when_the_block_raises() -> None:
    own = ScriptedModel([])
    agent = Agent("bot", own)
    with pytest.raises(KeyError), agent.override(model=ScriptedModel(["x"])):
        raise KeyError("boom")
    assert agent.model is own


def test_nested_overrides_stack_and_unwind_in_order() -> None:
    own, outer, inner = ScriptedModel([]), ScriptedModel([]), ScriptedModel([])
    agent = Agent("bot", own)
    with agent.override(model=outer):
        with agent.override(model=inner):
            assert agent.model is inner
        assert agent.model is outer
    assert agent.model is own


def test_override_reports_the_new_models_name_unless_one_was_given() -> None:
    named = Agent("named", ScriptedModel([]), model_name="gpt-test")
    plain = Agent("plain", ScriptedModel([]))
    with named.override(model=SchemaModel()), plain.override(model=SchemaModel()):
        assert (named.model_name, plain.model_name) == ("gpt-test", "schema")
    assert plain.model_name == "scripted"


def test_override_changes_only_that_agent_not_its_subagents() -> None:
    root, lead, leaf = _tree()
    before = (lead.model, leaf.model)
    with root.override(model=ScriptedModel([turn(delegate("subagent_lead")), "done"])):
        assert (lead.model, leaf.model) == before


def test_override_refuses_something_that_is_not_a_model_client() -> None:
    agent = Agent("bot", ScriptedModel([]))
    with (
        pytest.raises(ConfigurationError, match=r"agent 'bot': model must be a model client"),
        agent.override(model="gpt-4"),  # type: ignore[arg-type]
    ):
        pass


def test_override_does_not_reach_a_run_another_task_started_before_it() -> None:
    own = ScriptedModel([{"text": "own", "latency": "1s"}])
    agent = Agent("bot", own)

    async def both() -> tuple[str | None, str | None]:
        earlier = asyncio.ensure_future(agent.arun("first"))  # not started yet
        with agent.override(model=ScriptedModel(["swapped"])):
            swapped = await agent.arun("second")
        return (await earlier).output, swapped.output

    with Simulation() as sim:
        assert sim.run_coroutine(both()) == ("own", "swapped")


def test_override_holds_in_a_task_started_inside_the_block_after_it_ends() -> None:
    agent = Agent("bot", ScriptedModel([]))
    swapped = ScriptedModel([{"text": "swapped", "latency": "1s"}])

    async def later() -> str | None:
        with agent.override(model=swapped):
            task = asyncio.ensure_future(agent.arun("go"))
        return (await task).output  # the task copied the context that had the swap

    with Simulation() as sim:
        assert sim.run_coroutine(later()) == "swapped"


def test_override_applies_to_the_real_time_entry_point_too() -> None:
    agent = Agent("bot", ScriptedModel([]))
    with agent.override(model=ScriptedModel(["real"])):
        assert agent.run("go").output == "real"


# -- override_models: a whole tree by name ------------------------------------------------


def test_override_models_swaps_named_agents_and_star_for_the_rest() -> None:
    root, lead, leaf = _tree()
    before = (root.model, lead.model, leaf.model)
    scripted = ScriptedModel(["leaf answer"])
    with override_models(root, {"leaf": scripted, "*": SchemaModel()}) as tree:
        result = simulate(root, "go")
    assert sorted(tree.agents) == ["lead", "leaf", "root"]
    assert [(h.subagent, h.status) for h in result.trace.handoffs()] == [
        ("lead", "completed"),
        ("leaf", "completed"),
    ]
    assert scripted.remaining == 0
    assert (root.model, lead.model, leaf.model) == before


def test_override_models_names_the_unknown_agent_and_the_known_ones() -> None:
    root, _, _ = _tree()
    with (
        pytest.raises(ConfigurationError) as info,
        override_models(root, {"reseacher": SchemaModel()}),
    ):
        pass
    assert str(info.value) == (
        "override_models: no agent named 'reseacher' in the tree of 'root'; "
        "known agents: lead, leaf, root (or '*' for every other agent)"
    )


def test_override_models_refuses_a_value_that_is_not_a_model() -> None:
    root, _, _ = _tree()
    with (
        pytest.raises(ConfigurationError, match=r"the model for 'lead' must be a model client"),
        override_models(root, {"lead": None}),  # type: ignore[dict-item]
    ):
        pass


def test_override_models_leaves_unnamed_agents_alone_without_a_star() -> None:
    root, lead, leaf = _tree()
    before = (root.model, leaf.model)
    fake = SchemaModel()
    with override_models(root, {"lead": fake}):
        assert lead.model is fake
        assert (root.model, leaf.model) == before


def test_override_models_reaches_subagent_wrappers_and_flink_mounts() -> None:
    flink_child = Agent("checker", ScriptedModel([]))
    plain_child = Agent("writer", ScriptedModel([]))
    root = Agent(
        "root",
        ScriptedModel([]),
        subagents=[
            SubAgent("writer", "writes", plain_child, tool_name="write"),
            FlinkSubAgent(
                "checker",
                agent=flink_child,
                input_schema={"type": "object", "properties": {"q": {"type": "string"}}},
            ),
        ],
    )
    with override_models(root, {"*": SchemaModel()}):
        result = simulate(root, "go")
    assert sorted((h.tool, h.status) for h in result.trace.handoffs()) == [
        ("subagent_checker", "completed"),
        ("write", "completed"),
    ]


def test_override_models_reaches_the_agent_types_a_sophi_dispatcher_builds() -> None:
    typed = ScriptedModel(["research done"])
    root = sophi_agent(
        "main",
        ScriptedModel([]),
        definitions=[
            AgentDefinition(name="researcher", description="facts", system_prompt="Find."),
            AgentDefinition(name="coder", description="code", system_prompt="Code."),
        ],
    )
    fake = SchemaModel(
        arguments={"delegate_to_subagent": {"subagent_type": "researcher", "prompt": "look"}}
    )
    with override_models(root, {"researcher": typed, "*": fake}) as tree:
        result = simulate(root, "go")
    assert tree.names == ["coder", "main", "researcher"]
    assert [(h.subagent, h.status) for h in result.trace.handoffs()] == [
        ("researcher", "completed")
    ]
    assert typed.remaining == 0


def test_override_models_does_not_touch_a_same_named_agent_of_another_tree() -> None:
    root, _, _ = _tree()
    other = Agent("leaf", ScriptedModel(["untouched"]))
    with override_models(root, {"*": SchemaModel()}):
        assert simulate(other, "go").output == "untouched"
