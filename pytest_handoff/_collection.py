"""Scenario files as pytest collectors, scenarios as test items.

``ScenarioFile`` names the scenarios of one YAML file without validating the rest
(``docs/plugin.md``, "How collection works"); a file whose names cannot be read becomes
one collection error that prints ``path:line:col: field: message`` lines and nothing
else. ``ScenarioItem`` is a ``pytest.Function`` that carries only its name, line and
tags: it loads (and validates) its file in its setup, runs, and lets the scenario go in
its teardown. Fixtures (syrupy's ``snapshot`` among them), marks, ``-k``/``-m``,
``--lf`` and xdist treat it like any test. Its nodeid is ``path::scenario`` or
``path::scenario[variant]``.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from _pytest.fixtures import FuncFixtureInfo

from handoff_sim.errors import CheckFailedError

if TYPE_CHECKING:
    from handoff_sim.scenarios import LoadedScenario, Problem
    from handoff_sim.scenarios._load import Discovery, ScenarioName

from pytest_handoff._keys import BROKEN_FILES, SCENARIO_DIRS

__all__ = [
    "BrokenScenarioPath",
    "ScenarioFailed",
    "ScenarioFile",
    "ScenarioItem",
    "broken_paths",
]

_SCENARIO_MARK = "handoff_scenario"
_KNOWN_MARKERS = pytest.StashKey[tuple[int, set[str]]]()


class ScenarioFailed(CheckFailedError, AssertionError):
    """A scenario did not meet its expectations; ``str()`` is the whole readable report."""


def _note_broken(config: pytest.Config) -> None:
    config.stash[BROKEN_FILES] = config.stash.get(BROKEN_FILES, 0) + 1


def _register_tag(config: pytest.Config, tag: str) -> None:
    """Declare a scenario tag as a marker so ``--strict-markers`` and ``-m`` accept it."""
    lines = config.getini("markers")
    seen, known = config.stash.get(_KNOWN_MARKERS, (-1, set()))
    if seen != len(lines):  # read once, again only when someone declared another marker
        known = {line.split(":")[0].split("(")[0].strip() for line in lines}
    if tag not in known:
        config.addinivalue_line("markers", f"{tag}: handoff scenario tag")
        known.add(tag)
    config.stash[_KNOWN_MARKERS] = (len(config.getini("markers")), known)


class ScenarioFile(pytest.File):
    """One scenario YAML file: one item per scenario and matrix variant."""

    def collect(self) -> list[ScenarioItem]:
        """Name the file's items; a file whose names cannot be read is one collection
        error for this file only."""
        try:
            return list(self._items())
        except Exception:
            _note_broken(self.config)
            raise

    def _items(self) -> Iterator[ScenarioItem]:
        try:
            from handoff_sim.scenarios._load import scenario_names
        except ImportError as exc:
            raise self.CollectError(
                f"{self.path}: pytest-handoff cannot load scenario support: {exc}"
            ) from None
        # --collect-only runs nothing, so it validates here what a run validates in setup
        names = None if self.config.option.collectonly else scenario_names(self.path)
        if names is None:  # only loading the file can tell what is wrong (if anything)
            names = self._names_by_loading()
        for named in names:
            yield self._item(named)

    def _names_by_loading(self) -> list[ScenarioName]:
        """The names of a file the quick reading could not name, from loading it whole;
        the loader's refusal is the collection error. The loaded scenarios are let go."""
        from handoff_sim.scenarios import ScenarioFileError, load_file
        from handoff_sim.scenarios._load import ScenarioName
        from pytest_handoff._loading import ScenarioRefused, check_tags, model_kind_text

        try:
            scenarios = load_file(self.path)
        except ScenarioFileError as exc:
            raise self.CollectError(str(exc)) from None
        except OSError as exc:
            raise self.CollectError(f"{self.path}: cannot read: {exc}") from None
        unknown = model_kind_text(self.config, self.path, scenarios)
        if unknown is not None:
            raise self.CollectError(unknown)
        seen: dict[str, int] = {}
        for scenario in scenarios:
            if scenario.id in seen:
                raise self.CollectError(
                    f"{self.path}:{scenario.line}: scenario {scenario.id!r} is defined twice "
                    f"(first at line {seen[scenario.id]})"
                )
            seen[scenario.id] = scenario.line
            try:  # the tags become markers: never trust them, whatever loaded them
                check_tags(scenario, scenario.tags)
            except ScenarioRefused as exc:
                raise self.CollectError(str(exc)) from None
        description = {s.id: getattr(s.spec, "description", "") or "" for s in scenarios}
        return [ScenarioName(s.id, s.name, s.line, s.tags, description[s.id]) for s in scenarios]

    def _item(self, named: ScenarioName) -> ScenarioItem:
        shared = self.config.stash.setdefault(_FIXTURE_INFO, {})
        info = shared.get(self.parent)
        item = ScenarioItem.from_parent(
            self,
            name=named.id,
            callobj=_scenario_function(named.description),
            named=named,
            fixtureinfo=None if info is None else _own_copy(info),
        )
        if info is None:
            shared[self.parent] = item._fixtureinfo
        item.add_marker(getattr(pytest.mark, _SCENARIO_MARK)(named.name))
        for tag in named.tags:
            _register_tag(self.config, tag)
            item.add_marker(tag)
        return item


