"""SoPhi style, the dispatcher: K1 (one tool, agent types), K2 (least privilege), K3 (depth)."""

from __future__ import annotations

from typing import Any

import pytest

from handoff_sim import Agent, ConfigurationError, ModelRequest, simulate, tool
from handoff_sim.styles.sophi import SubagentDispatcher, ToolRegistry, sophi_agent
from handoff_sim.styles.sophi._arguments import DELEGATION_PARAMETERS
from handoff_sim.testing import FunctionModel, ScriptedModel
from tests.styles._support import Counter, call, counting_tool, definition, delegation, turn

EXPLORE = definition("explore", "read_file", description="Read-only search")
PLAN = definition("plan", description="Plans work")
RECURSIVE = definition("recursive", "delegate_to_subagent", description="Delegates further")


def tool_message(result: Any, call_id: str) -> Any:
    (message,) = [m for m in result.messages if m.role == "tool" and m.tool_call_id == call_id]
    return message


def top(steps: list[Any], dispatcher: SubagentDispatcher) -> Agent:
    return Agent("main", ScriptedModel(steps), subagents=[dispatcher])


# K1 ---------------------------------------------------------------------------------------


def test_k1_the_dispatcher_is_one_tool_named_delegate_to_subagent() -> None:
    dispatcher = SubagentDispatcher([EXPLORE], model=ScriptedModel([]))
    assert dispatcher.spec.name == "delegate_to_subagent"
    assert dispatcher.spec.parameters == DELEGATION_PARAMETERS
    assert DELEGATION_PARAMETERS["required"] == ["subagent_type", "prompt"]
    assert set(DELEGATION_PARAMETERS["properties"]) == {"subagent_type", "prompt", "expected_tools"}


def test_k1_description_lists_the_agent_types() -> None:
    dispatcher = SubagentDispatcher([EXPLORE, PLAN], model=ScriptedModel([]))
    assert dispatcher.spec.description == (
        "Delegate a task to a subagent. Available agent types:\n"
        "- explore: Read-only search\n"
        "- plan: Plans work"
    )


def test_k1_description_without_agent_types() -> None:
    assert SubagentDispatcher([]).spec.description == (
        "Delegate a task to a subagent. No agent types are currently configured."
    )


def test_k1_unknown_type_is_refused_without_a_model_call() -> None:
    sub_model = ScriptedModel([])
    dispatcher = SubagentDispatcher([EXPLORE, PLAN], model=sub_model)
    result = simulate(top([turn(delegation("ghost", id="d1")), "ok"], dispatcher), "go")

    assert tool_message(result, "d1").content == (
        "Error: unknown subagent type 'ghost'. Available: explore, plan"
    )
    assert tool_message(result, "d1").is_error
    assert sub_model.requests == []
    (record,) = result.trace.handoffs()
    assert (record.status, record.reason, record.attempts, record.subagent) == (
        "denied",
        "not_allowed",
        0,
        "ghost",
    )
    assert result.trace.unbalanced() == []


def test_k1_unknown_type_with_no_definitions_lists_nothing() -> None:
    result = simulate(top([turn(delegation("ghost", id="d1")), "ok"], SubagentDispatcher([])), "go")
    assert tool_message(result, "d1").content == (
        "Error: unknown subagent type 'ghost'. Available: "
    )


def test_k1_delegation_returns_the_subagents_final_answer_exactly() -> None:
    dispatcher = SubagentDispatcher([EXPLORE], model=ScriptedModel(["Found it in Auth.kt"]))
    result = simulate(
        top([turn(delegation("explore", "find auth code", id="d1")), "ok"], dispatcher), "go"
    )
    assert tool_message(result, "d1").content == "Found it in Auth.kt"
    (record,) = result.trace.handoffs()
    assert (record.tool, record.subagent, record.status, record.depth) == (
        "delegate_to_subagent",
        "explore",
        "completed",
        1,
    )


def test_k1_the_subagent_gets_its_prompt_system_prompt_and_model_name() -> None:
    sub_model = ScriptedModel(["done"])
    typed = definition("explore", model="claude-opus-4-1")
    dispatcher = SubagentDispatcher([typed], model=sub_model)
    simulate(top([turn(delegation("explore", "find auth code")), "ok"], dispatcher), "go")
    request = sub_model.requests[0]
    assert [(m.role, m.content) for m in request.messages] == [
        ("system", "You are explore."),
        ("user", "find auth code"),
    ]
    assert (request.agent, request.model) == ("explore", "claude-opus-4-1")


def test_k1_each_type_may_have_its_own_model_client() -> None:
    plan_model = ScriptedModel(["planned"])
    dispatcher = SubagentDispatcher(
        [EXPLORE, PLAN], model=ScriptedModel(["explored"]), models={"plan": plan_model}
    )
    result = simulate(top([turn(delegation("plan", id="d1")), "ok"], dispatcher), "go")
    assert tool_message(result, "d1").content == "planned"


