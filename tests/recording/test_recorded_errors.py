"""A model error a recording holds replays as the same error: a built-in keeps its type."""

from __future__ import annotations

from pathlib import Path

import pytest

from handoff_sim import Agent, SubAgent, simulate
from handoff_sim.errors import ScenarioError
from handoff_sim.recording import record, replay
from handoff_sim.scenarios import load_text, run_scenario
from handoff_sim.testing import FunctionModel, ScriptedModel, SimulatedModelError


def _tree(billing_error: Exception) -> Agent:
    calls = iter([billing_error])

    def billing(request: object) -> object:
        return next(calls, "billed")

    return Agent(
        name="manager",
        model=ScriptedModel(
            [
                {"tool_calls": [{"id": "c1", "name": "billing", "arguments": {"task": "bill"}}]},
                "done",
            ]
        ),
        subagents=[
            SubAgent(
                name="billing",
                description="bills",
                agent=Agent(name="billing", model=FunctionModel(billing)),
            )
        ],
    )


@pytest.mark.parametrize(
    "error", [RuntimeError("provider down"), KeyError("account"), SimulatedModelError("429")]
)
def test_R2_a_recorded_model_error_replays_as_the_same_error_in_the_trace(
    tmp_path: Path, error: Exception
) -> None:
    path = tmp_path / "rec.yaml"
    live_tree = _tree(error)
    with record(live_tree, path):
        recorded = simulate(live_tree, "go")
    live = recorded.trace.to_jsonl()
    tree = _tree(error)
    with replay(tree, path):
        replayed = simulate(tree, "go")
    assert replayed.trace.to_jsonl() == live
    assert run_scenario(path).passed


def test_R2_a_step_error_with_a_type_raises_that_built_in() -> None:
    text = """
scenario: typed-error
agents:
  a:
    model:
      script:
        - error: {type: TimeoutError, message: upstream slow}
run: [go]
expect:
  error: {type: TimeoutError, match: upstream slow}
"""
    assert run_scenario(load_text(text, "typed.yaml")[0]).passed


def test_R2_a_step_error_type_outside_the_built_ins_is_refused_at_load() -> None:
    text = """
scenario: bad-error
agents:
  a:
    model:
      script:
        - error: {type: SystemExit, message: bye}
run: [go]
"""
    with pytest.raises(ScenarioError, match=r"typed\.yaml:7"):
        load_text(text, "typed.yaml")


def test_the_errors_a_file_may_name_are_one_list_for_steps_tools_and_the_schema() -> None:
    from typing import get_args

    from handoff_sim.recording._fakes import RAISABLE as WRITTEN
    from handoff_sim.scenarios._schema import RaisesSpec
    from handoff_sim.testing._steps import RAISABLE

    assert get_args(RaisesSpec.model_fields["type"].annotation) == RAISABLE
    assert frozenset(RAISABLE) == WRITTEN
