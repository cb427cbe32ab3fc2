"""S4 input resolution and S5 result envelope of a delegation call."""

from __future__ import annotations

import json

import pytest

from handoff_sim import Agent, SubAgent, Tool, simulate
from handoff_sim.subagents._input import resolve_input
from handoff_sim.testing import ScriptedModel
from tests._helpers import call, ends, leaf, parent_of, payload, starts, tool_results, turn

# AI4J resolveInput table (reference §3.2), as SPEC S4 states it.
RESOLVED = [
    (None, ""),
    ("", ""),
    ("   ", ""),
    ('{"task":"Review the auth flow"}', "Review the auth flow"),
    ('{"task":"  Review  ","context":"  auth module "}', "Review\n\nContext:\nauth module"),
    ('{"input":"Beijing"}', "Beijing"),
    ('{"task":"   ","input":"y"}', "y"),
    ('{"input":"x","context":"y"}', "x\n\nContext:\ny"),
    ('{"task":"t","context":"   "}', "t"),
    ('{"context":"only ctx"}', '{"context":"only ctx"}'),
    ("{}", "{}"),
    ('{"task":null}', '{"task":null}'),
    ('{"task":123}', "123"),
    ('{"task":{"a":1}}', '{"a":1}'),
    ("Review this please", "Review this please"),
    ("[1,2]", "[1,2]"),
    ("null", "null"),
    ('"just a string"', '"just a string"'),
]


@pytest.mark.parametrize(("arguments", "expected"), RESOLVED)
def test_s4_resolve_input_follows_the_resolution_table(
    arguments: str | None, expected: str
) -> None:
    assert resolve_input(arguments) == expected


def _child_input(arguments: object) -> str | None:
    """The user message a child receives when the parent calls it with ``arguments``."""
    child = leaf("child")
    parent = parent_of([SubAgent("child", agent=child)], turn(call("subagent_child", arguments)))
    simulate(parent, "go")
    assert isinstance(child.model, ScriptedModel)
    return child.model.requests[0].messages[-1].content


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"task": " review auth "}, "review auth"),
        ({"task": "t", "context": "c"}, "t\n\nContext:\nc"),
        ({"input": "Beijing"}, "Beijing"),
        ({"context": "only ctx"}, '{"context":"only ctx"}'),
        ({}, "{}"),
    ],
)
def test_s4_child_receives_the_resolved_input(arguments: object, expected: str) -> None:
    assert _child_input(arguments) == expected


@pytest.mark.parametrize("raw", ["not json", "[1,2]", "null", '"text"', "42", "{broken"])
def test_s4_non_object_arguments_are_rejected_before_any_executor(raw: str) -> None:
    child = leaf("child")
    parent = parent_of([SubAgent("child", agent=child)], turn(call("subagent_child", raw)))
    result = simulate(parent, "go")
    [message] = tool_results(result.messages)
    assert message.content == "subagent_child arguments must be a JSON object"
    assert message.is_error
    assert starts(result.trace) == []
    assert ends(result.trace) == []
    assert isinstance(child.model, ScriptedModel)
    assert child.model.requests == []
    assert result.output == "done"


def test_s4_blank_arguments_are_rejected_naming_the_tool_without_handoff_events() -> None:
    """Blank is not a JSON object: the same refusal as any non-object (S4, R3)."""
    child = leaf("child")
    parent = parent_of([SubAgent("child", agent=child)], turn(call("subagent_child", "  ")))
    result = simulate(parent, "go")
    [message] = tool_results(result.messages)
    assert message.is_error
    assert message.content == "subagent_child arguments must be a JSON object"
    assert starts(result.trace) == []
    assert ends(result.trace) == []


def test_s4_non_object_arguments_to_a_plain_tool_are_rejected_too() -> None:
    ran: list[object] = []

    def lookup() -> str:
        ran.append(1)
        return "found"

    plain = Tool("lookup", lookup)
    parent = Agent(
        name="parent",
        model=ScriptedModel([turn(call("lookup", "[]")), {"text": "done"}]),
        tools=[plain],
    )
    result = simulate(parent, "go")
    assert tool_results(result.messages)[0].content == "lookup arguments must be a JSON object"
    assert ran == []


def test_s5_tool_result_is_the_compact_json_envelope() -> None:
    child = leaf("child", {"text": "review-ready"})
    sub = SubAgent("code-reviewer", agent=child, tool_name="delegate_code_review")
    parent = parent_of([sub], turn(call("delegate_code_review", {"task": "x"}, id="c1")))
    [message] = tool_results(simulate(parent, "go").messages)
    assert message.content == (
        '{"subagent":"code-reviewer","toolName":"delegate_code_review",'
        '"output":"review-ready","steps":1}'
    )
    assert list(payload(message.content)) == ["subagent", "toolName", "output", "steps"]


def test_s5_steps_counts_the_childs_model_calls() -> None:
    lookup = Tool("lookup", lambda: "found")
    child = Agent(
        name="child",
        model=ScriptedModel([turn(call("lookup")), turn(call("lookup")), {"text": "ok"}]),
        tools=[lookup],
    )
    parent = parent_of(
        [SubAgent("child", agent=child)], turn(call("subagent_child", {"task": "t"}))
    )
    [message] = tool_results(simulate(parent, "go").messages)
    assert payload(message.content)["steps"] == 3


def test_s5_parent_never_sees_the_childs_intermediate_messages() -> None:
    secret = Tool("secret", lambda: "intermediate-secret")
    child = Agent(
        name="child",
        model=ScriptedModel([turn(call("secret")), {"text": "final-answer"}]),
        tools=[secret],
    )
    parent = parent_of(
        [SubAgent("child", agent=child)], turn(call("subagent_child", {"task": "t"}))
    )
    result = simulate(parent, "go")
    assert isinstance(parent.model, ScriptedModel)
    seen = json.dumps([m.to_dict() for m in parent.model.requests[-1].messages])
    assert "final-answer" in seen
    assert "intermediate-secret" not in seen
    assert all("intermediate-secret" not in (m.content or "") for m in result.messages)


def test_s5_envelope_omits_output_when_the_child_answers_no_text() -> None:
    child = leaf("child", {"text": None})
    parent = parent_of(
        [SubAgent("child", agent=child)], turn(call("subagent_child", {"task": "t"}))
    )
    [message] = tool_results(simulate(parent, "go").messages)
    assert payload(message.content) == {
        "subagent": "child",
        "toolName": "subagent_child",
        "steps": 1,
    }


def test_s5_envelope_keeps_non_ascii_text_as_is() -> None:
    child = leaf("child", {"text": "Résumé prêt ✓"})
    parent = parent_of(
        [SubAgent("child", agent=child)], turn(call("subagent_child", {"task": "t"}))
    )
    [message] = tool_results(simulate(parent, "go").messages)
    assert "Résumé prêt ✓" in message.content
