"""The runner: builds the runtime from a scenario, runs every turn in virtual time (Y1, E6, T5)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

import handoff_sim
from handoff_sim import ModelRequest, ModelResponse, Trace
from handoff_sim.errors import ScenarioError
from handoff_sim.events import Event
from handoff_sim.scenarios import (
    LoadedScenario,
    ScenarioRun,
    ScenarioRuntime,
    load_dict,
    load_path,
    render_failure,
    run_scenario,
)

from ._util import BUNDLED, delegation, write

SUITE = load_path(BUNDLED)


@pytest.mark.parametrize("scenario", SUITE, ids=[s.id for s in SUITE])
def test_bundled_scenario_passes_against_the_real_runtime(scenario: LoadedScenario) -> None:
    result = run_scenario(scenario)
    assert result.passed, render_failure(result)


def test_bundled_suite_covers_every_ai4j_case() -> None:
    assert len(SUITE) >= 30
    assert {"retries-with-timeouts", "multi-turn-reuse-session", "parallel-mixed-outcomes"} <= {
        s.name for s in SUITE
    }


def test_run_builds_agents_and_returns_trace_outputs_and_virtual_time() -> None:
    result = run_scenario(delegation(expect={"output": "done", "elapsed": "1s"}))
    assert result.passed
    assert result.outputs == ["done"]
    assert result.error is None
    assert result.elapsed_ms == 1000
    [record] = result.trace.handoffs()
    assert (record.tool, record.status, record.depth) == ("delegate_review", "completed", 1)


def test_turns_share_the_top_agent_session_and_one_timeline() -> None:
    data = delegation(
        agents={"bot": {"model": {"script": [{"text": "one", "latency": "1s"}, {"text": "two"}]}}},
        run=[
            {"input": "hi", "expect": {"output": "one"}},
            {"input": "again", "expect": {"output": "two"}},
        ],
    )
    result = run_scenario(data)
    assert result.passed, render_failure(result)
    starts = result.trace.of_type("run_start")
    assert [e.t for e in starts] == [0.0, 1.0]
    assert len({e.session_id for e in starts}) == 1
    second_request = result.trace.of_type("model_request")[1]
    assert second_request.messages == 3  # turn 2 sees turn 1


def test_an_error_stops_the_remaining_turns() -> None:
    data = delegation(
        agents={"bot": {"model": {"script": [{"error": "down"}, {"text": "never"}]}}},
        run=["first", "second"],
        expect={"error": {"type": "SimulatedModelError", "match": "down"}},
    )
    result = run_scenario(data)
    assert result.passed, render_failure(result)
    assert result.outputs == []
    assert len(result.trace.of_type("run_start")) == 1


def test_same_scenario_and_seed_give_byte_identical_traces() -> None:
    """E6: ids, order and times are the same on every run."""
    [scenario] = load_path(BUNDLED / "ai4j" / "parallel_mixed_outcomes.yaml")
    first, second = run_scenario(scenario), run_scenario(scenario)
    assert first.trace.to_jsonl() == second.trace.to_jsonl()
    other_seed = run_scenario(delegation(seed=99))
    assert "session-" in other_seed.trace.to_jsonl()


def test_observers_see_every_event() -> None:
    seen: list[str] = []

    class Recorder:
        @handoff_sim.hookimpl
        def handoff_sim_event(self, event: Event) -> None:
            seen.append(event.type)

    result = run_scenario(delegation(), observers=[Recorder()])
    assert seen == [e.type for e in result.trace]


class _EchoModel:
    model_name = "echo"

    async def complete(self, request: ModelRequest) -> ModelResponse:
        return ModelResponse(text=f"echo: {request.messages[-1].content}")


def test_model_factories_build_model_kinds_the_runner_does_not_know() -> None:
    asked: list[tuple[str, dict[str, Any]]] = []

    def not_mine(agent: str, spec: dict[str, Any]) -> None:
        asked.append((agent, spec))

    def echo(agent: str, spec: dict[str, Any]) -> _EchoModel | None:
        return _EchoModel() if spec["kind"] == "echo" else None

    data = delegation(agents={"bot": {"model": {"kind": "echo", "flavour": 1}}})
    result = run_scenario(data, model_factories=[not_mine, echo])
    assert result.outputs == ["echo: go"]
    assert asked == [("bot", {"kind": "echo", "flavour": 1})]


def test_unknown_model_kind_without_factory_names_file_and_line(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        scenario: s
        agents:
          bot:
            model: {kind: replay}
        run: [go]
        """,
    )
    with pytest.raises(
        ScenarioError, match=r"scenario\.yaml:4: agents\.bot\.model: no model factory"
    ):
        run_scenario(path)


def test_adversarial_model_is_built_from_the_testing_package() -> None:
    data = delegation(
        agents={"bot": {"model": {"adversarial": {"seed": 1, "behaviours": ["empty_response"]}}}}
    )
    result = run_scenario(data)
    assert not result.trace.unbalanced()


def test_construction_errors_are_outcomes_a_scenario_can_expect() -> None:
    data = delegation(
        agents={
            "m": {
                "model": {"script": ["x"]},
                "subagents": [{"agent": "a", "name": "A b"}, {"agent": "a", "name": "a-b"}],
            },
            "a": {"model": {"script": ["y"]}},
        },
        expect={"error": {"type": "ConfigurationError", "match": "subagent_a_b"}},
    )
    assert run_scenario(data).passed


class _FixedRuntime:
    """A stand-in framework: always answers 'other' without any handoff."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int]] = []

    def run(self, scenario: LoadedScenario, *, observers: Sequence[object]) -> ScenarioRun:
        self.calls.append((scenario.id, len(observers)))
        return ScenarioRun(trace=Trace(), outputs=["other"], error=None, elapsed_ms=0.0)


def test_a_custom_runtime_is_checked_against_the_same_expectations() -> None:
    """T5: the scenario suite can test another framework."""
    runtime = _FixedRuntime()
    assert isinstance(runtime, ScenarioRuntime)
    result = run_scenario(
        delegation(expect={"output": "done"}), runtime=runtime, observers=[object()]
    )
    assert runtime.calls == [("delegation", 1)]
    assert not result.passed
    assert [m.kind for m in result.mismatches] == ["output"]


def test_run_scenario_refuses_a_source_holding_several_scenarios(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        scenario: s
        agents: {m: {model: {script: [x]}}}
        run: [go]
        matrix: [{id: a}, {id: b}]
        """,
    )
    with pytest.raises(ScenarioError, match=r"holds 2 \(s\[a\], s\[b\]\)"):
        run_scenario(path)
    assert [run_scenario(s).passed for s in load_dict({"scenarios": [delegation()]})] == [True]


def test_a_model_spec_its_model_refuses_is_a_scenario_error_with_location() -> None:
    data = delegation(agents={"bot": {"model": {"adversarial": {"behaviours": ["no-such"]}}}})
    with pytest.raises(ScenarioError, match=r"<dict>:\d+: agents\.bot\.model: .*no-such"):
        run_scenario(data)
