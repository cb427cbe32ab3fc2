"""The hooks a downstream plugin implements to extend scenario runs: the plugin contract.

Both callers of these hooks load them from here: the pytest plugin (in
``pytest_addhooks``, through ``pytest_handoff.hookspecs``, their documented home) and the
``handoff-sim`` command (for the ``handoff_sim.plugins`` entry points and ``-p`` modules,
with ``config=None``). They are marked for the project name ``pytest``, so pytest takes
them as its own hooks, and this module imports no pytest: it costs the command nothing.

* ``pytest_handoff_make_model`` — add a model kind the scenario format does not know;
* ``pytest_handoff_runtime`` — run a scenario on another framework (a conformance suite);
* ``pytest_handoff_event`` — observe every runtime event of a scenario run;
* ``pytest_handoff_scenario_result`` — see each result before it is checked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    import pytest

    from handoff_sim._models import ModelClient
    from handoff_sim.events import Event

__all__ = [
    "HOOK_PREFIX",
    "pytest_handoff_event",
    "pytest_handoff_make_model",
    "pytest_handoff_runtime",
    "pytest_handoff_scenario_result",
]

HOOK_PREFIX = "pytest_handoff_"
"""Every hook of the contract starts with it."""

hookspec = pluggy.HookspecMarker("pytest")  # what ``pytest.hookspec`` is


@hookspec(firstresult=True)
def pytest_handoff_make_model(
    config: pytest.Config | None, scenario: Any, agent_name: str, model_spec: dict[str, Any]
) -> ModelClient | None:
    """Build the model client of ``agent_name`` from its ``model`` mapping in the scenario.

    Called only for a model kind the built-in runtime does not know. Return a
    ``ModelClient`` (any object with ``async complete(request)``), or ``None`` when
    the kind is not yours. ``scenario`` is the ``LoadedScenario`` being run.
    Also called once when the file is collected (or validated), to refuse a kind
    nobody builds at its line; that client is dropped.
    """


@hookspec(firstresult=True)
def pytest_handoff_runtime(config: pytest.Config | None, scenario: Any) -> Any:
    """Return a ``ScenarioRuntime`` to run ``scenario`` with, or ``None`` for the default.

    A runtime has ``run(scenario, *, observers) -> ScenarioRun`` (see
    ``handoff_sim.scenarios``); the plugin still checks the scenario's expectations
    on the trace it returns, so the same files test another framework. For a
    scenario with a model ``kind`` it is also asked at collection: the model kinds
    of a scenario another runtime runs are not checked.
    """


@hookspec
def pytest_handoff_event(config: pytest.Config | None, scenario: Any, event: Event) -> None:
    """Called for every runtime event of a scenario run, in ``seq`` order.

    ``scenario`` is the ``LoadedScenario``, or ``None`` for runs made through the
    ``simulation`` fixture. An exception raised here reaches the run: do not raise.
    """


@hookspec
def pytest_handoff_scenario_result(config: pytest.Config | None, result: Any) -> None:
    """Called with each ``ScenarioResult`` once its run ends, before its checks."""
