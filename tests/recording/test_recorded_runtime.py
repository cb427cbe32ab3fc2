"""A recording replays on the runtime it was recorded on, whichever runtime was chosen."""

from __future__ import annotations

from pathlib import Path

import pytest

from handoff_sim.adapters import ScenarioNotApplicable, runtime_factory
from handoff_sim.adapters._recorded_runtime import runtime_for
from handoff_sim.cli import main
from handoff_sim.scenarios import load_text
from tests._helpers import needs_extra

BUNDLED = Path(__file__).parents[2] / "scenarios" / "recordings" / "slow_subagent_what_if.yaml"


def _recorded_on(runtime: str) -> str:
    text = BUNDLED.read_text(encoding="utf-8")
    assert "runtime: handoff-sim" in text
    return text.replace("runtime: handoff-sim", f"runtime: {runtime}", 1)


def test_R4_a_recording_made_on_our_runtime_runs_on_it_when_no_runtime_is_chosen() -> None:
    (scenario,) = load_text(BUNDLED.read_text(encoding="utf-8"), BUNDLED)[:1]
    assert runtime_for(scenario, "handoff-sim", None, []) is None


@needs_extra("pydantic-ai", "pydantic_ai")
def test_R4_a_recording_made_on_our_runtime_is_not_applicable_on_a_framework() -> None:
    (scenario,) = load_text(BUNDLED.read_text(encoding="utf-8"), BUNDLED)[:1]
    with pytest.raises(ScenarioNotApplicable, match="recording made on handoff-sim"):
        runtime_for(scenario, "pydantic-ai", runtime_factory("pydantic-ai"), [])


@needs_extra("pydantic-ai", "pydantic_ai")
def test_R4_a_framework_recording_runs_on_its_framework_when_no_runtime_is_chosen() -> None:
    (scenario,) = load_text(_recorded_on("pydantic-ai"), "rec.yaml")[:1]
    factory = runtime_factory("pydantic-ai")
    assert factory is not None
    runtime = runtime_for(scenario, "handoff-sim", None, [])
    assert type(runtime) is type(factory([]))


@needs_extra("openai-agents", "agents")
def test_R4_a_framework_recording_is_not_applicable_on_another_framework() -> None:
    (scenario,) = load_text(_recorded_on("pydantic-ai"), "rec.yaml")[:1]
    with pytest.raises(ScenarioNotApplicable, match="--runtime pydantic-ai"):
        runtime_for(scenario, "openai-agents", runtime_factory("openai-agents"), [])


@needs_extra("pydantic-ai", "pydantic_ai")
def test_R4_the_command_reports_a_recording_of_another_runtime_as_not_applicable(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["run", str(BUNDLED), "--runtime", "pydantic-ai"])
    out = capsys.readouterr().out
    assert "N/A" in out
    assert "recording made on handoff-sim" in out
    assert "PASS" not in out
