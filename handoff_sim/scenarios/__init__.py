"""Declarative scenario files (YAML): load, validate with file:line errors, run, check.

    from handoff_sim.scenarios import load_path, run_scenario, render_failure

    for scenario in load_path("scenarios/"):
        result = run_scenario(scenario)
        if not result.passed:
            print(render_failure(result))

The format is documented in docs/scenarios.md; ``scenario_json_schema()`` exports it.
The phases (``_schema``, ``_load``, ``_build``, ``_run``, ``_expect``) are private: the
names below are the documented ones and those the command, the plugin, the adapters,
the recorder and the report build on.
"""

import typing as _typing

from handoff_sim._moved import moved_names as _moved_names
from handoff_sim.scenarios._errors import Problem, ScenarioFileError
from handoff_sim.scenarios._load import LoadedScenario, load_dict, load_file, load_path, load_text
from handoff_sim.scenarios._run import (
    ScenarioResult,
    ScenarioRun,
    ScenarioRuntime,
    render_failure,
    run_scenario,
)
from handoff_sim.scenarios._schema import ScenarioSpec, scenario_json_schema

__all__ = [
    "LoadedScenario",
    "Problem",
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


if not _typing.TYPE_CHECKING:
    __getattr__ = _moved_names(
        __name__,
        {
            "ScenarioError": "handoff_sim.errors",
        },
    )
