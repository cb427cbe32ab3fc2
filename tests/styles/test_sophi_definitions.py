"""SoPhi style, agent definitions: K6 (Markdown with YAML front matter, bad files skipped)."""

from __future__ import annotations

from pathlib import Path

import pytest

from handoff_sim import ConfigurationError
from handoff_sim.styles.sophi import (
    AgentDefinition,
    AgentDefinitionError,
    AgentDefinitionWarning,
    load_agent_definitions,
)
from handoff_sim.styles.sophi._definitions import load_agent_definition, parse_agent_definition

EXPLORE = """---
name: explore
description: Read-only codebase search
allowed_tools:
  - read_file
  - grep
---
You search the codebase and report findings.
"""


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def simple(name: str, body: str = "Prompt.") -> str:
    return f"---\nname: {name}\ndescription: {name} agent\n---\n{body}\n"


def test_k6_front_matter_fields_and_body_are_parsed() -> None:
    parsed = parse_agent_definition(EXPLORE, "explore.md")
    assert parsed == AgentDefinition(
        name="explore",
        description="Read-only codebase search",
        system_prompt="You search the codebase and report findings.",
        allowed_tools=("read_file", "grep"),
        model=None,
    )


def test_k6_model_is_read_and_allowed_tools_default_to_none() -> None:
    parsed = parse_agent_definition(
        simple("plan").replace("---\nP", "model: claude-opus-4-1\n---\nP")
    )
    assert parsed.model == "claude-opus-4-1"
    assert parsed.allowed_tools == ()


def test_k6_flow_lists_and_the_camel_case_key_are_accepted() -> None:
    text = "---\nname: a\ndescription: d\nallowedTools: [read_file, web_search]\n---\nBody\n"
    assert parse_agent_definition(text).allowed_tools == ("read_file", "web_search")


def test_k6_missing_front_matter_is_an_error_naming_the_file() -> None:
    with pytest.raises(AgentDefinitionError) as caught:
        parse_agent_definition("Just a body, no frontmatter.", Path("agents/x.md"))
    assert str(caught.value) == "Agent definition file is missing YAML frontmatter: agents/x.md"
    assert isinstance(caught.value, ConfigurationError)


def test_k6_missing_closing_delimiter_is_an_error() -> None:
    with pytest.raises(AgentDefinitionError) as caught:
        parse_agent_definition("---\nname: x\ndescription: y\nBody", "x.md")
    assert str(caught.value) == "Agent definition file is missing closing '---' delimiter: x.md"


@pytest.mark.parametrize("body", ["", "\n   \n"])
def test_k6_empty_body_is_an_error(body: str) -> None:
    with pytest.raises(AgentDefinitionError) as caught:
        parse_agent_definition(f"---\nname: x\ndescription: y\n---\n{body}", "x.md")
    assert str(caught.value) == "Agent definition file has no system prompt body: x.md"


@pytest.mark.parametrize(
    ("front", "problem"),
    [
        ("description: y", "'name' is required and must be a non-blank string"),
        ("name: x", "'description' is required and must be a non-blank string"),
        ("name: x\ndescription: y\ntools: [a]", "unknown key(s) ['tools']"),
        ("name: x\ndescription: y\nallowed_tools: read_file", "'allowed_tools' must be a list"),
        ("name: x\ndescription: y\nmodel: [1]", "'model' must be a string"),
        ("- just\n- a list", "expected a mapping of keys"),
        ("name: [unclosed", "not valid YAML"),
    ],
)
def test_k6_bad_front_matter_names_the_file_and_the_problem(front: str, problem: str) -> None:
    with pytest.raises(AgentDefinitionError) as caught:
        parse_agent_definition(f"---\n{front}\n---\nBody\n", "x.md")
    assert str(caught.value).startswith("Agent definition file has invalid frontmatter: x.md: ")
    assert problem in str(caught.value)


def test_k6_crlf_and_a_byte_order_mark_are_accepted() -> None:
    text = "\ufeff" + simple("win").replace("\n", "\r\n")
    assert parse_agent_definition(text).name == "win"


def test_k6_directory_loads_every_markdown_file_sorted_by_name(tmp_path: Path) -> None:
    write(tmp_path, "b.md", simple("beta"))
    write(tmp_path, "a.md", simple("alpha"))
    write(tmp_path, "readme.txt", "not a definition")
    loaded = load_agent_definitions(tmp_path)
    assert [d.name for d in loaded.definitions] == ["alpha", "beta"]
    assert loaded.problems == []
    assert loaded.definitions[0].source == tmp_path / "a.md"


def test_k6_empty_or_missing_directory_holds_nothing(tmp_path: Path) -> None:
    assert load_agent_definitions(tmp_path) == ([], [])
    assert load_agent_definitions(tmp_path / "missing") == ([], [])
    assert not (tmp_path / "missing").exists()


def test_k6_a_file_is_not_a_directory(tmp_path: Path) -> None:
    path = write(tmp_path, "solo.md", simple("solo", "Solo prompt."))
    with pytest.raises(ConfigurationError, match="Not a directory: "):
        load_agent_definitions(path)
    single = load_agent_definition(path)
    assert (single.name, single.system_prompt) == ("solo", "Solo prompt.")


def test_k6_one_bad_file_is_reported_warned_and_skipped_the_others_load(tmp_path: Path) -> None:
    write(tmp_path, "alpha.md", simple("alpha"))
    broken = write(tmp_path, "broken.md", "not a valid agent definition")
    write(tmp_path, "gamma.md", simple("gamma"))
    with pytest.warns(AgentDefinitionWarning) as warned:
        loaded = load_agent_definitions(tmp_path)
    assert [d.name for d in loaded.definitions] == ["alpha", "gamma"]
    (problem,) = loaded.problems
    assert str(problem) == f"Agent definition file is missing YAML frontmatter: {broken}"
    assert problem.path == broken
    assert [str(w.message) for w in warned] == [str(problem)]


def test_k6_warnings_can_be_turned_off(tmp_path: Path) -> None:
    write(tmp_path, "broken.md", "---\nname: x\n")
    loaded = load_agent_definitions(tmp_path, warn=False)
    assert loaded.definitions == []
    assert "missing closing '---' delimiter" in str(loaded.problems[0])


def test_k6_a_duplicate_name_is_reported_and_the_first_file_wins(tmp_path: Path) -> None:
    write(tmp_path, "a.md", simple("same", "First."))
    write(tmp_path, "b.md", simple("same", "Second."))
    loaded = load_agent_definitions(tmp_path, warn=False)
    assert [d.system_prompt for d in loaded.definitions] == ["First."]
    assert str(loaded.problems[0]) == (
        f"Agent definition name 'same' in {tmp_path / 'b.md'} is already defined in "
        f"{tmp_path / 'a.md'}"
    )


def test_k6_definition_values_are_checked() -> None:
    with pytest.raises(ConfigurationError, match="agent definition name is required"):
        AgentDefinition(name=" ", description="d", system_prompt="p")
    with pytest.raises(ConfigurationError, match="allowed_tools must be a list"):
        AgentDefinition(name="a", description="d", system_prompt="p", allowed_tools="read_file")  # type: ignore[arg-type]
