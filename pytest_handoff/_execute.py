"""Run one loaded scenario the way the plugin does: through the hooks, then check it.

Shared by scenario items (``_collection.py``) and the ``run_scenario`` fixture.
Imported lazily: it needs the runtime and the scenario package.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pytest

from handoff_sim import hookimpl
from pytest_handoff._entry_points import load_entry_point_plugins

if TYPE_CHECKING:
    from handoff_sim import ModelClient
    from handoff_sim.events import Event
    from handoff_sim.scenarios import LoadedScenario, ScenarioResult

__all__ = ["HookObserver", "Outcome", "execute", "wants_snapshot"]


class HookObserver:
    """A runtime observer that hands every event to ``pytest_handoff_event``."""

    def __init__(self, config: pytest.Config, scenario: LoadedScenario | None) -> None:
        self._call = config.hook.pytest_handoff_event
        self._config = config
        self._scenario = scenario

    @hookimpl
    def handoff_sim_event(self, event: Event) -> None:
        """Forward ``event`` to the pytest hook."""
        self._call(config=self._config, scenario=self._scenario, event=event)


def hook_observers(config: pytest.Config, scenario: LoadedScenario | None) -> list[object]:
    """The forwarding observer, only when some plugin implements ``pytest_handoff_event``."""
    load_entry_point_plugins(config)
    if config.hook.pytest_handoff_event.get_hookimpls():
        return [HookObserver(config, scenario)]
    return []


class _ModelHook:
    """A ``ModelFactory`` that asks ``pytest_handoff_make_model`` for unknown model kinds."""

    def __init__(self, config: pytest.Config, scenario: LoadedScenario) -> None:
        self._config = config
        self._scenario = scenario

    def __call__(self, agent_name: str, model_spec: dict[str, Any]) -> ModelClient | None:
        result: ModelClient | None = self._config.hook.pytest_handoff_make_model(
            config=self._config,
            scenario=self._scenario,
            agent_name=agent_name,
            model_spec=model_spec,
        )
        return result


def wants_snapshot(scenario: LoadedScenario) -> bool:
    """Whether the scenario's ``expect.snapshot`` asks for a trace snapshot."""
    expect = getattr(scenario.spec, "expect", None)
    return bool(getattr(expect, "snapshot", False))


@dataclass
class Outcome:
    """A scenario's result plus the snapshot comparison the plugin made for it."""

    result: ScenarioResult
    snapshot_diff: str | None = None
    shown_path: str | None = None
    """The scenario file as the report names it (relative to the rootdir); ``None``: as loaded."""

    @property
    def passed(self) -> bool:
        """Expectations and snapshot both hold."""
        return self.result.passed and self.snapshot_diff is None

    def report(self) -> str:
        """The text a user sees when the scenario failed: no internal traceback."""
        from handoff_sim.scenarios import render_failure

        parts = []
        if not self.result.passed:
            parts.append(render_failure(self.result).rstrip("\n"))
        if self.snapshot_diff is not None:
            scenario = self.result.scenario
            line = scenario.location("expect.snapshot")
            parts.append(f"{scenario.path}:{line}: expect.snapshot: {self.snapshot_diff}")
        text = "\n\n".join(parts)
        if self.shown_path is None:
            return text
        from pytest_handoff._failure import relative_text

        return relative_text(text, self.result.scenario.path, self.shown_path)


def execute(config: pytest.Config, scenario: LoadedScenario, request: Any = None) -> Outcome:
    """Run ``scenario`` with the runtime, model kinds and observers the hooks supply.

    With ``request`` (a ``pytest.FixtureRequest``) and ``expect.snapshot: true``, the
    trace is also compared with its syrupy snapshot.
    """
    from handoff_sim.scenarios import run_scenario

    load_entry_point_plugins(config)
    hook = config.hook
    runtime = hook.pytest_handoff_runtime(config=config, scenario=scenario)
    factories = [_ModelHook(config, scenario)]
    if runtime is None:
        from pytest_handoff._framework import framework_runtime

        runtime = framework_runtime(config, factories, scenario)
    result = run_scenario(
        scenario,
        runtime=runtime,
        model_factories=factories,
        observers=hook_observers(config, scenario),
    )
    hook.pytest_handoff_scenario_result(config=config, result=result)
    from pytest_handoff._failure import shown_path
    from pytest_handoff._keys import OUTCOMES

    outcome = Outcome(result)
    if request is not None and wants_snapshot(scenario):
        outcome.snapshot_diff = _compare_snapshot(request, result)
    if not outcome.passed:  # only a report names the file: a passing item skips the path work
        outcome.shown_path = shown_path(config, scenario.path)
    if request is not None:
        request.node.stash.setdefault(OUTCOMES, []).append(outcome)
    return outcome


def _compare_snapshot(request: Any, result: ScenarioResult) -> str | None:
    from pytest_handoff._snapshot import TraceSnapshotExtension

    try:
        fixture = request.getfixturevalue("snapshot")
    except pytest.FixtureLookupError:
        return (
            "expect.snapshot needs syrupy's `snapshot` fixture: is syrupy disabled (-p no:syrupy)?"
        )
    snapshot = fixture.with_defaults(extension_class=TraceSnapshotExtension)
    if snapshot == result.trace:
        return None
    return snapshot_difference(snapshot.executions[snapshot.num_executions - 1])


def snapshot_difference(assertion: Any) -> str:
    """A plain-text account of a failed snapshot assertion (syrupy's diff is colored)."""
    location = assertion.snapshot_location
    from handoff_sim._terminal import escape_value
    from handoff_sim.scenarios._expect import describe_error

    if assertion.exception is not None:
        error = assertion.exception
        return f"cannot compare with snapshot {location}: {escape_value(describe_error(error))}"
    if assertion.recalled_data is None:
        return f"no snapshot {location} yet: run pytest with --snapshot-update to create it"
    stored = str(assertion.recalled_data).splitlines()
    actual = str(assertion.asserted_data or "").splitlines()
    diff = difflib.unified_diff(stored, actual, "snapshot", "actual trace", lineterm="")
    return f"the trace differs from the stored snapshot {location}\n" + "\n".join(diff)