_FIXTURE_INFO = pytest.StashKey[dict[Any, FuncFixtureInfo]]()
"""The fixtures of the scenario items of a directory, worked out for its first item.

Every scenario item has the same function signature (``request``) and no marker that
asks for a fixture (the tags that could are refused), and a YAML file defines no
fixture: what an item sees is what its directory's conftest files and the plugins
give, the same for all the items of a directory.
"""


def _own_copy(info: FuncFixtureInfo) -> FuncFixtureInfo:
    """The shared fixture information with a list of names of its own: a plugin may add
    to one item's ``fixturenames``."""
    return dataclasses.replace(info, names_closure=list(info.names_closure))


def broken_paths(directory: pytest.Directory, found: Discovery) -> list[BrokenScenarioPath]:
    """One failing collector per broken link or link loop the scenario walk found under
    ``directory``, a configured scenario directory (the outermost one, when they nest)."""
    problems: dict[str, list[Problem]] = {}
    dirs = directory.config.stash.get(SCENARIO_DIRS, ())
    for problem in found.problems:
        where = Path(problem.path)
        owner = next((d for d in dirs if where == d or d in where.parents), None)
        if owner == directory.path:
            problems.setdefault(problem.path, []).append(problem)
    return [
        BrokenScenarioPath.from_parent(directory, path=Path(where), problems=listed)
        for where, listed in sorted(problems.items())
    ]


class BrokenScenarioPath(pytest.File):
    """A link in a scenario directory that leads to no scenario file: one collection error."""

    def __init__(self, *, problems: list[Problem], **kwargs: Any) -> None:
        self.problems = problems
        super().__init__(**kwargs)

    def collect(self) -> list[pytest.Item]:
        """Fail with the ``path:line:col: field: message`` lines, no traceback."""
        _note_broken(self.config)
        raise self.CollectError("\n".join(p.format() for p in self.problems))


def run_handoff_scenario(request: pytest.FixtureRequest) -> None:
    """Load, run and check the item's scenario (its one fixture is ``request``)."""
    __tracebackhide__ = True
    node = request.node
    assert isinstance(node, ScenarioItem)
    node.run_scenario(request)


def _scenario_function(description: str) -> Any:
    """The item's function: the shared one, or a copy whose docstring is the scenario's
    description (``pytest --collect-only -v`` shows it)."""
    if not description:
        return run_handoff_scenario
    code, scope = run_handoff_scenario.__code__, run_handoff_scenario.__globals__
    function = types.FunctionType(code, scope, run_handoff_scenario.__name__)
    function.__doc__ = description
    return function


class ScenarioItem(pytest.Function):
    """One scenario (one matrix variant) run as a test.

    It keeps its name, line and tags; ``scenario`` is the loaded scenario from its setup
    to its teardown, ``None`` otherwise.
    """

    def __init__(self, *, named: ScenarioName, **kwargs: Any) -> None:
        self.scenario_line = named.line
        self.scenario_tags = named.tags
        self.scenario: LoadedScenario | None = None
        super().__init__(**kwargs)

    def setup(self) -> None:
        """Load and validate the file (a refusal fails the setup), then the fixtures."""
        from pytest_handoff._loading import load_item

        self.scenario = load_item(self.config, self.path, self.name, self.scenario_tags)
        super().setup()

    def teardown(self) -> None:
        """Let the scenario go: a session holds every item to its end."""
        try:
            super().teardown()
        finally:
            self.scenario = None

    def run_scenario(self, request: pytest.FixtureRequest) -> None:
        """Run through the plugin hooks; raise :class:`ScenarioFailed` with the report."""
        __tracebackhide__ = True
        from pytest_handoff._execute import execute

        assert self.scenario is not None, "loaded in setup"
        outcome = execute(self.config, self.scenario, request)
        if not outcome.passed:
            raise ScenarioFailed(outcome.report())

    def reportinfo(self) -> tuple[Any, int | None, str]:
        """The YAML file and the scenario's line (0-based), for headers and ``location``."""
        return self.path, self.scenario_line - 1, self.name

    def repr_failure(  # type: ignore[override]
        self, excinfo: pytest.ExceptionInfo[BaseException]
    ) -> Any:
        """The scenario report, or a scenario error, as plain text; other errors (a hook's,
        a runtime's) keep pytest's usual traceback."""
        from handoff_sim.errors import ScenarioError

        if isinstance(excinfo.value, ScenarioFailed | ScenarioError):
            from pytest_handoff._failure import failure_repr

            return failure_repr(self, excinfo.value, self.scenario_line)
        return super().repr_failure(excinfo)
