"""Flink style, declaring sub-agents: F1 (reserved prefix), F2 (marker), F3 (input schema)."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest
from pydantic import BaseModel

from handoff_sim import (
    Agent,
    ConfigurationError,
    DuplicateToolNameError,
    ReservedPrefixError,
    simulate,
    tool,
)
from handoff_sim._errors._configuration import InvalidNameError
from handoff_sim.styles.flink import FlinkSubAgent, SubAgentNotOfferedWarning
from handoff_sim.testing import ScriptedModel
from tests.styles._support import call, turn

SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}


class Review(BaseModel):
    path: str
    lines: int = 0


def child(*answers: str, name: str = "reviewer") -> Agent:
    return Agent(name, ScriptedModel(list(answers) or ["done"]))


def reviewer(description: str = "", **kwargs: object) -> FlinkSubAgent:
    kwargs.setdefault("input_schema", SCHEMA)
    return FlinkSubAgent("reviewer", description, child(), **kwargs)  # type: ignore[arg-type]


def offered(*subagents: FlinkSubAgent, tools: tuple[object, ...] = ()) -> list[object]:
    """The tool specs a parent with these sub-agents sends its model, after one run."""
    model = ScriptedModel(["ok"])
    simulate(Agent("main", model, tools=tools, subagents=subagents), "go")  # type: ignore[arg-type]
    return list(model.requests[0].tools)


@tool
def lookup(order: str) -> str:
    """Look an order up."""
    return f"queried {order}"


# F1 ---------------------------------------------------------------------------------------


def test_f1_plain_tool_with_reserved_prefix_is_rejected_at_construction() -> None:
    helper = tool(lambda: "x", name="subagent_helper")
    with pytest.raises(ReservedPrefixError) as caught:
        Agent("main", ScriptedModel([]), tools=[helper])
    assert str(caught.value) == (
        "Tool name 'subagent_helper' must not start with the reserved prefix 'subagent_', "
        "which identifies sub-agent callables"
    )


def test_f1_prefix_check_is_a_plain_startswith() -> None:
    Agent("main", ScriptedModel([]), tools=[tool(lambda: "x", name="my_subagent_tool")])
    with pytest.raises(ReservedPrefixError):
        Agent("main", ScriptedModel([]), tools=[tool(lambda: "x", name="subagent_")])


def test_f1_tool_and_subagent_share_a_resource_name_and_each_callable_resolves_to_one() -> None:
    ran: list[str] = []
    plain = tool(lambda: ran.append("tool") or "reviewer called", name="reviewer")
    sub = FlinkSubAgent("reviewer", agent=child("agent-result"), input_schema=SCHEMA)
    model = ScriptedModel(
        [
            turn(call("subagent_reviewer", {"path": "a.py"}, "c1"), call("reviewer", {}, "c2")),
            "done",
        ]
    )
    result = simulate(Agent("main", model, tools=[plain], subagents=[sub]), "go")

    assert [t.name for t in model.requests[0].tools] == ["reviewer", "subagent_reviewer"]
    results = {m.tool_call_id: m.content for m in result.messages if m.role == "tool"}
    assert results == {"c1": "agent-result", "c2": "reviewer called"}
    assert ran == ["tool"]
    assert [h.tool for h in result.trace.handoffs()] == ["subagent_reviewer"]


def test_f1_prefixed_name_never_falls_back_to_a_plain_tool() -> None:
    ghost_ran: list[str] = []
    ghost = tool(lambda: ghost_ran.append("x") or "ghost", name="ghost")
    model = ScriptedModel([turn(call("subagent_ghost", {}, "c1")), "done"])
    result = simulate(Agent("main", model, tools=[ghost]), "go")
    assert result.messages[2].content == "Error: Tool 'subagent_ghost' not found"
    assert ghost_ran == []
    assert result.trace.handoffs() == []


def test_f1_callable_name_is_the_prefix_plus_the_registered_name() -> None:
    assert reviewer().tool_name == "subagent_reviewer"
    assert FlinkSubAgent("code-reviewer", agent=child(), input_schema=SCHEMA).tool_name == (
        "subagent_code-reviewer"
    )
    with pytest.raises(InvalidNameError):
        FlinkSubAgent("code reviewer", agent=child(), input_schema=SCHEMA)


def test_f1_same_subagent_declared_twice_is_a_duplicate_callable() -> None:
    with pytest.raises(DuplicateToolNameError, match="duplicate subagent tool name: subagent_rev"):
        Agent("main", ScriptedModel([]), subagents=[reviewer(), reviewer()])


# F2 ---------------------------------------------------------------------------------------


def test_f2_tools_come_first_then_subagents_with_marker_and_custom_schema() -> None:
    specs = offered(reviewer("Reviews a file."), tools=(lookup,))
    assert [s.name for s in specs] == ["lookup", "subagent_reviewer"]  # type: ignore[attr-defined]
    sub = specs[1]
    assert sub.description == "Reviews a file. This is subagent."  # type: ignore[attr-defined]
    assert sub.parameters == SCHEMA  # type: ignore[attr-defined]


@pytest.mark.parametrize("description", ["", "   "])
def test_f2_undescribed_subagent_gets_the_default_description(description: str) -> None:
    (spec,) = offered(reviewer(description))
    assert spec.description == (  # type: ignore[attr-defined]
        "Delegate a standalone task to sub-agent reviewer This is subagent."
    )


def test_f2_no_listing_message_is_injected() -> None:
    model = ScriptedModel(["ok"])
    other = FlinkSubAgent("coder", agent=child(name="coder"), input_schema=SCHEMA)
    agent = Agent("main", model, subagents=[reviewer(), other], system_prompt="You are helpful.")
    simulate(agent, "review it")
    request = model.requests[0]
    assert [(m.role, m.content) for m in request.messages] == [
        ("system", "You are helpful."),
        ("user", "review it"),
    ]
    assert len(request.tools) == 2


def test_f2_no_subagents_no_tools() -> None:
    model = ScriptedModel(["ok"])
    simulate(Agent("main", model), "hi")
    assert len(model.requests[0].messages) == 1
    assert model.requests[0].tools == ()


# F3 ---------------------------------------------------------------------------------------


def test_f3_schema_is_derived_from_a_pydantic_input_type() -> None:
    sub = FlinkSubAgent("reviewer", agent=child(), input_type=Review)
    assert sub.spec.parameters["type"] == "object"
    assert sub.spec.parameters["properties"] == {
        "path": {"title": "Path", "type": "string"},
        "lines": {"default": 0, "title": "Lines", "type": "integer"},
    }
    assert sub.spec.parameters["required"] == ["path"]


def test_f3_nested_models_keep_their_own_required_fields() -> None:
    class Nested(BaseModel):
        name: str
        blob: bytes

    class Outer(BaseModel):
        id: str
        nested: Nested
        count: int = 0

    schema = FlinkSubAgent("reviewer", agent=child(), input_type=Outer).spec.parameters
    assert set(schema["required"]) == {"id", "nested"}
    assert set(schema["$defs"]["Nested"]["required"]) == {"name", "blob"}
    assert schema["properties"]["count"]["type"] == "integer"
    assert schema["$defs"]["Nested"]["properties"]["blob"]["format"] == "binary"


def test_f3_a_dataclass_input_type_renders_as_an_object_too() -> None:
    @dataclass
    class Ticket:
        id: int

    sub = FlinkSubAgent("reviewer", agent=child(), input_type=Ticket)
    assert sub.offered
    assert sub.spec.parameters["properties"]["id"]["type"] == "integer"


def test_f3_explicit_schema_wins_over_the_input_type_verbatim() -> None:
    sub = FlinkSubAgent("reviewer", agent=child(), input_schema=SCHEMA, input_type=Review)
    assert sub.spec.parameters == SCHEMA


def test_f3_explicit_schema_may_be_json_text() -> None:
    sub = FlinkSubAgent("reviewer", agent=child(), input_schema=json.dumps(SCHEMA))
    assert sub.spec.parameters == SCHEMA


@pytest.mark.parametrize("blank", ["", " ", "\n\t", {}, "{}"])
def test_f3_blank_explicit_schema_is_a_construction_error(blank: object) -> None:
    with pytest.raises(ConfigurationError) as caught:
        FlinkSubAgent("reviewer", agent=child(), input_schema=blank)  # type: ignore[arg-type]
    assert str(caught.value) == "Sub-agent input schema must not be blank."


@pytest.mark.parametrize(
    ("schema", "problem"),
    [("not json", "is not valid JSON"), ("[1]", "must be a JSON object, got list")],
)
def test_f3_explicit_schema_that_is_no_json_object_is_rejected(schema: str, problem: str) -> None:
    with pytest.raises(ConfigurationError, match=f"Sub-agent reviewer input schema {problem}"):
        FlinkSubAgent("reviewer", agent=child(), input_schema=schema)


def test_f3_type_that_is_not_an_object_is_not_offered_with_a_warning_others_still_are() -> None:
    with pytest.warns(SubAgentNotOfferedWarning) as warned:
        opaque = FlinkSubAgent("opaque", agent=child(name="opaque"), input_type=str)
    assert str(warned[0].message) == (
        "Sub-agent opaque input type builtins.str does not render as a JSON object, so there "
        "are no arguments for the model to build a call from and it is not offered as a callable."
    )
    coder = FlinkSubAgent("coder", agent=child(name="coder"), input_schema=SCHEMA)
    specs = offered(opaque, coder)
    assert [s.name for s in specs] == ["subagent_coder"]  # type: ignore[attr-defined]


def test_f3_calling_a_subagent_that_was_not_offered_finds_nothing() -> None:
    with pytest.warns(SubAgentNotOfferedWarning):
        opaque = FlinkSubAgent("opaque", agent=child(name="opaque"), input_type=list[int])
    model = ScriptedModel([turn(call("subagent_opaque", {}, "c1")), "done"])
    result = simulate(Agent("main", model, subagents=[opaque]), "go")
    assert result.messages[2].content == "Error: Tool 'subagent_opaque' not found"
    assert result.trace.handoffs() == []


@pytest.mark.parametrize("input_type", [None, object])
def test_f3_subagent_without_schema_or_type_is_a_construction_error(input_type: object) -> None:
    with pytest.raises(ConfigurationError) as caught:
        FlinkSubAgent("opaque", agent=child(), input_type=input_type)
    assert str(caught.value) == (
        "Sub-agent opaque declares neither an input schema nor an input type, so there are no "
        "arguments for the model to build a call from."
    )


def test_f3_unrenderable_input_type_names_the_type_and_the_remedy() -> None:
    class Opaque:
        pass

    class Holder(BaseModel):
        model_config = {"arbitrary_types_allowed": True}
        thing: Opaque

    with pytest.raises(ConfigurationError) as caught:
        FlinkSubAgent("reviewer", agent=child(), input_type=Holder)
    message = str(caught.value)
    assert message.startswith("Sub-agent input type ")
    assert "Holder cannot be rendered as a JSON Schema" in message
    assert "Declare an input schema explicitly" in message


def test_f3_self_referential_type_is_offered_with_its_root_as_an_object() -> None:
    class Cyclic(BaseModel):
        name: str
        next: Cyclic | None = None

    schema = FlinkSubAgent("chain", agent=child(), input_type=Cyclic).spec.parameters
    assert schema["type"] == "object"
    assert schema["properties"]["next"]["anyOf"][0] == {"$ref": "#/$defs/Cyclic"}
    assert "Cyclic" in schema["$defs"]


def test_f3_arguments_reach_the_subagent_unchanged() -> None:
    sub_model = ScriptedModel(["done"])
    sub = FlinkSubAgent("reviewer", agent=Agent("reviewer", sub_model), input_type=Review)
    raw = '{"path": "a.py",  "lines": 3, "extra": [1, 2]}'
    model = ScriptedModel([turn(call("subagent_reviewer", raw, "call-1")), "ok"])
    simulate(Agent("main", model, subagents=[sub]), "go")
    assert sub_model.requests[0].messages[-1].content == raw


def test_f3_subagent_runs_produce_handoff_events_like_any_other() -> None:
    model = ScriptedModel([turn(call("subagent_reviewer", {"path": "a"}, "c1")), "ok"])
    result = simulate(Agent("main", model, subagents=[reviewer()]), "go")
    (record,) = result.trace.handoffs()
    assert (record.tool, record.subagent, record.status, record.depth) == (
        "subagent_reviewer",
        "reviewer",
        "completed",
        1,
    )
    assert result.trace.unbalanced() == []


def test_f2_running_twice_offers_the_same_callables_without_duplicates() -> None:
    model = ScriptedModel(["one", "two"])
    agent = Agent("main", model, tools=[lookup], subagents=[reviewer()])
    simulate(agent, "first")
    simulate(agent, "second")
    assert [r.tool_names for r in model.requests] == [("lookup", "subagent_reviewer")] * 2


def test_f3_subagents_and_tools_of_one_turn_run_together_each_result_under_its_call() -> None:
    from pytest_handoff import assert_ran_in_parallel

    slow = {"type": "object", "properties": {}}
    a = FlinkSubAgent(
        "a", agent=Agent("a", ScriptedModel([{"text": "a done", "latency": 1}])), input_schema=slow
    )
    b = FlinkSubAgent(
        "b", agent=Agent("b", ScriptedModel([{"text": "b done", "latency": 1}])), input_schema=slow
    )
    model = ScriptedModel(
        [
            turn(
                call("subagent_a", {}, "call-1"),
                call("lookup", {"order": "order-1"}, "call-2"),
                call("subagent_b", {}, "call-3"),
            ),
            "ok",
        ]
    )
    agent = Agent("main", model, tools=[lookup], subagents=[a, b], parallel_tool_calls=True)
    result = simulate(agent, "go")
    results = {m.tool_call_id: m.content for m in result.messages if m.role == "tool"}
    assert results == {"call-1": "a done", "call-2": "queried order-1", "call-3": "b done"}
    assert_ran_in_parallel(result, "subagent_a", "subagent_b")
    assert result.elapsed_ms == 1000


@pytest.mark.parametrize("name", [5, b"reviewer", None, "   "])
def test_f1_a_flink_name_that_is_not_text_is_an_invalid_name(name: object) -> None:
    with pytest.raises(InvalidNameError, match="subagent name"):
        FlinkSubAgent(name, agent=child(), input_schema=SCHEMA)  # type: ignore[arg-type]
