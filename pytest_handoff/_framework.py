"""``--handoff-runtime NAME``: run the scenario files on a framework instead of handoff-sim.

``openai-agents`` and ``pydantic-ai`` build each scenario's agents as that framework's
agents (``handoff_sim.adapters``); a plugin's ``pytest_handoff_runtime`` still wins for
the scenarios it claims. A scenario the framework cannot express is skipped with the
reason (``not applicable on openai-agents: ...``), never passed. Imported at start-up
only when the option is given.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from collections.abc import Sequence

    from handoff_sim.scenarios import LoadedScenario, ScenarioRun, ScenarioRuntime
    from handoff_sim.scenarios._build import ModelFactory

__all__ = ["configure", "framework_runtime"]

_FACTORY = pytest.StashKey[Any]()  # the chosen runtime's factory (RuntimeFactory)
_CHOSEN = pytest.StashKey[str]()  # the chosen runtime's name


def configure(config: pytest.Config, name: str) -> None:
    """Check the runtime name and its extra; a wrong name or a missing extra is a usage error."""
    from handoff_sim.adapters import MissingExtraError, runtime_factory
    from handoff_sim.adapters._registry import UnknownRuntimeError

    try:
        factory = runtime_factory(name)
    except (UnknownRuntimeError, MissingExtraError) as exc:
        raise pytest.UsageError(f"--handoff-runtime {name}: {exc}") from None
    config.stash[_CHOSEN] = name
    if factory is not None:
        config.stash[_FACTORY] = factory


class _SkipNotApplicable:
    """A framework runtime whose "not applicable" is a pytest skip with the reason."""

    def __init__(self, runtime: ScenarioRuntime) -> None:
        self.runtime = runtime

    def run(self, scenario: LoadedScenario, *, observers: Sequence[object]) -> ScenarioRun:
        from handoff_sim.adapters import ScenarioNotApplicable

        try:
            return self.runtime.run(scenario, observers=observers)
        except ScenarioNotApplicable as exc:
            pytest.skip(str(exc))


def framework_runtime(
    config: pytest.Config, model_factories: Sequence[ModelFactory], scenario: LoadedScenario
) -> Any | None:
    """The runtime ``--handoff-runtime`` chose for one scenario, or ``None`` for ours.

    A recording runs on the runtime it was recorded on; one made on another runtime
    than the chosen one is skipped, saying which runtime it needs.
    """
    factory = config.stash.get(_FACTORY, None)
    if factory is None and scenario.spec.recorded is None:
        return None
    from handoff_sim.adapters import ScenarioNotApplicable
    from handoff_sim.adapters._recorded_runtime import runtime_for
    from handoff_sim.adapters._registry import DEFAULT_RUNTIME

    chosen = config.stash.get(_CHOSEN, DEFAULT_RUNTIME)
    try:
        runtime = runtime_for(scenario, chosen, factory, model_factories)
    except ScenarioNotApplicable as exc:
        pytest.skip(str(exc))
    return None if runtime is None else _SkipNotApplicable(runtime)
