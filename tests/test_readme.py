"""The README's examples run as written (docs examples are tests, pydantic-ai style)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_readme_first_example_runs_and_prints_the_trace(
    capsys: pytest.CaptureFixture[str],
) -> None:
    exec(compile(_blocks("python")[0], str(README), "exec"), {})
    assert "handoff_start" in capsys.readouterr().out


# What the README's "your real graph" stands for: a small tree built by the project's code.
MYAPP_AGENTS = """
from handoff_sim import Agent, SubAgent
from handoff_sim.testing import ScriptedModel

def build_triage():
    billing = Agent(name="billing", model=ScriptedModel(["real billing answer"]))
    return Agent(
        name="triage",
        model=ScriptedModel(["real triage answer"]),
        subagents=[SubAgent(name="billing", description="Billing questions", agent=billing)],
    )
"""


def _test_examples() -> list[str]:
    return [b for b in _blocks("python") if "def test_" in b and "handoff_recording" not in b]


@pytest.mark.parametrize("index", [0, 1])
def test_readme_test_examples_pass_under_the_plugin(pytester: pytest.Pytester, index: int) -> None:
    examples = _test_examples()
    assert len(examples) == 2
    pytester.mkpydir("myapp")
    pytester.path.joinpath("myapp", "agents.py").write_text(MYAPP_AGENTS, encoding="utf-8")
    pytester.makepyfile(test_example=examples[index])
    pytester.runpytest_inprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)


@pytest.mark.parametrize("source", _blocks("yaml"))
def test_readme_scenario_example_passes(source: str, tmp_path: Path) -> None:
    from handoff_sim.scenarios import load_file, run_scenario

    path = tmp_path / "example.yaml"
    path.write_text(source, encoding="utf-8")
    [scenario] = load_file(path)
    result = run_scenario(scenario)
    assert result.passed, [m.message for m in result.mismatches]


# The recording example's "real" graph: a model that answers as the provider would.
MYAPP_REFUNDS = """
from handoff_sim import Agent
from handoff_sim.testing import FunctionModel

def build_triage():
    return Agent(name="triage", model=FunctionModel(lambda request: "Refunded order 42."))
"""


def test_readme_recording_example_records_once_then_replays_in_ci(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CI", raising=False)
    [example] = [b for b in _blocks("python") if "handoff_recording" in b]
    pytester.mkpydir("myapp")
    pytester.path.joinpath("myapp", "agents.py").write_text(MYAPP_REFUNDS, encoding="utf-8")
    pytester.makepyfile(test_refund=example)
    recorded = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--handoff-record-mode=once")
    recorded.assert_outcomes(passed=1)
    path = pytester.path / "recordings" / "test_refund" / "test_refund_is_delegated.yaml"
    assert path.is_file()
    written = path.read_bytes()
    monkeypatch.setenv("CI", "true")
    replayed = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    replayed.assert_outcomes(passed=1)
    assert path.read_bytes() == written


_FRAMEWORKS = {"openai_agents": "agents", "langgraph": "langgraph"}


@pytest.mark.parametrize("adapter", sorted(_FRAMEWORKS))
def test_readme_framework_examples_run_as_written(adapter: str) -> None:
    blocks = [
        b
        for b in _blocks("python")
        if f"handoff_sim.adapters.{adapter} import" in b and "def test_" not in b
    ]
    assert blocks, f"the README lost its {adapter} example"
    pytest.importorskip(_FRAMEWORKS[adapter], reason=f"the {adapter} example needs its extra")
    for block in blocks:
        exec(compile(block, str(README), "exec"), {})
