"""Scenario files on openai-agents and pydantic-ai: same expectations, not applicable, selection.

Against the real framework packages; each framework's cases skip, naming the extra,
when it is not installed.
"""

from __future__ import annotations

import functools
import textwrap
from pathlib import Path
from typing import Any

import pytest

from handoff_sim.adapters import ScenarioNotApplicable, runtime_factory
from handoff_sim.adapters._registry import RUNTIME_NAMES, UnknownRuntimeError
from handoff_sim.cli import main
from handoff_sim.scenarios import (
    LoadedScenario,
    ScenarioRuntime,
    load_dict,
    load_path,
    run_scenario,
)
from handoff_sim.testing import ScriptedModel
from tests.adapters._extras import hide, installed, needs

ROOT = Path(__file__).resolve().parents[2]


FRAMEWORKS = [
    pytest.param(
        "openai-agents",
        marks=pytest.mark.skipif(
            not installed("agents"),
            reason=needs("openai-agents"),
        ),
    ),
    pytest.param(
        "pydantic-ai",
        marks=pytest.mark.skipif(
            not installed("pydantic_ai"),
            reason=needs("pydantic-ai"),
        ),
    ),
]


def runtime(name: str, model_factories: Any = ()) -> ScenarioRuntime:
    factory = runtime_factory(name)
    assert factory is not None
    return factory(model_factories)


@functools.cache
def _bundled() -> dict[str, LoadedScenario]:
    return {s.id: s for s in load_path(ROOT / "scenarios")}


def bundled(scenario_id: str) -> LoadedScenario:
    return _bundled()[scenario_id]


def one(document: dict[str, Any]) -> LoadedScenario:
    [scenario] = load_dict(document)
    return scenario


def delegation(tool: str, task: str = "t", call_id: str = "c1") -> dict[str, Any]:
    return {"id": call_id, "name": tool, "arguments": {"task": task}}


# -- the same expectations on the framework ---------------------------------------------------


@pytest.mark.parametrize("framework", FRAMEWORKS)
@pytest.mark.parametrize(
    "scenario_id",
    [
        "parallel-subagents",  # two agents as tools in one turn, 250 ms each: 250 ms in all
        "retries-with-timeouts",  # 30 s x 3 attempts = 90 s virtual, each attempt cancelled
        "nested-max-depth",  # a nested delegation past max_depth is denied and ends the run
        "fallback-unavailable[denied]",  # a denied tool: "handoff unavailable: ..."
        "parallel-denial-cancels-siblings-in-call-order",
        "deadline-ends-every-open-handoff",
    ],
)
def test_bundled_scenarios_meet_the_same_expectations_on_the_framework(
    framework: str, scenario_id: str
) -> None:
    result = run_scenario(bundled(scenario_id), runtime=runtime(framework))
    assert result.passed, result.render_failure()


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_a_framework_scenario_run_is_deterministic(framework: str) -> None:
    scenario = bundled("parallel-denial-cancels-siblings-in-call-order")
    traces = {run_scenario(scenario, runtime=runtime(framework)).trace.to_jsonl() for _ in range(3)}
    assert len(traces) == 1


