"""Phase 4: run a built scenario's turns (on the default runtime or a plugin's) and check it."""

from handoff_sim.scenarios._run._runner import (
    ScenarioResult,
    expected_events,
    render_failure,
    run_scenario,
)
from handoff_sim.scenarios._run._runtime import DefaultRuntime, ScenarioRun, ScenarioRuntime

__all__ = [
    "DefaultRuntime",
    "ScenarioResult",
    "ScenarioRun",
    "ScenarioRuntime",
    "expected_events",
    "render_failure",
    "run_scenario",
]
