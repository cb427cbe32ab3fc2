"""T5: a downstream conftest adds model kinds, observes events, supplies its own runtime."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.plugin._support import ECHO_CONFTEST, ECHO_SCENARIO, PASSING
from tests.plugin.conftest import Write


def test_t5_make_model_hook_adds_a_model_kind(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("echo.yaml", ECHO_SCENARIO)
    pytester.makeconftest(ECHO_CONFTEST)
    pytester.runpytest_inprocess("--handoff-scenarios", "scenarios").assert_outcomes(passed=1)


def test_t5_unknown_model_kind_without_a_hook_is_a_collection_error(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("echo.yaml", ECHO_SCENARIO)
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "scenarios/echo.yaml:4:13: agents.bot.model.kind: "
            "unknown model kind 'echo': no plugin builds it*"
        ]
    )


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


def _install_entry_point(site: Path, module: str, source: str) -> None:
    """A distribution on ``site`` registering ``module`` under handoff_sim.plugins only."""
    (site / f"{module}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    info = site / f"{module}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[handoff_sim.plugins]\n{module} = {module}\n")


def test_14_handoff_sim_plugins_entry_points_add_model_kinds_to_pytest(
    pytester: pytest.Pytester, write_scenario: Write, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The group ``handoff-sim run`` loads is loaded by the plugin too: both see one kind."""
    site = pytester.path / "site"
    site.mkdir()
    _install_entry_point(site, "echo_entry_kinds", ECHO_CONFTEST)
    monkeypatch.syspath_prepend(str(site))
    write_scenario("echo.yaml", ECHO_SCENARIO)
    pytester.runpytest_inprocess("--handoff-scenarios", "scenarios").assert_outcomes(passed=1)
    blocked = pytester.runpytest_inprocess(
        "--handoff-scenarios", "scenarios", "-p", "no:echo_entry_kinds"
    )
    blocked.assert_outcomes(errors=1)
    blocked.stdout.fnmatch_lines(["*unknown model kind 'echo': no plugin builds it*"])


def test_14_a_broken_entry_point_is_a_usage_error(
    pytester: pytest.Pytester, write_scenario: Write, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = pytester.path / "site"
    site.mkdir()
    _install_entry_point(site, "broken_entry_kinds", "raise RuntimeError('not configured')\n")
    monkeypatch.syspath_prepend(str(site))
    write_scenario("ok.yaml", PASSING)
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*handoff_sim.plugins entry point 'broken_entry_kinds' (broken_entry_kinds) cannot "
            "be loaded: RuntimeError: not configured"
        ]
    )


def test_14_a_scenario_error_during_the_run_is_plain_text(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    """A kind built at collection but refused when the run builds it: no traceback."""
    write_scenario("echo.yaml", ECHO_SCENARIO)
    pytester.makeconftest(
        """
        from handoff_sim.testing import FunctionModel

        CALLS = []

        def pytest_handoff_make_model(config, scenario, agent_name, model_spec):
            CALLS.append(agent_name)
            return FunctionModel(lambda request: "first") if len(CALLS) == 1 else None
        """
    )
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["scenarios/echo.yaml:4: agents.bot.model: no model factory for kind 'echo'*"]
    )
    assert "Traceback" not in result.stdout.str()
    assert "_build.py" not in result.stdout.str()
