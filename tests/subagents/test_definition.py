"""S1 mounting a sub-agent as one tool of its parent; S3 the generated tool's schema."""

from __future__ import annotations

import pytest

from handoff_sim import Agent, ConfigurationError, SessionMode, SubAgent, Tool, simulate
from handoff_sim.testing import ScriptedModel
from tests._helpers import leaf


def test_s1_subagent_defaults() -> None:
    child = leaf("child")
    sub = SubAgent("code-reviewer", "Review code", child)
    assert (sub.name, sub.description, sub.agent) == ("code-reviewer", "Review code", child)
    assert sub.tool_name == "subagent_code_reviewer"
    assert sub.session_mode is SessionMode.NEW_SESSION


def test_s1_session_mode_accepts_its_string_value() -> None:
    sub = SubAgent("a", agent=leaf("x"), session_mode="reuse_session")
    assert sub.session_mode is SessionMode.REUSE_SESSION


def test_s1_subagent_tools_come_after_plain_tools_in_definition_order() -> None:
    plain = [Tool("zeta", lambda: "z"), Tool("alpha", lambda: "a")]
    subs = [
        SubAgent("writer", agent=leaf("w")),
        SubAgent("critic", agent=leaf("c"), tool_name="delegate_critic"),
        SubAgent("apex", agent=leaf("a")),
    ]
    model = ScriptedModel([{"text": "ok"}])
    simulate(Agent(name="p", model=model, tools=plain, subagents=subs), "go")
    assert model.requests[0].tool_names == (
        "zeta",
        "alpha",
        "subagent_writer",
        "delegate_critic",
        "subagent_apex",
    )


def test_s3_generated_tool_parameters_are_exactly_task_and_optional_context() -> None:
    model = ScriptedModel([{"text": "ok"}])
    sub = SubAgent("writer", "Write things", leaf("w"))
    simulate(Agent(name="p", model=model, subagents=[sub]), "go")
    [spec] = model.requests[0].tools
    assert (spec.name, spec.description) == ("subagent_writer", "Write things")
    assert spec.parameters == {
        "type": "object",
        "properties": {
            "task": {"type": "string", "description": "Task to delegate to this subagent"},
            "context": {"type": "string", "description": "Optional extra context for the task"},
        },
        "required": ["task"],
    }


def test_s1_a_parent_may_mount_the_same_agent_twice_under_two_names() -> None:
    child = leaf("child")
    subs = [
        SubAgent("a", agent=child, tool_name="delegate_a"),
        SubAgent("b", agent=child, tool_name="delegate_b"),
    ]
    agent = Agent(name="p", model=ScriptedModel([]), subagents=subs)
    assert [s.name for s in agent.tool_specs] == ["delegate_a", "delegate_b"]


def test_s13_invalid_session_scope_is_a_configuration_error_naming_it() -> None:
    with pytest.raises(ConfigurationError, match=r"session_scope .* got 'forever'"):
        SubAgent("a", agent=leaf("x"), session_scope="forever")  # type: ignore[arg-type]


def test_s1_invalid_session_mode_is_a_configuration_error_naming_it() -> None:
    with pytest.raises(ConfigurationError, match=r"session_mode.*'forever'"):
        SubAgent("a", agent=leaf("x"), session_mode="forever")


def test_r4_an_agent_without_a_model_client_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="model"):
        Agent(name="a", model=None)  # type: ignore[arg-type]
