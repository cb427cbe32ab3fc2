"""``ScenarioRunner``: what the ``run_scenario`` fixture hands out."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_handoff._execute import execute

if TYPE_CHECKING:
    from handoff_sim.scenarios import LoadedScenario, ScenarioResult

__all__ = ["ScenarioRunner"]


class ScenarioRunner:
    """Runs scenarios from a file, a directory entry or a mapping inside a test.

    It goes through the same hooks as collected scenario items (runtime, model
    kinds, event observers) and checks ``expect.snapshot`` with syrupy.
    """

    def __init__(self, request: pytest.FixtureRequest) -> None:
        self._request = request

    def __call__(
        self,
        source: str | Path | Mapping[str, Any] | LoadedScenario,
        *,
        name: str | None = None,
        check: bool = True,
    ) -> ScenarioResult:
        """Run the one scenario ``source`` holds (``name`` picks one of several).

        A relative path is looked up next to the test file, then under the rootdir.
        With ``check`` a failing scenario fails the test with its report.
        """
        __tracebackhide__ = True
        scenario = self._pick(self.load(source), name, source)
        outcome = execute(self._request.config, scenario, self._request)
        if check and not outcome.passed:
            pytest.fail(outcome.report(), pytrace=False)
        return outcome.result

    def load(self, source: str | Path | Mapping[str, Any] | LoadedScenario) -> list[LoadedScenario]:
        """Every scenario (and matrix variant) in ``source``; a bad file fails the test."""
        __tracebackhide__ = True
        from handoff_sim.scenarios import LoadedScenario, ScenarioFileError, load_dict, load_path

        if isinstance(source, LoadedScenario):
            return [source]
        try:
            if isinstance(source, Mapping):
                return load_dict(source, source=f"<dict in {self._request.node.nodeid}>")
            return load_path(self._resolve(source))
        except ScenarioFileError as exc:
            pytest.fail(str(exc), pytrace=False)

    def _resolve(self, source: str | Path) -> Path:
        __tracebackhide__ = True
        path = Path(source)
        if path.is_absolute():
            candidates = [path]
        else:
            candidates = [self._request.path.parent / path, self._request.config.rootpath / path]
        for candidate in candidates:
            if candidate.exists():
                return candidate
        looked = ", ".join(str(c) for c in candidates)
        pytest.fail(
            f"run_scenario: no scenario file {str(source)!r} (looked at {looked})", pytrace=False
        )

    @staticmethod
    def _pick(scenarios: list[LoadedScenario], name: str | None, source: object) -> LoadedScenario:
        __tracebackhide__ = True
        chosen = scenarios if name is None else [s for s in scenarios if name in (s.id, s.name)]
        if len(chosen) == 1:
            return chosen[0]
        ids = ", ".join(s.id for s in scenarios) or "none"
        where = source if isinstance(source, str | Path) else "the mapping"
        if not chosen:
            pytest.fail(
                f"run_scenario: no scenario {name!r} in {where} (it has: {ids})", pytrace=False
            )
        pytest.fail(
            f"run_scenario: {where} holds {len(chosen)} scenarios "
            f"({', '.join(s.id for s in chosen)}); pass name= to pick one",
            pytrace=False,
        )
