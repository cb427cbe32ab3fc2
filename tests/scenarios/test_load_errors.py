"""Issue 14, item 1: an error raised while a scenario's referenced material loads (its
agent definition files) is an outcome the scenario may expect, like a build or run error;
an unexpected one still fails at load with file:line."""

from __future__ import annotations

from pathlib import Path

import pytest

from handoff_sim import ConfigurationError
from handoff_sim.cli import main
from handoff_sim.scenarios import ScenarioFileError, ScenarioRun, load_file, run_scenario
from handoff_sim.styles.sophi import AgentDefinitionError

from ._util import BUNDLED, write

GOOD = "---\nname: explore\ndescription: Read-only search\n---\nYou search.\n"

SCENARIO = """
scenario: s
agent_types_dir: agents/
agents:
  main:
    dispatcher: {agent_types: [explore]}
    model: {script: [done]}
run: [go]
"""


def _project(tmp_path: Path, expect: str = "", **files: str) -> Path:
    folder = tmp_path / "agents"
    folder.mkdir()
    for name, text in {"explore.md": GOOD, "broken.md": "no front matter\n", **files}.items():
        (folder / name).write_text(text, encoding="utf-8")
    return write(tmp_path, SCENARIO + expect)


def test_an_expected_definition_loading_error_makes_the_scenario_pass(tmp_path: Path) -> None:
    path = _project(
        tmp_path, "expect:\n  error: {type: AgentDefinitionError, match: 'frontmatter: .*broken'}\n"
    )
    [scenario] = load_file(path)
    result = run_scenario(scenario)
    assert result.passed, result.render_failure()
    assert isinstance(result.error, AgentDefinitionError)
    assert result.outputs == []
    assert len(result.trace) == 0


def test_a_base_class_name_matches_the_load_error_too(tmp_path: Path) -> None:
    path = _project(tmp_path, "expect:\n  error: {type: ConfigurationError}\n")
    assert run_scenario(load_file(path)[0]).passed


def test_an_error_expected_by_the_first_turn_matches_the_load_error(tmp_path: Path) -> None:
    turn = "run:\n  - input: go\n    expect: {error: {match: broken}}"
    text = SCENARIO.replace("run: [go]", turn)
    folder = tmp_path / "agents"
    folder.mkdir()
    (folder / "broken.md").write_text("x\n", encoding="utf-8")
    (folder / "explore.md").write_text(GOOD, encoding="utf-8")
    assert run_scenario(load_file(write(tmp_path, text))[0]).passed


def test_an_unexpected_load_error_still_fails_at_the_key_that_names_the_files(
    tmp_path: Path,
) -> None:
    path = _project(tmp_path)
    with pytest.raises(ScenarioFileError) as caught:
        load_file(path)
    [problem] = caught.value.problems
    assert (problem.line, problem.field) == (2, "agent_types_dir")
    assert "missing YAML frontmatter" in problem.message
    assert "skip_invalid" in problem.message
    assert "expect.error" in problem.message


def test_an_error_of_another_kind_fails_the_scenario_at_the_expectation_line(
    tmp_path: Path,
) -> None:
    path = _project(tmp_path, "expect:\n  error: {type: RunError}\n")
    result = run_scenario(load_file(path)[0])
    assert not result.passed
    [mismatch] = result.mismatches
    assert (mismatch.field, mismatch.line) == ("expect.error.type", 9)
    report = result.render_failure()
    assert f"\n{path}:2: agent_types_dir: raised while loading: AgentDefinitionError: " in report


def test_a_message_that_does_not_match_fails_the_scenario(tmp_path: Path) -> None:
    path = _project(tmp_path, "expect:\n  error: {match: 'no system prompt'}\n")
    result = run_scenario(load_file(path)[0])
    assert [m.field for m in result.mismatches] == ["expect.error.match"]


def test_a_missing_definition_directory_is_an_error_a_scenario_can_expect(
    tmp_path: Path,
) -> None:
    text = SCENARIO + "expect:\n  error: {type: ConfigurationError, match: no such directory}\n"
    assert run_scenario(load_file(write(tmp_path, text))[0]).passed


def test_several_failed_files_are_one_error_naming_each(tmp_path: Path) -> None:
    path = _project(
        tmp_path,
        "expect:\n  error: {type: AgentDefinitionError}\n",
        **{"other.md": "---\nname: other\ndescription: d\n---\n"},
    )
    error = run_scenario(load_file(path)[0]).error
    assert isinstance(error, AgentDefinitionError)
    assert "broken.md" in str(error)
    assert "no system prompt body" in str(error)


def test_a_type_the_failed_file_may_define_is_not_also_reported_undefined(
    tmp_path: Path,
) -> None:
    path = _project(tmp_path, "expect:\n  error: {type: AgentDefinitionError}\n")
    path.write_text(path.read_text().replace("[explore]", "[broken]"), encoding="utf-8")
    assert run_scenario(load_file(path)[0]).passed


def test_a_matrix_variant_that_expects_no_error_keeps_the_load_error_for_the_file(
    tmp_path: Path,
) -> None:
    variants = (
        "expect:\n  error: {type: AgentDefinitionError}\n"
        "matrix:\n  - id: raises\n  - id: quiet\n    unset: [expect.error]\n"
    )
    with pytest.raises(ScenarioFileError) as caught:
        load_file(_project(tmp_path, variants))
    [problem] = caught.value.problems
    assert problem.field == "agent_types_dir"
    assert problem.message.endswith("matrix variant 'quiet' expects no error")


def test_every_variant_expecting_the_error_carries_it(tmp_path: Path) -> None:
    variants = (
        "expect:\n  error: {type: AgentDefinitionError}\n"
        "matrix:\n  - id: a\n  - id: b\n    expect: {error: {match: frontmatter}}\n"
    )
    loaded = load_file(_project(tmp_path, variants))
    assert [s.id for s in loaded] == ["s[a]", "s[b]"]
    assert all(run_scenario(s).passed for s in loaded)


def test_a_scenario_with_a_load_error_never_reaches_the_runtime(tmp_path: Path) -> None:
    class Refusing:
        def run(self, scenario: object, *, observers: object) -> ScenarioRun:
            raise AssertionError("the runtime must not run a scenario that failed to load")

    path = _project(tmp_path, "expect:\n  error: {type: AgentDefinitionError}\n")
    assert run_scenario(load_file(path)[0], runtime=Refusing()).passed


def test_other_scenarios_of_the_file_are_unaffected_by_a_deferred_load_error(
    tmp_path: Path,
) -> None:
    _project(tmp_path)
    text = (
        "scenarios:\n"
        "  - scenario: a\n    agent_types_dir: agents/\n"
        "    agents: {main: {dispatcher: {agent_types: [explore]}, model: {script: [done]}}}\n"
        "    run: [go]\n    expect: {error: {type: AgentDefinitionError}}\n"
        "  - scenario: b\n    agents: {main: {model: {script: [done]}}}\n"
        "    run: [go]\n    expect: {output: done}\n"
    )
    a, b = load_file(write(tmp_path, text, "two.yaml"))
    assert a.load_error is not None
    assert b.load_error is None
    assert run_scenario(a).passed
    assert run_scenario(b).passed


def test_the_bundled_scenario_expecting_a_definition_loading_error_passes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = BUNDLED / "sophi" / "definition_load_error.yaml"
    assert main(["run", str(path)]) == 0
    [scenario] = load_file(path)
    assert isinstance(scenario.load_error, ConfigurationError)
