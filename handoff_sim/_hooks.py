"""The runtime's pluggy hooks: observers of a run register implementations.

An observer is any object with methods marked ``@hookimpl``::

    class Printer:
        @hookimpl
        def handoff_sim_event(self, event):
            print(event.type)

    simulate(agent, "go", observers=[Printer()])
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from handoff_sim.events import Event

__all__ = ["PROJECT_NAME", "RuntimeHookSpec", "hookimpl", "hookspec", "new_plugin_manager"]

PROJECT_NAME = "handoff_sim"
hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


class RuntimeHookSpec:
    """Hooks the runtime calls while a run goes on."""

    @hookspec
    def handoff_sim_event(self, event: Event) -> None:
        """Called once for every event, in ``seq`` order, as it happens."""


def new_plugin_manager(observers: tuple[object, ...] = ()) -> pluggy.PluginManager:
    """A plugin manager with the runtime hookspecs and ``observers`` registered."""
    manager = pluggy.PluginManager(PROJECT_NAME)
    manager.add_hookspecs(RuntimeHookSpec)
    for observer in observers:
        manager.register(observer)
    return manager