@pytest.mark.parametrize("framework", FRAMEWORKS)
@pytest.mark.parametrize(("parallel", "elapsed"), [(True, "2s"), (False, "3s")])
def test_parallel_tool_calls_false_runs_the_calls_of_a_turn_one_after_the_other(
    framework: str, parallel: bool, elapsed: str
) -> None:
    scenario = one(
        {
            "scenario": "sequential",
            "agents": {
                "boss": {
                    "parallel_tool_calls": parallel,
                    "model": {
                        "script": [
                            {
                                "tool_calls": [
                                    delegation("ask_a", call_id="a"),
                                    delegation("ask_b", call_id="b"),
                                ]
                            },
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
    result = run_scenario(scenario, runtime=runtime(framework))
    assert result.passed, result.render_failure()


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_turns_share_one_conversation_and_fake_tools_are_counted(framework: str) -> None:
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
    result = run_scenario(scenario, runtime=runtime(framework))
    assert result.passed, result.render_failure()
    assert [e.input for e in result.trace.of_type("run_start")] == ["hello", "again"]  # type: ignore[attr-defined]


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_observers_see_every_event_and_plugin_model_kinds_are_built(framework: str) -> None:
    seen: list[str] = []

    class Observer:
        from handoff_sim import hookimpl

        @hookimpl
        def handoff_sim_event(self, event: Any) -> None:
            seen.append(event.type)

    def factory(agent: str, spec: dict[str, Any]) -> ScriptedModel | None:
        return ScriptedModel([spec["say"]]) if spec["kind"] == "echo" else None

    scenario = one(
        {
            "scenario": "kinds",
            "agents": {"main": {"model": {"kind": "echo", "say": "hi"}}},
            "run": ["go"],
            "expect": {"output": "hi"},
        }
    )
    result = run_scenario(scenario, runtime=runtime(framework, [factory]), observers=[Observer()])
    assert result.passed, result.render_failure()
    assert seen == [e.type for e in result.trace]


# -- not applicable ------------------------------------------------------------------------


@pytest.mark.parametrize("framework", FRAMEWORKS)
@pytest.mark.parametrize(
    ("scenario_id", "reason"),
    [
        ("reuse-session-memory", "agents.manager.subagents.0.session_mode: reuse_session"),
        ("flink-json-result", "agents.main.subagents.0.style: a Flink-style sub-agent"),
        ("sophi-dispatcher-tool", "agent_types: the SoPhi style"),
        ("sophi-policy-approves-by-name", "agents.main.dispatcher: the SoPhi style"),
    ],
)
def test_a_feature_the_framework_lacks_is_not_applicable_with_the_reason(
    framework: str, scenario_id: str, reason: str
) -> None:
    with pytest.raises(ScenarioNotApplicable) as caught:
        runtime(framework).run(bundled(scenario_id), observers=())
    assert caught.value.runtime == framework
    assert caught.value.reason.startswith(reason)
    assert str(caught.value) == f"not applicable on {framework}: {caught.value.reason}"


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_a_catch_all_primary_executor_for_unoffered_names_is_not_applicable(
    framework: str,
) -> None:
    scenario = one(
        {
            "scenario": "catch-all",
            "agents": {
                "main": {
                    "tool_executor": {"returns": "served"},
                    "model": {
                        "script": [
                            {"tool_calls": [{"id": "x", "name": "anything", "arguments": {}}]},
                            "done",
                        ]
                    },
                }
            },
            "run": ["go"],
        }
    )
    with pytest.raises(ScenarioNotApplicable, match=r"agents\.main\.tool_executor: .*\(anything\)"):
        runtime(framework).run(scenario, observers=())


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_expected_sessions_are_not_applicable(framework: str) -> None:
    scenario = one(
        {
            "scenario": "sessions",
            "agents": {"main": {"model": {"script": ["hi"]}}},
            "run": ["go"],
            "expect": {"sessions": [{"agent": "main"}]},
        }
    )
    with pytest.raises(ScenarioNotApplicable, match=r"^not applicable on .*: expect\.sessions"):
        runtime(framework).run(scenario, observers=())


# -- selection by name -----------------------------------------------------------------------


def test_runtime_names_and_an_unknown_name() -> None:
    assert RUNTIME_NAMES == ("handoff-sim", "openai-agents", "pydantic-ai", "langgraph")
    assert runtime_factory("handoff-sim") is None
    with pytest.raises(UnknownRuntimeError, match="unknown runtime 'crewai' \\(choose one of"):
        runtime_factory("crewai")


FILES = {
    "ok.yaml": """\
        scenario: ok
        agents:
          boss:
            model: {script: [{tool_calls: [{id: c1, name: ask, arguments: {task: x}}]}, done]}
            subagents: [{agent: helper, tool_name: ask}]
          helper: {model: {script: [{text: fine, latency: 2s}]}}
        run: [go]
        expect: {output: done, elapsed: 2s, handoffs: [{tool: ask, status: completed}]}
        """,
    "flink.yaml": """\
        scenario: flinky
        agents:
          main:
            model: {script: [done]}
            subagents: [{agent: helper, style: flink, input_schema: {type: object}}]
          helper: {model: {script: [x]}}
        run: [go]
        """,
    "wrong.yaml": """\
        scenario: wrong
        agents: {main: {model: {script: [actual]}}}
        run: [go]
        expect: {output: expected}
        """,
}


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    for name, text in FILES.items():
        (tmp_path / name).write_text(textwrap.dedent(text), encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_handoff_sim_run_runtime_prints_pass_fail_and_n_a_lines(
    framework: str, suite: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["run", str(suite), "--runtime", framework, "-q"])
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line[:4] in ("PASS", "FAIL", "N/A ", "== 1")]
    assert lines == [
        f"N/A  {suite / 'flink.yaml'}::flinky (not applicable on {framework}: "
        "agents.main.subagents.0.style: a Flink-style sub-agent (the model's arguments passed "
        "on unchanged, its result read as JSON) is built on handoff-sim's runtime only)",
        f"PASS {suite / 'ok.yaml'}::ok (2s virtual)",
        f"FAIL {suite / 'wrong.yaml'}::wrong",
        "== 1 passed, 1 failed, 0 error(s), 1 not applicable ==",
    ]
    assert code == 1


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_only_not_applicable_scenarios_exit_0(
    framework: str, suite: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["run", str(suite / "flink.yaml"), "--runtime", framework])
    assert capsys.readouterr().out.endswith(
        "== 0 passed, 0 failed, 0 error(s), 1 not applicable ==\n"
    )
    assert code == 0


def test_the_default_runtime_is_handoff_sims_own(
    suite: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["run", str(suite / "flink.yaml"), "--runtime", "handoff-sim", "-q"])
    assert capsys.readouterr().out.endswith("== 1 passed, 0 failed, 0 error(s) ==\n")
    assert code == 0


@pytest.mark.parametrize(
    ("blocked", "runtime_name", "extra", "package"),
    [
        ("agents", "openai-agents", "openai-agents", "openai-agents"),
        ("pydantic_ai", "pydantic-ai", "pydantic-ai", "pydantic-ai-slim"),
    ],
)
def test_a_runtime_whose_extra_is_missing_is_a_usage_error_naming_the_extra(
    blocked: str,
    runtime_name: str,
    extra: str,
    package: str,
    suite: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    adapter = f"handoff_sim.adapters.{runtime_name.replace('-', '_')}"
    hide(monkeypatch, blocked, adapter)
    assert main(["run", str(suite), "--runtime", runtime_name]) == 2
    out, err = capsys.readouterr()
    assert err.strip() == (
        f"handoff-sim run: --runtime {runtime_name}: {adapter} needs the optional extra "
        f"{extra!r}: pip install 'handoff-sim[{extra}]' (the package {package!r} is not installed)"
    )
    assert out == ""


# -- pytest --handoff-runtime ------------------------------------------------------------------


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_pytest_handoff_runtime_skips_what_is_not_applicable_with_the_reason(
    framework: str, suite: Path, pytester: pytest.Pytester
) -> None:
    result = pytester.runpytest(
        "--handoff-scenarios",
        str(suite),
        "--handoff-runtime",
        framework,
        "-rs",
        "-p",
        "no:cacheprovider",
    )
    result.assert_outcomes(passed=1, failed=1, skipped=1)
    result.stdout.fnmatch_lines(
        [f"SKIPPED * not applicable on {framework}: agents.main.subagents.0.style: a Flink-style*"]
    )


def test_pytest_handoff_runtime_refuses_an_unknown_name(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--handoff-runtime", "crewai", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--handoff-runtime crewai: unknown runtime 'crewai'*"])


def test_pytest_handoff_runtime_without_the_extra_is_a_usage_error_naming_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    hide(monkeypatch, "agents", "handoff_sim.adapters.openai_agents")
    pytester.makepyfile("def test_nothing():\n    pass\n")
    result = pytester.runpytest_inprocess(
        "--handoff-runtime", "openai-agents", "-p", "no:cacheprovider"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--handoff-runtime openai-agents: * needs the optional extra 'openai-agents'*"]
    )


@pytest.mark.parametrize("framework", [pytest.param("handoff-sim"), *FRAMEWORKS])
def test_max_steps_bounds_each_run_of_a_sub_agent(framework: str) -> None:
    scenario = one(
        {
            "scenario": "bounded",
            "tools": {"lookup": {"returns": "found"}},
            "agents": {
                "boss": {
                    "model": {"script": [{"tool_calls": [delegation("ask")]}, "went on"]},
                    "subagents": [{"agent": "helper", "tool_name": "ask"}],
                },
                "helper": {
                    "max_steps": 1,
                    "tools": ["lookup"],
                    "model": {
                        "script": [
                            {"tool_calls": [{"id": "l1", "name": "lookup", "arguments": {}}]},
                            "never reached",
                        ]
                    },
                },
            },
            "run": ["go"],
            "expect": {
                "output": "went on",
                "handoffs": [{"tool": "ask", "status": "failed", "reason": "error"}],
            },
        }
    )
    factory = runtime_factory(framework)
    result = run_scenario(scenario, runtime=None if factory is None else factory(()))
    assert result.passed, result.render_failure()
