"""S2: sub-agent names, generated and explicit tool names, and name collisions."""

from __future__ import annotations

import pytest

from handoff_sim import (
    Agent,
    ConfigurationError,
    DuplicateToolNameError,
    SubAgent,
    Tool,
    normalize_tool_name,
)
from handoff_sim._errors._configuration import InvalidNameError
from tests._helpers import leaf

# Every row of the AI4J worked examples (reference §1.3) plus SPEC S2's own examples.
NORMALIZED = [
    ("code-reviewer", "subagent_code_reviewer"),
    ("Code Reviewer", "subagent_code_reviewer"),
    ("  Weather  Agent  ", "subagent_weather_agent"),
    ("CamelCaseAgent", "subagent_camelcaseagent"),
    ("3d-modeler", "subagent_agent_3d_modeler"),
    ("42", "subagent_agent_42"),
    ("9_lives", "subagent_agent_9_lives"),
    ("_9lives", "subagent_agent_9lives"),
    ("-7-", "subagent_agent_7"),
    ("---", "subagent_agent"),
    ("___", "subagent_agent"),
    ("!!!", "subagent_agent"),
    ("_", "subagent_agent"),
    ("__lead__", "subagent_lead"),
    ("a--b__c  d", "subagent_a_b_c_d"),
    ("agent.v2/beta", "subagent_agent_v2_beta"),
    ("snake_case_name", "subagent_snake_case_name"),
    ("A1 B2", "subagent_a1_b2"),
    ("x", "subagent_x"),
    ("Résumé Writer", "subagent_r_sum_writer"),
    ("émile", "subagent_mile"),
    ("Straße", "subagent_stra_e"),
    ("ÄÖÜ helper", "subagent_helper"),
    ("数据分析", "subagent_agent"),
    ("数据分析 agent", "subagent_agent"),
    ("①②", "subagent_agent"),
    ("٣agent", "subagent_agent"),
    ("İstanbul guide", "subagent_i_stanbul_guide"),
    ("KELVIN\u212aagent", "subagent_kelvinkagent"),
    ("emoji🙂bot", "subagent_emoji_bot"),
    ("tab\tsep", "subagent_tab_sep"),
]


@pytest.mark.parametrize(("name", "expected"), NORMALIZED)
def test_s2_normalize_tool_name_matches_the_worked_examples(name: str, expected: str) -> None:
    assert normalize_tool_name(name) == expected


@pytest.mark.parametrize(("name", "expected"), NORMALIZED)
def test_s2_default_tool_name_is_the_normalized_name(name: str, expected: str) -> None:
    assert SubAgent(name=name, agent=leaf("child")).tool_name == expected


@pytest.mark.parametrize("name", ["", "   ", "\t\n"])
def test_s2_blank_subagent_name_is_a_construction_error(name: str) -> None:
    with pytest.raises(InvalidNameError, match=r"^subagent name is required$") as info:
        SubAgent(name=name, agent=leaf("child"))
    assert isinstance(info.value, ConfigurationError)


def test_s2_subagent_name_is_trimmed() -> None:
    assert SubAgent(name="  reviewer ", agent=leaf("child")).name == "reviewer"


@pytest.mark.parametrize("description", ["", "   ", None])
def test_s2_blank_description_gets_the_default(description: str | None) -> None:
    sub = SubAgent(name=" writer ", description=description or "", agent=leaf("child"))
    assert sub.description == "Delegate a specialized task to subagent writer"


def test_s2_description_is_trimmed() -> None:
    assert SubAgent("w", "  Write docs  ", leaf("child")).description == "Write docs"


@pytest.mark.parametrize(
    ("explicit", "expected"),
    [
        ("delegate_code_review", "delegate_code_review"),
        ("  delegate-review  ", "delegate-review"),
        ("Delegate_Review", "Delegate_Review"),
        ("a" * 64, "a" * 64),
    ],
)
def test_s2_explicit_tool_name_is_trimmed_and_kept(explicit: str, expected: str) -> None:
    assert SubAgent("reviewer", agent=leaf("child"), tool_name=explicit).tool_name == expected


@pytest.mark.parametrize(
    "explicit",
    [" Delegate Review! ", "a" * 65, "review.code", "naïve", "delegate/review", "tab\tname"],
)
def test_s2_invalid_explicit_tool_name_is_a_construction_error_naming_it(explicit: str) -> None:
    with pytest.raises(InvalidNameError) as info:
        SubAgent("reviewer", agent=leaf("child"), tool_name=explicit)
    message = str(info.value)
    assert "tool_name" in message
    assert repr(explicit.strip()) in message
    assert "^[A-Za-z0-9_-]{1,64}$" in message


def test_s2_blank_explicit_tool_name_falls_back_to_the_generated_one() -> None:
    assert SubAgent("code-reviewer", agent=leaf("c"), tool_name="  ").tool_name == (
        "subagent_code_reviewer"
    )


def test_s2_generated_names_that_collide_raise_duplicate_tool_name_error() -> None:
    subagents = [
        SubAgent("code-reviewer", agent=leaf("a")),
        SubAgent("Code Reviewer", agent=leaf("b")),
    ]
    with pytest.raises(
        DuplicateToolNameError, match=r"^duplicate subagent tool name: subagent_code_reviewer$"
    ):
        Agent(name="parent", model=leaf("m").model, subagents=subagents)


def test_s2_non_ascii_only_names_collide_on_subagent_agent() -> None:
    subagents = [SubAgent("数据分析", agent=leaf("a")), SubAgent("数据分析 agent", agent=leaf("b"))]
    with pytest.raises(DuplicateToolNameError, match=r"subagent_agent$"):
        Agent(name="parent", model=leaf("m").model, subagents=subagents)


def test_s2_explicit_and_generated_name_collision_is_detected() -> None:
    subagents = [
        SubAgent("writer", agent=leaf("a"), tool_name="subagent_reviewer"),
        SubAgent("reviewer", agent=leaf("b")),
    ]
    with pytest.raises(DuplicateToolNameError, match="subagent_reviewer"):
        Agent(name="parent", model=leaf("m").model, subagents=subagents)


def test_s2_plain_tool_and_subagent_with_one_name_raise_duplicate_tool_name_error() -> None:
    plain = Tool("delegate_review", lambda: "ok")
    sub = SubAgent("reviewer", agent=leaf("a"), tool_name="delegate_review")
    with pytest.raises(DuplicateToolNameError, match="delegate_review") as info:
        Agent(name="parent", model=leaf("m").model, tools=[plain], subagents=[sub])
    assert info.value.name == "delegate_review"


def test_s2_two_plain_tools_with_one_name_raise_duplicate_tool_name_error() -> None:
    tools = [Tool("lookup", lambda: "a"), Tool("lookup", lambda: "b")]
    with pytest.raises(DuplicateToolNameError, match="lookup"):
        Agent(name="parent", model=leaf("m").model, tools=tools)


def test_s2_tool_name_comparison_is_case_sensitive() -> None:
    subagents = [
        SubAgent("a", agent=leaf("a"), tool_name="Delegate"),
        SubAgent("b", agent=leaf("b"), tool_name="delegate"),
    ]
    agent = Agent(name="parent", model=leaf("m").model, subagents=subagents)
    assert [s.name for s in agent.tool_specs] == ["Delegate", "delegate"]


def test_s2_subagent_without_agent_is_a_construction_error() -> None:
    with pytest.raises(ConfigurationError, match="subagent agent is required"):
        SubAgent("reviewer")
