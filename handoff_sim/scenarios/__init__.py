"""Declarative scenario files (YAML): load, validate with file:line errors, run, check.

    from handoff_sim.scenarios import load_path, run_scenario, render_failure

    for scenario in load_path("scenarios/"):
        result = run_scenario(scenario)
        if not result.passed:
            print(render_failure(result))

The format is documented in docs/scenarios.md; ``scenario_json_schema()`` exports it.
"""

from handoff_sim.scenarios._errors import Problem, ScenarioError, ScenarioFileError
from handoff_sim.scenarios.build import ModelFactory
from handoff_sim.scenarios.expect import Mismatch
from handoff_sim.scenarios.load import LoadedScenario, load_dict, load_file, load_path, load_text
from handoff_sim.scenarios.run import (
    DefaultRuntime,
    ScenarioResult,
    ScenarioRun,
    ScenarioRuntime,
    render_failure,
    run_scenario,
)
from handoff_sim.scenarios.schema import ScenarioSpec, scenario_json_schema

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
