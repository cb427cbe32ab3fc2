"""Declarative scenario files (YAML): load, validate with file:line errors, run, check.

    from handoff_sim.scenarios import load_path, run_scenario, render_failure

    for scenario in load_path("scenarios/"):
        result = run_scenario(scenario)
        if not result.passed:
            print(render_failure(result))

The format is documented in docs/scenarios.md; ``scenario_json_schema()`` exports it.
"""

from handoff_sim.scenarios._errors import Problem, ScenarioError, ScenarioFileError
from handoff_sim.scenarios.build._agents import ModelFactory
from handoff_sim.scenarios.expect._check import Mismatch
from handoff_sim.scenarios.load._loader import (
    LoadedScenario,
    load_dict,
    load_file,
    load_path,
    load_text,
)
from handoff_sim.scenarios.run._runner import ScenarioResult, render_failure, run_scenario
from handoff_sim.scenarios.run._runtime import DefaultRuntime, ScenarioRun, ScenarioRuntime
from handoff_sim.scenarios.schema._jsonschema import scenario_json_schema
from handoff_sim.scenarios.schema._scenario import ScenarioSpec

__all__ = [
    "DefaultRuntime",
    "LoadedScenario",
    "Mismatch",
    "ModelFactory",
    "Problem",
    "ScenarioError",
    "ScenarioFileError",
    "ScenarioResult",
    "ScenarioRun",
    "ScenarioRuntime",
    "ScenarioSpec",
    "load_dict",
    "load_file",
    "load_path",
    "load_text",
    "render_failure",
    "run_scenario",
    "scenario_json_schema",
]
