"""A recording run as a scenario on a framework's runtime: recorded steps no request used
fail it, naming the agent and the step, as on handoff-sim's own runtime.

Each file is recorded from a framework agent whose "real" model is one of handoff-sim's
fakes behind the adapter's ``SimModel``; then a step nobody will ask for is added.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from handoff_sim.adapters import runtime_factory
from handoff_sim.cli import main
from handoff_sim.errors import UnusedRecordingError
from handoff_sim.recording import record
from handoff_sim.scenarios import run_scenario
from handoff_sim.testing import ScriptedModel
from tests._helpers import needs_extra


def _openai_agents(path: Path) -> None:
    from agents import Agent, Runner

    from handoff_sim.adapters.openai_agents import SimModel

    helper = Agent(name="helper", model=SimModel(ScriptedModel(["an answer"])))
    with record(helper, path):
        asyncio.run(Runner.run(helper, "a question"))


def _pydantic_ai(path: Path) -> None:
    from pydantic_ai import Agent

    from handoff_sim.adapters.pydantic_ai import SimModel

    helper = Agent(SimModel(ScriptedModel(["an answer"])), name="helper")
    with record(helper, path):
        asyncio.run(helper.run("a question"))


FRAMEWORKS = [
    pytest.param("openai-agents", _openai_agents, marks=needs_extra("openai-agents", "agents")),
    pytest.param("pydantic-ai", _pydantic_ai, marks=needs_extra("pydantic-ai", "pydantic_ai")),
]


def _with_a_step_nobody_asks_for(path: Path) -> None:
    document: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    document["agents"]["helper"]["model"]["script"].append({"text": "never asked"})
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")


@pytest.mark.parametrize(("framework", "recorded"), FRAMEWORKS)
def test_recorded_steps_left_unused_fail_the_scenario_on_the_framework_runtime(
    framework: str, recorded: Callable[[Path], None], tmp_path: Path
) -> None:
    path = tmp_path / "helper.yaml"
    recorded(path)
    make = runtime_factory(framework)
    assert make is not None
    assert run_scenario(path, runtime=make(())).passed  # as recorded, every step is used

    _with_a_step_nobody_asks_for(path)
    result = run_scenario(path, runtime=make(()))
    assert not result.passed
    (found,) = [m for m in result.mismatches if m.kind == "recording"]
    assert isinstance(found.actual, UnusedRecordingError)
    assert (found.actual.agent, found.actual.unused_steps) == ("helper", [2])


@pytest.mark.parametrize(("framework", "recorded"), FRAMEWORKS)
def test_the_run_command_on_a_framework_names_the_agent_and_the_unused_step(
    framework: str,
    recorded: Callable[[Path], None],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "helper.yaml"
    recorded(path)
    _with_a_step_nobody_asks_for(path)
    capsys.readouterr()
    assert main(["run", "--runtime", framework, str(path)]) == 1
    out = capsys.readouterr().out
    assert "agent 'helper' has 1 unused step(s) of 2: step(s) 2" in out
