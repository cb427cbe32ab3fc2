"""Scenario delegations reach a framework in its own shape (conformance on what users write)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from handoff_sim.adapters._scenario_runtime import native_arguments
from tests.adapters._extras import installed, needs


def test_a_scenarios_task_and_context_become_the_frameworks_one_parameter() -> None:
    arguments = json.dumps({"task": "review", "context": "main.py"})
    assert json.loads(native_arguments(arguments, "input")) == {
        "input": "review\n\nContext:\nmain.py"
    }
    assert json.loads(native_arguments('{"task": "review"}', "task")) == {"task": "review"}


@pytest.mark.parametrize(
    "arguments",
    ["{}", '{"input": "x"}', '{"task": "x", "extra": 1}', '{"task": 3}', "not json", "[1]"],
)
def test_other_delegation_arguments_reach_the_framework_unchanged(arguments: str) -> None:
    assert native_arguments(arguments, "input") == arguments


SCENARIO = """
scenarios:
  - scenario: native-shape
    agents:
      manager:
        model:
          script:
            - tool_calls:
                - {id: d1, name: subagent_reviewer, arguments: {task: review, context: main.py}}
            - text: done
        subagents: [reviewer]
      reviewer:
        model:
          script:
            - {text: looks fine, expect: {input_contains: "review\\n\\nContext:\\nmain.py"}}
    run: [{input: go}]
    expect: {output: done}
"""


@pytest.mark.parametrize(
    ("runtime", "module", "key"),
    [("openai-agents", "agents", "input"), ("pydantic-ai", "pydantic_ai", "task")],
)
def test_a_scenario_delegation_runs_on_the_frameworks_own_parameter(
    tmp_path: Path, runtime: str, module: str, key: str
) -> None:
    if not installed(module):
        pytest.skip(needs(runtime))
    from handoff_sim.adapters import runtime_factory
    from handoff_sim.scenarios import load_path, run_scenario

    path = tmp_path / "native.yaml"
    path.write_text(textwrap.dedent(SCENARIO), encoding="utf-8")
    [scenario] = load_path(path)
    factory = runtime_factory(runtime)
    assert factory is not None
    result = run_scenario(scenario, runtime=factory(()))
    assert result.passed, result.mismatches
    [start] = [e for e in result.trace.events if e.type == "tool_start"]
    assert json.loads(start.arguments) == {key: "review\n\nContext:\nmain.py"}
