"""The data-driven fakes on the framework runtimes: the adapters build the same fake tools
(answers, a sequence, a default) and stubs from a scenario file, and report each tool
run's arguments."""

from __future__ import annotations

from pathlib import Path

import pytest

from handoff_sim.adapters import runtime_factory
from handoff_sim.scenarios import LoadedScenario, load_file, run_scenario
from tests._helpers import needs_extra

BUNDLED = Path(__file__).resolve().parents[2] / "scenarios" / "trajectories"
FILES = ["fake_tools.yaml", "stubs.yaml"]
RUNTIMES = [
    pytest.param("openai-agents", marks=needs_extra("openai-agents", "agents")),
    pytest.param("pydantic-ai", marks=needs_extra("pydantic-ai", "pydantic_ai")),
]


def _scenarios() -> list[LoadedScenario]:
    """The fakes' scenarios, and the tool runs counted by arguments."""
    found = [s for name in FILES for s in load_file(BUNDLED / name)]
    return found + [s for s in load_file(BUNDLED / "bounds.yaml") if s.name == "tool-runs-bounds"]


@pytest.mark.slow
@pytest.mark.parametrize("runtime", RUNTIMES)
def test_the_bundled_fakes_stubs_and_tool_runs_pass_on_a_framework(runtime: str) -> None:
    """Slow on purpose (about 2 s each): seven scenarios run on a framework's own loop.

    The rest of scenarios/trajectories/ runs there through docs/conformance.md."""
    make = runtime_factory(runtime)
    assert make is not None
    failed = {}
    for scenario in _scenarios():
        result = run_scenario(scenario, runtime=make(()))
        if not result.passed:
            failed[scenario.id] = [m.format() for m in result.mismatches]
    assert failed == {}
