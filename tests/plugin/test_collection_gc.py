"""Collecting scenario files pauses the cyclic garbage collector and gives it back as it was;
what collection built is frozen (left out of the collector's passes) until the session ends."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from tests.plugin._support import PASSING
from tests.plugin.conftest import Write

_PROBE = """
import gc

import pytest

SEEN = {}


@pytest.hookimpl(tryfirst=True)
def pytest_collectstart(collector):
    SEEN.setdefault("during", gc.isenabled())


def test_collector_state_while_tests_run():
    assert SEEN["during"] is DURING
    assert gc.isenabled() is AFTER
"""


def _probe(*, during: bool, after: bool) -> str:
    """A conftest that notes the collector's state while collecting, and a test checking it."""
    return _PROBE.replace("DURING", str(during)).replace("AFTER", str(after))


@pytest.fixture
def gc_restored() -> Iterator[None]:
    """The outer session's collector comes back whatever the inner one did."""
    was = gc.isenabled()
    yield
    (gc.enable if was else gc.disable)()


@pytest.mark.usefixtures("gc_restored")
def test_collector_is_paused_while_collecting_scenarios_and_on_again_for_the_tests(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("ok.yaml", PASSING)
    pytester.makeconftest(_probe(during=False, after=True))
    pytester.makepyfile(test_probe="from conftest import *\n")
    gc.enable()
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios", ".")
    result.assert_outcomes(passed=2)
    assert gc.isenabled()


@pytest.mark.usefixtures("gc_restored")
def test_collector_turned_off_by_the_user_stays_off(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("ok.yaml", PASSING)
    pytester.makeconftest(_probe(during=False, after=False))
    pytester.makepyfile(test_probe="from conftest import *\n")
    gc.disable()
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios", ".")
    result.assert_outcomes(passed=2)
    assert not gc.isenabled()


@pytest.mark.usefixtures("gc_restored")
def test_sessions_without_scenario_directories_leave_the_collector_alone(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest(_probe(during=True, after=True))
    pytester.makepyfile(test_probe="from conftest import *\n")
    gc.enable()
    result = pytester.runpytest_inprocess()
    result.assert_outcomes(passed=1)


_FROZEN_PROBE = """
import gc


def test_what_collection_built_is_frozen_while_tests_run():
    assert (gc.get_freeze_count() > 0) is FROZEN
"""


@pytest.fixture
def nothing_frozen() -> Iterator[None]:
    """The outer session's frozen objects (none) come back as they were."""
    gc.unfreeze()
    yield
    gc.unfreeze()


@pytest.mark.usefixtures("gc_restored", "nothing_frozen")
def test_what_collection_built_stays_out_of_the_collectors_passes_until_the_session_ends(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("ok.yaml", PASSING)
    pytester.makepyfile(test_probe=_FROZEN_PROBE.replace("FROZEN", "True"))
    gc.enable()
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios", ".")
    result.assert_outcomes(passed=2)
    assert gc.get_freeze_count() == 0  # unfrozen when the session ended


@pytest.mark.usefixtures("gc_restored", "nothing_frozen")
def test_objects_someone_else_froze_are_left_frozen(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("ok.yaml", PASSING)
    pytester.makepyfile(test_probe=_FROZEN_PROBE.replace("FROZEN", "True"))
    gc.enable()
    gc.freeze()
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios", ".")
    result.assert_outcomes(passed=2)
    assert gc.get_freeze_count() > 0  # not unfrozen by the session