def test_k1_a_type_without_a_model_client_is_a_construction_error() -> None:
    with pytest.raises(ConfigurationError, match=r"no model client for agent type\(s\) \['plan'\]"):
        SubagentDispatcher([EXPLORE, PLAN], models={"explore": ScriptedModel([])})


def test_k1_duplicate_agent_type_names_are_a_construction_error() -> None:
    with pytest.raises(ConfigurationError, match="duplicate agent definition name: explore"):
        SubagentDispatcher([EXPLORE, EXPLORE], model=ScriptedModel([]))


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ({"prompt": "x"}, "'subagent_type' is required and must be a non-blank string"),
        ({"subagent_type": "explore"}, "'prompt' is required and must be a string"),
        (
            {"subagent_type": "explore", "prompt": "x", "expected_tools": "read_file"},
            "'expected_tools' must be a list of tool names",
        ),
    ],
)
def test_k1_malformed_arguments_are_refused_without_a_model_call(
    arguments: dict[str, Any], problem: str
) -> None:
    sub_model = ScriptedModel([])
    dispatcher = SubagentDispatcher([EXPLORE], model=sub_model)
    steps = [turn(call("delegate_to_subagent", arguments, "d1")), "ok"]
    result = simulate(top(steps, dispatcher), "go")
    assert tool_message(result, "d1").content == (
        f"Error: invalid delegate_to_subagent arguments: {problem}"
    )
    assert sub_model.requests == []
    assert result.trace.handoffs()[0].status == "denied"


def test_k1_a_plain_tool_may_not_take_the_dispatcher_name() -> None:
    clash = tool(lambda: "x", name="delegate_to_subagent")
    with pytest.raises(ConfigurationError, match="the dispatcher owns that name"):
        SubagentDispatcher([EXPLORE], model=ScriptedModel([]), registry=[clash])


# K2 ---------------------------------------------------------------------------------------


def test_k2_subagent_is_offered_only_its_allowed_tools() -> None:
    counter = Counter()
    registry = ToolRegistry(
        [counting_tool("read_file", counter), counting_tool("write_file", counter)]
    )
    sub_model = ScriptedModel(["done"])
    dispatcher = SubagentDispatcher([EXPLORE], model=sub_model, registry=registry)
    simulate(top([turn(delegation("explore")), "ok"], dispatcher), "go")
    assert sub_model.requests[0].tool_names == ("read_file",)


def test_k2_unknown_allowed_names_are_ignored_and_none_named_means_no_tools() -> None:
    counter = Counter()
    registry = ToolRegistry([counting_tool("read_file", counter)])
    ghostly = definition("ghostly", "read_file", "does_not_exist")
    sub_models = {"ghostly": ScriptedModel(["a"]), "plan": ScriptedModel(["b"])}
    dispatcher = SubagentDispatcher([ghostly, PLAN], models=sub_models, registry=registry)
    steps = [turn(delegation("ghostly")), turn(delegation("plan")), "ok"]
    simulate(top(steps, dispatcher), "go")
    assert sub_models["ghostly"].requests[0].tool_names == ("read_file",)
    assert sub_models["plan"].requests[0].tool_names == ()


def test_k2_a_tool_outside_the_scope_does_not_exist_and_nothing_runs() -> None:
    counter = Counter()
    registry = ToolRegistry(
        [counting_tool("read_file", counter), counting_tool("write_file", counter)]
    )
    sub_model = ScriptedModel([turn(call("write_file", {}, "w1")), "gave up"])
    dispatcher = SubagentDispatcher([EXPLORE], model=sub_model, registry=registry)
    simulate(top([turn(delegation("explore")), "ok"], dispatcher), "go")
    (message,) = sub_model.requests[1].last_tool_results()
    assert message.content == "Error: Tool 'write_file' not found"
    assert message.is_error
    assert counter["write_file"] == 0


def test_k2_allowed_tools_run() -> None:
    counter = Counter()
    registry = ToolRegistry([counting_tool("read_file", counter, result="contents")])
    sub_model = ScriptedModel([turn(call("read_file", {}, "r1")), "read"])
    dispatcher = SubagentDispatcher([EXPLORE], model=sub_model, registry=registry)
    simulate(top([turn(delegation("explore")), "ok"], dispatcher), "go")
    assert sub_model.requests[1].last_tool_results()[0].content == "contents"
    assert counter["read_file"] == 1


# K3 ---------------------------------------------------------------------------------------


def test_k3_recursion_is_offered_only_when_the_definition_names_the_dispatcher() -> None:
    counter = Counter()
    registry = ToolRegistry([counting_tool("read_file", counter)])
    sub_model = ScriptedModel(["done"])
    dispatcher = SubagentDispatcher([RECURSIVE], model=sub_model, registry=registry)
    simulate(top([turn(delegation("recursive")), "ok"], dispatcher), "go")
    assert sub_model.requests[0].tool_names == ("delegate_to_subagent",)


