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

from handoff_sim.scenarios._build import (
    BuildContext,
    CatchAllExecutor,
    ModelFactory,
    RecordedAnswers,
    ToolRuns,
    build_entry_agent,
    build_models,
    build_policy,
    build_type_models,
    fake_tool,
    model_kind_problems,
    unused_recorded_steps,
)
from handoff_sim.scenarios._errors import Problem, ScenarioError, ScenarioFileError
from handoff_sim.scenarios._expect import Mismatch, check_expectations, describe_error, show
from handoff_sim.scenarios._load import (
    Discovery,
    FieldPath,
    LoadedScenario,
    ParsedYaml,
    discover,
    dotted,
    load_agent_types,
    load_dict,
    load_file,
    load_path,
    load_text,
    output_problems,
    parse_yaml,
)
from handoff_sim.scenarios._run import (
    DefaultRuntime,
    ScenarioResult,
    ScenarioRun,
    ScenarioRuntime,
    expected_events,
    render_failure,
    run_scenario,
)
from handoff_sim.scenarios._schema import (
    RECORDING_FORMAT,
    AgentSpec,
    MatchMode,
    PolicySpec,
    RaisesSpec,
    ScenarioSpec,
    ScriptModelSpec,
    StepSpec,
    SubAgentSpec,
    VariantSpec,
    scenario_json_schema,
    tag_problem,
)

__all__ = [
    "RECORDING_FORMAT",
    "AgentSpec",
    "BuildContext",
    "CatchAllExecutor",
    "DefaultRuntime",
    "Discovery",
    "FieldPath",
    "LoadedScenario",
    "MatchMode",
    "Mismatch",
    "ModelFactory",
    "ParsedYaml",
    "PolicySpec",
    "Problem",
    "RaisesSpec",
    "RecordedAnswers",
    "ScenarioError",
    "ScenarioFileError",
    "ScenarioResult",
    "ScenarioRun",
    "ScenarioRuntime",
    "ScenarioSpec",
    "ScriptModelSpec",
    "StepSpec",
    "SubAgentSpec",
    "ToolRuns",
    "VariantSpec",
    "build_entry_agent",
    "build_models",
    "build_policy",
    "build_type_models",
    "check_expectations",
    "describe_error",
    "discover",
    "dotted",
    "expected_events",
    "fake_tool",
    "load_agent_types",
    "load_dict",
    "load_file",
    "load_path",
    "load_text",
    "model_kind_problems",
    "output_problems",
    "parse_yaml",
    "render_failure",
    "run_scenario",
    "scenario_json_schema",
    "show",
    "tag_problem",
    "unused_recorded_steps",
]
