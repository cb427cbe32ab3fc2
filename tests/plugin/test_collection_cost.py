"""What a suite of scenario items keeps for the whole session stays small.

A session holds every collected item to its end, so whatever an item keeps alive is
visited by each pass of the garbage collector (and by ``asyncio.all_tasks()`` when it
is a task).
"""

from __future__ import annotations

import pytest

from tests.plugin._support import FAILING, PASSING
from tests.plugin.conftest import Write

_WATCH = """
import gc
import weakref

RESULTS = []


def pytest_handoff_scenario_result(config, result):
    RESULTS.append(weakref.ref(result))
"""

_CHECK = """
import gc

from conftest import RESULTS


def test_zz_results_of_finished_scenarios_are_let_go():
    gc.collect()
    assert len(RESULTS) == EXPECTED
    assert [ref() for ref in RESULTS] == [None] * EXPECTED
"""


@pytest.mark.slow
def test_finished_tests_let_their_scenario_results_go(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    # in a subprocess: an in-process run records every hook call, results included
    write_scenario("ok.yaml", PASSING)
    write_scenario("bad.yaml", FAILING)
    pytester.makeconftest(_WATCH)
    pytester.makepyfile(
        test_a_uses="def test_runs_it_twice(run_scenario):\n"
        "    run_scenario('scenarios/ok.yaml')\n"
        "    run_scenario('scenarios/ok.yaml')\n",
        test_zz_check=_CHECK.replace("EXPECTED", "4"),
    )
    result = pytester.runpytest_subprocess(
        "--handoff-scenarios",
        "scenarios",
        "scenarios",
        "test_a_uses.py",
        "test_zz_check.py",
        "--handoff-show-trace",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:hypothesispytest",  # nothing here draws examples: an import fewer
    )
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(["scenarios/bad.yaml F*", "*handoff trace*"])