def test_k3_a_subagent_without_the_dispatcher_cannot_recurse() -> None:
    sub_model = ScriptedModel([turn(delegation("explore", id="n1")), "leaf answer"])
    dispatcher = SubagentDispatcher([EXPLORE], model=sub_model)
    result = simulate(top([turn(delegation("explore")), "ok"], dispatcher), "go")
    assert sub_model.requests[1].last_tool_results()[0].content == (
        "Error: Tool 'delegate_to_subagent' not found"
    )
    assert len(result.trace.handoffs()) == 1


def test_k3_a_call_at_the_depth_cap_is_refused_without_a_model_call() -> None:
    sub_model = ScriptedModel([])
    dispatcher = SubagentDispatcher([EXPLORE], model=sub_model, depth=3)
    result = simulate(top([turn(delegation("explore", id="d1")), "ok"], dispatcher), "go")
    assert tool_message(result, "d1").content == "Error: max delegation depth (3) exceeded"
    assert sub_model.requests == []
    (record,) = result.trace.handoffs()
    assert (record.status, record.reason, record.attempts) == ("denied", "max_depth", 0)


def test_k3_unknown_type_is_reported_before_the_depth_cap() -> None:
    dispatcher = SubagentDispatcher([EXPLORE], model=ScriptedModel([]), depth=3)
    result = simulate(top([turn(delegation("ghost", id="d1")), "ok"], dispatcher), "go")
    assert tool_message(result, "d1").content.startswith("Error: unknown subagent type 'ghost'")


def recursing_model(answer: str) -> FunctionModel:
    """Delegates 'nested task' to 'recursive' on its first call, then always answers."""
    calls: list[ModelRequest] = []

    def respond(request: ModelRequest) -> Any:
        calls.append(request)
        if len(calls) == 1:
            return turn(delegation("recursive", "nested task", id="n1"))
        return answer

    return FunctionModel(respond)


def test_k3_one_nested_level_runs_under_the_default_cap() -> None:
    sub_model = recursing_model("depth-1 subagent result")
    agent = sophi_agent(
        "main",
        ScriptedModel([turn(delegation("recursive", id="d1")), "ok"]),
        definitions=[RECURSIVE],
        models={"recursive": sub_model},
    )
    result = simulate(agent, "go")
    assert tool_message(result, "d1").content == "depth-1 subagent result"
    assert [(h.depth, h.status) for h in result.trace.handoffs()] == [
        (1, "completed"),
        (2, "completed"),
    ]


def test_k3_max_delegation_depth_one_allows_exactly_one_level() -> None:
    sub_model = recursing_model("stopped")
    agent = sophi_agent(
        "main",
        ScriptedModel([turn(delegation("recursive", id="d1")), "ok"]),
        definitions=[RECURSIVE],
        models={"recursive": sub_model},
        max_delegation_depth=1,
    )
    result = simulate(agent, "go")
    assert tool_message(result, "d1").content == "stopped"
    assert sub_model.requests[1].last_tool_results()[0].content == (
        "Error: max delegation depth (1) exceeded"
    )
    assert len(sub_model.requests) == 2
    nested = result.trace.handoffs()[1]
    assert (nested.status, nested.reason, nested.depth) == ("denied", "max_depth", 2)


def test_k3_a_chain_deeper_than_the_cap_stops_with_no_further_model_call() -> None:
    requests: list[ModelRequest] = []

    def always_delegate_once(request: ModelRequest) -> Any:
        requests.append(request)
        if request.last_tool_results():
            return "unwound"
        return turn(delegation("recursive", "deeper", id=f"n{len(requests)}"))

    agent = sophi_agent(
        "main",
        ScriptedModel([turn(delegation("recursive", id="d1")), "ok"]),
        definitions=[RECURSIVE],
        models={"recursive": FunctionModel(always_delegate_once)},
    )
    result = simulate(agent, "go")
    records = result.trace.handoffs()
    assert [(r.depth, r.status) for r in records] == [
        (1, "completed"),
        (2, "completed"),
        (3, "completed"),
        (4, "denied"),
    ]
    assert records[-1].error == "Error: max delegation depth (3) exceeded"
    # three sub-agents ran, two model calls each; the refused fourth never called a model
    assert len(requests) == 6
    assert result.trace.unbalanced() == []


def test_k3_negative_depth_settings_are_construction_errors() -> None:
    with pytest.raises(ConfigurationError, match="max_delegation_depth must be an int >= 0"):
        SubagentDispatcher([EXPLORE], model=ScriptedModel([]), max_delegation_depth=-1)
    with pytest.raises(ConfigurationError, match="depth must be an int >= 0"):
        SubagentDispatcher([EXPLORE], model=ScriptedModel([]), depth=-1)
