"""A scenario item loads its file when it runs, and lets it go when it is done.

Collection only names the items (``scenario_names`` of the loader); the file is
validated here, in the item's setup, so a suite holds no loaded scenario between its
tests and an xdist worker validates only the files of the items it runs. A file that
is refused fails the setup of each of its items with the ``path:line:col`` lines; the
report carries :data:`REFUSED_ATTRIBUTE`, and the process that decides the session's
exit status (the xdist controller, or the one process) makes it 2.

One file is kept loaded at a time: the items of a file run one after the other, so a
file with several scenarios or matrix variants is loaded once for all of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from handoff_sim.scenarios import LoadedScenario, Problem
    from handoff_sim.scenarios._build import ModelFactory

__all__ = [
    "REFUSED_ATTRIBUTE",
    "Refusals",
    "ScenarioRefused",
    "check_tags",
    "load_item",
    "model_kind_text",
]

REFUSED_ATTRIBUTE = "handoff_refused"
"""On a report (collection or setup): the scenario file that was refused, as text."""


class ScenarioRefused(Exception):
    """The item's scenario file is refused as it reads now; ``str()`` is the problem lines."""


@dataclass
class _Loaded:
    """The last file loaded in this process: its scenarios, or why it is refused."""

    path: Path
    scenarios: dict[str, LoadedScenario]
    refusal: str | None = None


_LAST = pytest.StashKey[_Loaded]()


def load_item(config: pytest.Config, path: Path, item_id: str, tags: tuple[str, ...]) -> Any:
    """The loaded scenario named ``item_id`` in ``path``; raise :class:`ScenarioRefused`
    when the file is refused or no longer holds that scenario with those tags."""
    loaded = config.stash.get(_LAST, None)
    if loaded is None or loaded.path != path:
        loaded = config.stash[_LAST] = _load(config, path)
    if loaded.refusal is not None:
        raise ScenarioRefused(loaded.refusal)
    scenario = loaded.scenarios.get(item_id)
    if scenario is None:
        held = ", ".join(loaded.scenarios) or "none"
        raise ScenarioRefused(
            f"{path}: scenario {item_id!r} is no longer in the file (it holds: {held}); "
            "it changed after collection"
        )
    check_tags(scenario, tags)
    return scenario


def _load(config: pytest.Config, path: Path) -> _Loaded:
    from handoff_sim.scenarios import ScenarioFileError, load_file

    try:
        scenarios = load_file(path)
    except ScenarioFileError as exc:
        return _Loaded(path, {}, str(exc))
    except OSError as exc:
        return _Loaded(path, {}, f"{path}: cannot read: {exc}")
    refusal = model_kind_text(config, path, scenarios)
    return _Loaded(path, {s.id: s for s in scenarios}, refusal)


def check_tags(scenario: LoadedScenario, tags: tuple[str, ...]) -> None:
    """A loaded tag that cannot be a marker is refused (whatever loaded it); tags that
    differ from the item's markers mean the file changed after collection."""
    from handoff_sim.scenarios._schema import tag_problem

    for index, tag in enumerate(scenario.tags):
        problem = tag_problem(tag)
        if problem is not None:
            line, column = scenario.source.position(scenario.document_path(f"tags.{index}"))
            field = scenario.field_name(f"tags.{index}")
            raise ScenarioRefused(f"{scenario.path}:{line}:{column}: {field}: {problem}")
    if scenario.tags != tags:
        line, column = scenario.source.position(scenario.document_path("tags"))
        raise ScenarioRefused(
            f"{scenario.path}:{line}:{column}: {scenario.field_name('tags')}: the tags are "
            f"{list(scenario.tags)}, not {list(tags)} as collected: the file changed after "
            "collection"
        )


def model_kind_text(
    config: pytest.Config, path: Path, scenarios: list[LoadedScenario]
) -> str | None:
    """The problem lines of the model kinds no ``pytest_handoff_make_model`` builds, as
    ``handoff-sim validate`` reports them, or ``None``.

    A scenario that a plugin's ``pytest_handoff_runtime`` runs is left to that runtime.
    """
    from handoff_sim.scenarios import ScenarioFileError
    from handoff_sim.scenarios._build import model_kind_problems
    from pytest_handoff._execute import _ModelHook

    def factories(scenario: LoadedScenario) -> list[ModelFactory] | None:
        if config.hook.pytest_handoff_runtime(config=config, scenario=scenario) is not None:
            return None
        return [_ModelHook(config, scenario)]

    problems: list[Problem] = model_kind_problems(scenarios, factories)
    return str(ScenarioFileError(path, problems)) if problems else None


class Refusals:
    """Counts refused scenario files from the reports this process logs (an xdist
    controller logs its workers'), and makes a session that refused one end with exit 2.

    An xdist worker leaves its own status alone: a worker ending with 2 reads to its
    controller as an interrupted worker.
    """

    def __init__(self, config: pytest.Config) -> None:
        self.files: set[str] = set()
        self._worker = hasattr(config, "workerinput")

    def _note(self, report: pytest.CollectReport | pytest.TestReport) -> None:
        refused = getattr(report, REFUSED_ATTRIBUTE, None)
        if isinstance(refused, str):
            self.files.add(refused)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        """A refused file at collection (its names could not be read)."""
        self._note(report)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """A refused file at an item's setup."""
        self._note(report)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        """A refused scenario file ends the session with exit 2, as ``handoff-sim`` does.

        The other files still ran; an error in a file outranks any failing test, so a
        CI job can tell "the suite could not be read" from "a scenario failed".
        """
        if self._worker or not self.files:
            return
        if exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
            session.exitstatus = pytest.ExitCode.INTERRUPTED
