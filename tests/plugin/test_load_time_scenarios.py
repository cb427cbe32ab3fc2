"""Issue 14, items 1 and 2 under pytest: a scenario that expects the error its agent
definition files raise while loading is a passing item, an unexpected one is a collection
error at file:line; a matrix variant's ``unset`` drops an inherited expectation."""

from __future__ import annotations

import pytest

from tests.plugin.conftest import Write

SCENARIO = """\
scenario: defs
agent_types_dir: agents/
agents:
  main:
    dispatcher: {agent_types: [explore]}
    model: {script: [done]}
run: [go]
"""


def _agents(pytester: pytest.Pytester) -> None:
    folder = pytester.path / "scenarios" / "agents"
    folder.mkdir(parents=True)
    (folder / "broken.md").write_text("no front matter\n", encoding="utf-8")


def test_an_expected_definition_loading_error_is_a_passing_item(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    _agents(pytester)
    expect = "expect:\n  error: {type: AgentDefinitionError, match: 'frontmatter: .*broken'}\n"
    write_scenario("defs.yaml", SCENARIO + expect)
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios", "-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*defs.yaml::defs PASSED*"])


def test_an_unexpected_definition_loading_error_is_a_collection_error_at_its_line(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    _agents(pytester)
    write_scenario("defs.yaml", SCENARIO)
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "scenarios/defs.yaml:2:1: agent_types_dir: "
            "Agent definition file is missing YAML frontmatter*"
        ]
    )
    assert "Traceback" not in result.stdout.str()


def test_a_load_error_of_another_kind_fails_the_item_at_the_expectation(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    _agents(pytester)
    write_scenario("defs.yaml", SCENARIO + "expect:\n  error: {type: RunError}\n")
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*scenarios/defs.yaml:9: expect.error.type: expected error type RunError*",
            "scenarios/defs.yaml:2: agent_types_dir: raised while loading: AgentDefinitionError: *",
        ]
    )


def test_a_variant_that_unsets_the_inherited_output_passes(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario(
        "unset.yaml",
        """\
        scenario: u
        agents:
          manager:
            policy: {denied_tools: [delegate_w], on_denied: report_to_model}
            model:
              script:
                - tool_calls: [{id: c1, name: delegate_w, arguments: {task: x}}]
                - done
            subagents: [{agent: w, tool_name: delegate_w}]
          w: {model: {script: [ok]}}
        run: [go]
        expect: {output: done}
        matrix:
          - id: report
          - id: fail
            policies: {manager: {on_denied: fail}}
            unset: [expect.output]
            expect: {error: {type: HandoffDeniedError}}
          - id: inherits
            policies: {manager: {on_denied: fail}}
            expect: {error: {type: HandoffDeniedError}}
        """,
    )
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios", "-v")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        ["*u[[]report[]] PASSED*", "*u[[]fail[]] PASSED*", "*u[[]inherits[]] FAILED*"]
    )
