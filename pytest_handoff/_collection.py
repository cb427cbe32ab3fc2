"""Scenario files as pytest collectors, scenarios as test items.

``ScenarioFile`` loads one YAML file; a malformed file becomes one collection
error that prints ``path:line:col: field: message`` lines and nothing else.
``ScenarioItem`` is a ``pytest.Function`` with a generated function object, so
fixtures (syrupy's ``snapshot`` among them), marks, ``-k``/``-m``, ``--lf`` and
xdist treat it like any test. Its nodeid is ``path::scenario`` or
``path::scenario[variant]``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from handoff_sim.errors import CheckFailedError

if TYPE_CHECKING:
    from handoff_sim.scenarios import LoadedScenario, Problem
    from handoff_sim.scenarios._build import ModelFactory
    from handoff_sim.scenarios._load import Discovery

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
        """Load the file; any failure is one collection error for this file only."""
        try:
            return list(self._items())
        except Exception:
            _note_broken(self.config)
            raise

    def _items(self) -> Iterator[ScenarioItem]:
        try:
            from handoff_sim.scenarios import ScenarioFileError, load_file
        except ImportError as exc:
            raise self.CollectError(
                f"{self.path}: pytest-handoff cannot load scenario support: {exc}"
            ) from None
        try:
            scenarios = load_file(self.path)
        except ScenarioFileError as exc:
            raise self.CollectError(str(exc)) from None
        except OSError as exc:
            raise self.CollectError(f"{self.path}: cannot read: {exc}") from None
        unknown = _model_kind_problems(self.config, scenarios)
        if unknown:
            raise self.CollectError(str(ScenarioFileError(self.path, unknown)))
        seen: dict[str, int] = {}
        for scenario in scenarios:
            if scenario.id in seen:
                raise self.CollectError(
                    f"{self.path}:{scenario.line}: scenario {scenario.id!r} is defined twice "
                    f"(first at line {seen[scenario.id]})"
                )
            seen[scenario.id] = scenario.line
            yield self._item(scenario)

    def _item(self, scenario: LoadedScenario) -> ScenarioItem:
        marks = [getattr(pytest.mark, _SCENARIO_MARK)(scenario.name)]
        from handoff_sim.scenarios._schema import tag_problem

        for index, tag in enumerate(scenario.tags):
            problem = tag_problem(tag)  # the loader refuses these too; never trust a marker
            if problem is not None:
                at = scenario.document_path(f"tags.{index}")
                line, column = scenario.source.position(at)
                field = scenario.field_name(f"tags.{index}")
                raise self.CollectError(f"{self.path}:{line}:{column}: {field}: {problem}")
            _register_tag(self.config, tag)
            marks.append(getattr(pytest.mark, tag))
        return ScenarioItem.from_parent(
            self, name=scenario.id, callobj=_scenario_function(scenario, marks), scenario=scenario
        )


def _model_kind_problems(config: pytest.Config, scenarios: list[LoadedScenario]) -> list[Problem]:
    """Model kinds no ``pytest_handoff_make_model`` builds, as ``handoff-sim validate`` sees them.

    A scenario that a plugin's ``pytest_handoff_runtime`` runs is left to that runtime.
    """
    from handoff_sim.scenarios._build import model_kind_problems
    from pytest_handoff._execute import _ModelHook

    def factories(scenario: LoadedScenario) -> list[ModelFactory] | None:
        if config.hook.pytest_handoff_runtime(config=config, scenario=scenario) is not None:
            return None
        return [_ModelHook(config, scenario)]

    return model_kind_problems(scenarios, factories)


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


def _scenario_function(
    scenario: LoadedScenario, marks: list[pytest.MarkDecorator]
) -> Callable[..., None]:
    """A fresh function per item: pytest reads its marks and its one fixture, ``request``."""

    def run_handoff_scenario(request: pytest.FixtureRequest) -> None:
        __tracebackhide__ = True
        node = request.node
        assert isinstance(node, ScenarioItem)
        node.run_scenario(request)

    run_handoff_scenario.__doc__ = getattr(scenario.spec, "description", None) or None
    run_handoff_scenario.pytestmark = [m.mark for m in marks]  # type: ignore[attr-defined]
    return run_handoff_scenario


class ScenarioItem(pytest.Function):
    """One scenario (one matrix variant) run as a test."""

    def __init__(self, *, scenario: LoadedScenario, **kwargs: Any) -> None:
        self.scenario = scenario
        super().__init__(**kwargs)

    def run_scenario(self, request: pytest.FixtureRequest) -> None:
        """Run through the plugin hooks; raise :class:`ScenarioFailed` with the report."""
        __tracebackhide__ = True
        from pytest_handoff._execute import execute

        outcome = execute(self.config, self.scenario, request)
        if not outcome.passed:
            raise ScenarioFailed(outcome.report())

    def reportinfo(self) -> tuple[Any, int | None, str]:
        """The YAML file and the scenario's line (0-based), for headers and ``location``."""
        return self.path, self.scenario.line - 1, self.name

    def repr_failure(  # type: ignore[override]
        self, excinfo: pytest.ExceptionInfo[BaseException]
    ) -> Any:
        """The scenario report, or a scenario error, as plain text; other errors (a hook's,
        a runtime's) keep pytest's usual traceback."""
        from handoff_sim.errors import ScenarioError

        if isinstance(excinfo.value, ScenarioFailed | ScenarioError):
            from pytest_handoff._failure import failure_repr

            return failure_repr(self, excinfo.value, self.scenario.line)
        return super().repr_failure(excinfo)
