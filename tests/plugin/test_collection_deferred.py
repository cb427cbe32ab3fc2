"""Collection names the items; each item loads, validates and lets go of its file itself.

What a suite keeps between its tests is what names and selects its items, never a
loaded scenario; a file is validated by the items that run (once for all the items of
a file), and a refused one still ends the session with exit 2, under xdist too.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from handoff_sim.scenarios import load_file
from handoff_sim.scenarios._load import scenario_names
from tests.plugin._support import BROKEN, MATRIX, PASSING
from tests.plugin.conftest import Write

REPO = Path(__file__).resolve().parents[2]

_COUNT_LOADS = """
import handoff_sim.scenarios as scenarios

LOADS = []
_load = scenarios.load_file


def _counting(path):
    LOADS.append(path.name)
    return _load(path)


def pytest_configure(config):
    scenarios.load_file = _counting


def pytest_unconfigure(config):
    scenarios.load_file = _load


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line(f"loads: {sorted(LOADS)}")
"""


def test_each_file_is_loaded_once_by_the_items_that_run_and_never_by_collection(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("retry.yaml", MATRIX)  # two variants: one load
    write_scenario("review.yaml", PASSING)
    write_scenario("other.yaml", PASSING.replace("delegate-review", "other"))
    pytester.makeconftest(_COUNT_LOADS)
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios", "-k", "not other")
    result.assert_outcomes(passed=3, deselected=1)
    result.stdout.fnmatch_lines(["loads: ['retry.yaml', 'review.yaml']"])


_WATCH_SCENARIOS = """
import weakref

SCENARIOS = []


def pytest_handoff_scenario_result(config, result):
    SCENARIOS.append(weakref.ref(result.scenario))
"""

_CHECK_ITEMS = """
import gc

from conftest import SCENARIOS


def test_zz_no_item_keeps_its_scenario(request):
    items = [i for i in request.session.items if i.nodeid.startswith("scenarios/")]
    assert len(items) == 4
    assert [i.scenario for i in items] == [None] * 4
    gc.collect()
    alive = {ref().path.name for ref in SCENARIOS if ref() is not None}
    assert len(SCENARIOS) == 4
    assert alive <= {"c_two.yaml"}  # at most the last file loaded, kept for its items
"""


@pytest.mark.slow
def test_finished_items_keep_no_loaded_scenario(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("a_retry.yaml", MATRIX)
    write_scenario("b_one.yaml", PASSING)
    write_scenario("c_two.yaml", PASSING.replace("delegate-review", "two"))
    pytester.makeconftest(_WATCH_SCENARIOS)
    pytester.makepyfile(test_zz_check=_CHECK_ITEMS)
    # in a subprocess: an in-process run records every hook call, results included
    result = pytester.runpytest_subprocess(
        "--handoff-scenarios",
        "scenarios",
        "scenarios",
        "test_zz_check.py",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:hypothesispytest",
    )
    result.assert_outcomes(passed=5)


_AUTOUSE = """
import pytest

SEEN = []


@pytest.fixture(autouse=True)
def _note(request):
    SEEN.append(request.node.name)


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line(f"seen: {sorted(SEEN)}")
"""


def test_a_conftest_fixture_reaches_the_scenario_items_of_its_directory_only(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("one.yaml", PASSING, folder="scenarios/with")
    write_scenario("two.yaml", PASSING.replace("delegate-review", "two"), folder="scenarios/with")
    write_scenario("three.yaml", PASSING.replace("delegate-review", "three"), folder="scenarios")
    (pytester.path / "scenarios" / "with" / "conftest.py").write_text(_AUTOUSE)
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["seen: ['delegate-review', 'two']"])


_EDIT_AFTER_COLLECTION = """
from pathlib import Path


def pytest_collection_finish(session):
    path = Path(session.config.rootpath, "scenarios", "review.yaml")
    path.write_text(path.read_text().replace("delegate-review", "renamed"))
"""


def test_a_file_changed_after_collection_is_refused_at_the_setup_of_its_items(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("review.yaml", PASSING)
    write_scenario("retry.yaml", MATRIX)
    pytester.makeconftest(_EDIT_AFTER_COLLECTION)
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios")
    result.assert_outcomes(passed=2, errors=1)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        [
            "scenarios/review.yaml: scenario 'delegate-review' is no longer in the file "
            "(it holds: renamed); it changed after collection"
        ]
    )


def test_a_refused_file_ends_a_session_with_exit_2_only_when_one_of_its_items_runs(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("broken.yaml", BROKEN)
    write_scenario("ok.yaml", PASSING)
    chosen = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios", "-k", "delegate")
    chosen.assert_outcomes(passed=1, deselected=1)
    assert chosen.ret == pytest.ExitCode.OK  # not validated: `handoff-sim validate` checks all
    every = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios", "-k", "broken")
    every.assert_outcomes(errors=1, deselected=1)
    assert every.ret == pytest.ExitCode.INTERRUPTED


@pytest.mark.slow
def test_a_refused_file_ends_an_xdist_session_with_exit_2(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("broken.yaml", BROKEN)
    write_scenario("syntax.yaml", "scenario: x\nagents: [unclosed\nrun: [go]\n")
    write_scenario("ok.yaml", PASSING)
    result = pytester.runpytest_inprocess(
        "-p", "no:hypothesispytest", "-n", "2", "--handoff-scenarios", "scenarios"
    )
    result.assert_outcomes(passed=1, errors=2)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        ["scenarios/broken.yaml:6:7: agents.manager.policy.max_depth: must be >= 0"]
    )
    result.stdout.no_fnmatch_line("*keyboard-interrupt*")  # no worker ends as if interrupted


def _loaded_names(path: Path) -> list[tuple[str, int, tuple[str, ...]]]:
    return [(s.id, s.line, s.tags) for s in load_file(path)]


@pytest.mark.parametrize(
    "path",
    sorted((REPO / "scenarios").rglob("*.y*ml")),
    ids=lambda p: str(p.relative_to(REPO / "scenarios")),
)
def test_names_read_without_validating_are_the_names_the_loader_gives(path: Path) -> None:
    named = scenario_names(path)
    assert named is not None, "a bundled file's names are written plainly"
    assert [(n.id, n.line, n.tags) for n in named] == _loaded_names(path)


@pytest.mark.parametrize("path", sorted((REPO / "tests" / "hostile" / "files").glob("*.yaml")))
def test_names_of_a_hostile_file_are_unread_or_the_loaders_when_it_loads(path: Path) -> None:
    named = scenario_names(path)
    try:
        loaded = _loaded_names(path)
    except Exception:  # refused: its items fail their setup with the loader's words
        return
    if named is not None:
        assert [(n.id, n.line, n.tags) for n in named] == loaded


@pytest.mark.parametrize(
    "text",
    [
        "scenario: 42\nagents: {}\nrun: [go]\n",  # a name of another type
        "scenario: has space\nagents: {}\nrun: [go]\n",  # a name the schema refuses
        "scenario: s\ntags: [xfail]\nagents: {}\nrun: [go]\n",  # a reserved tag
        "scenario: s\nmatrix: [{id: a}, {policies: {}}]\nagents: {}\nrun: [go]\n",  # no id
        "scenarios: [{scenario: a}, {scenario: a}]\n",  # a name twice
        "scenario: a\nscenario: b\n",  # a key twice
        "- scenario: a\n",  # not a mapping
    ],
)
def test_names_not_written_plainly_are_left_to_the_loader(tmp_path: Path, text: str) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")
    assert scenario_names(path) is None
