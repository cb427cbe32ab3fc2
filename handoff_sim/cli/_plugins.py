"""The plugins of the ``handoff-sim`` command: the same ``pytest_handoff_*`` hooks pytest calls.

A plugin is a module with ``pytest_handoff_make_model``, ``pytest_handoff_runtime``,
``pytest_handoff_event`` or ``pytest_handoff_scenario_result`` functions (documented in
``pytest_handoff.hookspecs``, specified in ``handoff_sim._plugin_contract``, so the
command needs neither pytest nor the plugin). The command loads every module registered
under the ``handoff_sim.plugins`` entry point group (the pytest plugin loads the same
group) and every module named with ``-p MODULE``, so a scenario file finds the same model
kinds under ``handoff-sim run`` as under pytest. There is no pytest config here: hooks
get ``config=None``.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, cast

import pluggy

from handoff_sim import _plugin_contract
from handoff_sim._hooks import hookimpl
from handoff_sim._plugin_contract import HOOK_PREFIX
from handoff_sim._safe import describe_error
from handoff_sim.errors import SetupError

if TYPE_CHECKING:
    from handoff_sim._models import ModelClient
    from handoff_sim.events import Event
    from handoff_sim.scenarios import LoadedScenario, ScenarioResult, ScenarioRuntime
    from handoff_sim.scenarios._build import ModelFactory

__all__ = ["ENTRY_POINT_GROUP", "CommandPlugins", "PluginLoadError"]

ENTRY_POINT_GROUP = "handoff_sim.plugins"


class PluginLoadError(SetupError):
    """A plugin named with ``-p`` or registered as an entry point cannot be loaded."""


class _Manager(pluggy.PluginManager):
    """Takes ``pytest_handoff_*`` functions marked or not, as pytest does; ignores the rest."""

    def parse_hookimpl_opts(self, plugin: Any, name: str) -> pluggy.HookimplOpts | None:
        if not name.startswith(HOOK_PREFIX):
            return None
        opts = super().parse_hookimpl_opts(plugin, name)
        if opts is None and callable(getattr(plugin, name, None)):
            return cast("pluggy.HookimplOpts", {})
        return opts


class CommandPlugins:
    """The plugins of one command: entry points first, then each ``-p`` module in order.

    With no plugin at all (the usual case) no hook is ever called, and pytest is not imported.
    """

    def __init__(self, modules: Sequence[str] = ()) -> None:
        loaded = [
            (entry_point.name, _load(entry_point.name, entry_point.load))
            for entry_point in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
        ]
        with _current_directory_importable():
            loaded += [(name, _load(name, importlib.import_module, name)) for name in modules]
        self.manager: pluggy.PluginManager | None = None
        if loaded:
            self.manager = _Manager("pytest")
            self.manager.add_hookspecs(_plugin_contract)
            for name, plugin in loaded:
                if not self.manager.is_registered(plugin):
                    self.manager.register(plugin, name=f"{ENTRY_POINT_GROUP}:{name}")

    def model_factories(self, scenario: LoadedScenario) -> list[ModelFactory]:
        """The model factory that asks ``pytest_handoff_make_model`` for ``scenario``."""
        if self.manager is None:
            return []
        hook = self.manager.hook.pytest_handoff_make_model

        def factory(agent_name: str, model_spec: dict[str, Any]) -> ModelClient | None:
            client: ModelClient | None = hook(
                config=None, scenario=scenario, agent_name=agent_name, model_spec=model_spec
            )
            return client

        return [factory]

    def runtime(self, scenario: LoadedScenario) -> ScenarioRuntime | None:
        """The runtime a plugin supplies for ``scenario``, or ``None`` for the default."""
        if self.manager is None:
            return None
        runtime: ScenarioRuntime | None = self.manager.hook.pytest_handoff_runtime(
            config=None, scenario=scenario
        )
        return runtime

    def observers(self, scenario: LoadedScenario) -> list[object]:
        """An observer forwarding events to ``pytest_handoff_event``, when a plugin has one."""
        if self.manager is None or not self.manager.hook.pytest_handoff_event.get_hookimpls():
            return []
        return [_EventForwarder(self.manager.hook.pytest_handoff_event, scenario)]

    def scenario_result(self, result: ScenarioResult) -> None:
        """Hand a finished result to ``pytest_handoff_scenario_result``."""
        if self.manager is not None:
            self.manager.hook.pytest_handoff_scenario_result(config=None, result=result)


def _load(name: str, load: Callable[..., object], *args: object) -> object:
    try:
        return load(*args)
    except Exception as exc:
        raise PluginLoadError(f"cannot load plugin {name!r}: {_describe(exc)}") from None


class _EventForwarder:
    def __init__(self, hook: Any, scenario: LoadedScenario) -> None:
        self._hook = hook
        self._scenario = scenario

    @hookimpl
    def handoff_sim_event(self, event: Event) -> None:
        """Forward ``event`` to the plugins."""
        self._hook(config=None, scenario=self._scenario, event=event)


@contextmanager
def _current_directory_importable() -> Iterator[None]:
    """``-p mymodule`` finds ``./mymodule.py``, as ``python -m`` would."""
    added = "" not in sys.path
    if added:
        sys.path.insert(0, "")
    try:
        yield
    finally:
        if added and "" in sys.path:
            sys.path.remove("")


def _describe(exc: BaseException) -> str:
    """``Type: message``, and the innermost frame for an error inside the plugin's own code."""
    text = describe_error(exc)
    if isinstance(exc, ImportError):
        return text
    frames = traceback.extract_tb(exc.__traceback__)
    if frames:
        text += f" (at {frames[-1].filename}:{frames[-1].lineno})"
    return text
