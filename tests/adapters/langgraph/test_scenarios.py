"""Scenario files on LangGraph (``--runtime langgraph``): the same expectations, on create_agent."""

from __future__ import annotations

import functools
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests._helpers import import_extra

import_extra("langgraph", "langgraph")

from handoff_sim.adapters import ScenarioNotApplicable  # noqa: E402
from handoff_sim.adapters._conformance import DIFFERENCES  # noqa: E402
from handoff_sim.adapters._registry import runtime_factory  # noqa: E402
from handoff_sim.scenarios import LoadedScenario, load_dict, load_path, run_scenario  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]


def langgraph() -> Any:
    factory = runtime_factory("langgraph")
    assert factory is not None
    return factory(())


@functools.cache
def _bundled() -> dict[str, LoadedScenario]:
    return {s.id: s for s in load_path(ROOT / "scenarios")}


def one(document: dict[str, Any]) -> LoadedScenario:
    [scenario] = load_dict(document)
    return scenario


def delegation(tool: str, call_id: str) -> dict[str, Any]:
    return {"id": call_id, "name": tool, "arguments": {"task": "t"}}


@pytest.mark.parametrize(
    "scenario_id",
    [
        "parallel-subagents",  # two agents as tools in one turn, 250 ms each: 250 ms in all
        "retries-with-timeouts",  # 30 s x 3 attempts = 90 s virtual, each attempt cancelled
        "nested-max-depth",  # a nested delegation past max_depth is denied and ends the run
        "fallback-unavailable[denied]",  # a denied tool: "handoff unavailable: ..."
        "parallel-denial-cancels-siblings-in-call-order",
        "deadline-ends-every-open-handoff",
        "input-filter-rewrite",  # {task, context} reaches the filter as in handoff-sim
    ],
)
def test_bundled_scenarios_meet_the_same_expectations_on_langgraph(scenario_id: str) -> None:
    result = run_scenario(_bundled()[scenario_id], runtime=langgraph())
    assert result.passed, result.render_failure()


@pytest.mark.slow
def test_every_bundled_scenario_passes_is_not_applicable_or_fails_for_a_stated_reason() -> None:
    """About 2 s: the whole bundled suite (124 scenarios) on langgraph."""
    explained = {s for d in DIFFERENCES for s in d.exposed_by.get("langgraph", ())}
    failed: set[str] = set()
    reasons: dict[str, str] = {}
    for scenario in _bundled().values():
        try:
            result = run_scenario(scenario, runtime=langgraph())
        except ScenarioNotApplicable as exc:
            reasons[scenario.id] = exc.reason
            continue
        if not result.passed:
            failed.add(scenario.id)
    assert failed == explained
    assert reasons  # the SoPhi and Flink files, at least
    assert all(reasons.values())  # each skipped with a reason


def test_a_langgraph_scenario_run_is_deterministic() -> None:
    scenario = _bundled()["parallel-denial-cancels-siblings-in-call-order"]
    traces = {run_scenario(scenario, runtime=langgraph()).trace.to_jsonl() for _ in range(3)}
    assert len(traces) == 1


@pytest.mark.parametrize(("parallel", "elapsed"), [(True, "2s"), (False, "3s")])
def test_parallel_tool_calls_false_runs_the_calls_of_an_answer_one_after_the_other(
    parallel: bool, elapsed: str
) -> None:
    scenario = one(
        {
            "scenario": "sequential",
            "agents": {
                "boss": {
                    "parallel_tool_calls": parallel,
                    "model": {
                        "script": [
                            {"tool_calls": [delegation("ask_a", "a"), delegation("ask_b", "b")]},
                            "done",
                        ]
                    },
                    "subagents": [
                        {"agent": "a", "tool_name": "ask_a"},
                        {"agent": "b", "tool_name": "ask_b"},
                    ],
                },
                "a": {"model": {"script": [{"text": "A", "latency": "1s"}]}},
                "b": {"model": {"script": [{"text": "B", "latency": "2s"}]}},
            },
            "run": ["go"],
            "expect": {"output": "done", "elapsed": elapsed},
        }
    )
    result = run_scenario(scenario, runtime=langgraph())
    assert result.passed, result.render_failure()


def test_turns_continue_one_conversation_with_the_system_prompt() -> None:
    scenario = one(
        {
            "scenario": "two-turns",
            "tools": {"lookup": {"returns": "found", "latency": "1s"}},
            "agents": {
                "main": {
                    "tools": ["lookup"],
                    "system_prompt": "Be brief.",
                    "model": {
                        "script": [
                            {"tool_calls": [{"id": "l1", "name": "lookup", "arguments": {}}]},
                            {"text": "first", "expect": {"last_tool_result_contains": "found"}},
                            {
                                "text": "second",
                                "expect": {"input": "again", "system_prompt": "Be brief."},
                            },
                        ]
                    },
                }
            },
            "run": [{"input": "hello", "expect": {"output": "first"}}, "again"],
            "expect": {"output": "second", "elapsed": "1s", "tool_runs": {"lookup": 1}},
        }
    )
    result = run_scenario(scenario, runtime=langgraph())
    assert result.passed, result.render_failure()


def test_a_feature_langgraph_runs_lack_is_not_applicable_naming_it() -> None:
    scenario = one(
        {
            "scenario": "reuse",
            "agents": {
                "main": {
                    "model": {"script": ["x"]},
                    "subagents": [{"agent": "w", "session_mode": "reuse_session"}],
                },
                "w": {"model": {"script": ["y"]}},
            },
            "run": ["go"],
        }
    )
    with pytest.raises(ScenarioNotApplicable, match="reuse_session"):
        run_scenario(scenario, runtime=langgraph())


@pytest.mark.slow
def test_handoff_sim_run_runtime_langgraph_on_a_bundled_file() -> None:
    """About 2 s: a fresh process imports LangChain and LangGraph before the 90 s scenario."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "handoff_sim",
            "run",
            str(ROOT / "scenarios" / "ai4j" / "retries_with_timeouts.yaml"),
            "--runtime",
            "langgraph",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "passed" in done.stdout
