"""T3: the plugin's fixtures, used the way a project's tests use them."""

from __future__ import annotations

import pytest

from tests.plugin._support import FAILING, PASSING
from tests.plugin.conftest import Write


def test_t3_builder_scripted_model_recorder_and_clock(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import time

        from handoff_sim.errors import ScriptExhaustedError


        def test_builder_runs_a_delegation(agent_builder, simulation, event_recorder):
            reviewer = agent_builder("reviewer", [{"text": "LGTM", "latency": "2s"}])
            manager = agent_builder(
                "manager",
                [agent_builder.delegate("subagent_reviewer", "review", id="c1"), "done"],
                subagents=[reviewer],
                policy={"max_retries": 1, "timeout": "5s"},
            )
            result = simulation.run(manager, "go")
            assert result.output == "done"
            assert simulation.now == 2.0
            assert [r.status for r in result.trace.handoffs()] == ["completed"]
            assert event_recorder.trace == simulation.trace
            agent_builder.assert_scripts_complete()


        def test_scripted_model_is_strict(scripted_model, agent_builder, simulation):
            model = scripted_model(["only one"], name="bot")
            bot = agent_builder("bot", ["first"])
            simulation.run(bot, "a")
            try:
                simulation.run(bot, "b")
            except ScriptExhaustedError as exc:
                assert "bot" in str(exc)
            else:
                raise AssertionError("expected ScriptExhaustedError")
            assert model.remaining == 1


        def test_virtual_clock_advances_without_sleeping(virtual_clock):
            started = time.monotonic()
            assert virtual_clock.advance(3600) == 3600.0
            assert virtual_clock.now_ms == 3_600_000
            assert virtual_clock.wall_time().isoformat() == "2026-01-01T01:00:00+00:00"
            assert time.monotonic() - started < 5


        def test_handoff_agent_is_the_builder(handoff_agent, agent_builder):
            assert handoff_agent is agent_builder
        """
    )
    pytester.runpytest_inprocess().assert_outcomes(passed=4)


def test_t3_simulation_marker_sets_the_seed(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        def session_of(agent_builder, simulation):
            return simulation.run(agent_builder("bot", ["hi"]), "x").session_id

        @pytest.mark.handoff_simulation(seed=7)
        def test_a(agent_builder, simulation, request):
            request.config.cache.set("a", session_of(agent_builder, simulation))

        @pytest.mark.handoff_simulation(seed=7)
        def test_b(agent_builder, simulation, request):
            assert session_of(agent_builder, simulation) == request.config.cache.get("a", None)

        @pytest.mark.handoff_simulation(seed=8)
        def test_c(agent_builder, simulation, request):
            assert session_of(agent_builder, simulation) != request.config.cache.get("a", None)
        """
    )
    pytester.runpytest_inprocess("--strict-markers").assert_outcomes(passed=3)


def test_t3_run_scenario_fixture_runs_files_and_mappings(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("ok.yaml", PASSING, folder=".")
    write_scenario("wrong.yaml", FAILING, folder=".")
    pytester.makepyfile(
        """
        import yaml

        def test_file(run_scenario):
            result = run_scenario("ok.yaml")
            assert result.passed and result.outputs == ["done"]

        def test_mapping(run_scenario):
            with open("ok.yaml") as f:
                result = run_scenario(yaml.safe_load(f))
            assert result.trace.handoffs()[0].tool == "subagent_reviewer"

        def test_unchecked_failure_is_returned(run_scenario):
            assert not run_scenario("wrong.yaml", check=False).passed

        def test_checked_failure_fails_the_test(run_scenario):
            run_scenario("wrong.yaml")
        """
    )
    result = pytester.runpytest_inprocess()
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(
        ["*wrong.yaml:14: expect.output: output differs", "    expected: 'finished'"]
    )
    assert "def test_checked_failure_fails_the_test" not in result.stdout.str()


def test_t3_run_scenario_names_missing_files(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_missing(run_scenario):\n    run_scenario('nope.yaml')\n")
    result = pytester.runpytest_inprocess()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*run_scenario: no scenario file 'nope.yaml' (looked at *"])
