"""T5: a downstream conftest adds model kinds, observes events, supplies its own runtime."""

from __future__ import annotations

import pytest

from tests.plugin._support import ECHO_CONFTEST, ECHO_SCENARIO, PASSING
from tests.plugin.conftest import Write


def test_t5_make_model_hook_adds_a_model_kind(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("echo.yaml", ECHO_SCENARIO)
    pytester.makeconftest(ECHO_CONFTEST)
    pytester.runpytest_inprocess("--handoff-scenarios", "scenarios").assert_outcomes(passed=1)


def test_t5_unknown_model_kind_without_a_hook_fails_the_scenario(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("echo.yaml", ECHO_SCENARIO)
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*no model factory for kind 'echo'*"])


def test_t5_event_hook_sees_every_event_of_the_run(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("ok.yaml", PASSING)
    pytester.makeconftest(
        """
        SEEN = []

        def pytest_handoff_event(config, scenario, event):
            SEEN.append((scenario.id, event.type))

        def pytest_handoff_scenario_result(config, result):
            assert [t for _, t in SEEN] == [e.type for e in result.trace]
            assert {s for s, _ in SEEN} == {"delegate-review"}
            assert ("delegate-review", "handoff_end") in SEEN
        """
    )
    recorder = pytester.inline_run("--handoff-scenarios", "scenarios")
    recorder.assertoutcome(passed=1)
    (call,) = recorder.getcalls("pytest_handoff_scenario_result")
    assert call.result.passed


def test_t5_runtime_hook_runs_the_scenario_on_another_framework(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario(
        "other.yaml",
        """\
        scenario: other-framework
        agents:
          bot: {model: {script: [unused]}}
        run: [ping]
        expect:
          output: "pong from my framework"
        """,
    )
    pytester.makeconftest(
        """
        from handoff_sim import Trace
        from handoff_sim.scenarios import ScenarioRun

        class MyRuntime:
            def run(self, scenario, *, observers):
                return ScenarioRun(
                    trace=Trace(), outputs=["pong from my framework"], error=None, elapsed_ms=0.0
                )

        def pytest_handoff_runtime(config, scenario):
            return MyRuntime() if scenario.name == "other-framework" else None
        """
    )
    pytester.runpytest_inprocess("--handoff-scenarios", "scenarios").assert_outcomes(passed=1)


def test_t5_simulation_fixture_runs_are_observed_with_no_scenario(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest(
        """
        SEEN = []

        def pytest_handoff_event(config, scenario, event):
            SEEN.append((scenario, event.type))
        """
    )
    pytester.makepyfile(
        """
        from conftest import SEEN

        def test_run(agent_builder, simulation):
            simulation.run(agent_builder("bot", ["hi"]), "hello")
            assert SEEN[0] == (None, "run_start") and SEEN[-1] == (None, "run_end")
        """
    )
    pytester.runpytest_inprocess().assert_outcomes(passed=1)


def test_t5_hookspecs_are_registered(pytester: pytest.Pytester) -> None:
    config = pytester.parseconfig()
    for name in (
        "pytest_handoff_make_model",
        "pytest_handoff_runtime",
        "pytest_handoff_event",
        "pytest_handoff_scenario_result",
    ):
        assert config.pluginmanager.hook.__dict__[name].spec is not None, name
