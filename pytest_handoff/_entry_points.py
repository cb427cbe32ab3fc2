"""Plugins registered under the ``handoff_sim.plugins`` entry point group, in pytest too.

The ``handoff-sim`` command loads that group for its model kinds, runtimes and
observers; the pytest plugin registers the same modules with pytest, so a package
that adds a model kind registers it once and both find it. Looking the group up costs
tens of milliseconds, so it happens only in sessions that run scenarios or use the
fixtures that call the hooks, once per session.
"""

from __future__ import annotations

import importlib.metadata

import pytest

__all__ = ["ENTRY_POINT_GROUP", "load_entry_point_plugins"]

ENTRY_POINT_GROUP = "handoff_sim.plugins"

_LOADED = pytest.StashKey[bool]()


def load_entry_point_plugins(config: pytest.Config) -> None:
    """Register each module of the group with pytest (once; ``-p no:NAME`` blocks one)."""
    if config.stash.get(_LOADED, False):
        return
    config.stash[_LOADED] = True
    manager = config.pluginmanager
    for entry_point in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        name = entry_point.name
        if manager.is_blocked(name):
            continue
        try:
            plugin = entry_point.load()
        except Exception as exc:
            raise pytest.UsageError(
                f"{ENTRY_POINT_GROUP} entry point {name!r} ({entry_point.value}) cannot be "
                f"loaded: {type(exc).__name__}: {exc}"
            ) from None
        if manager.is_registered(plugin):
            continue
        if manager.get_plugin(name) is not None:
            name = f"{ENTRY_POINT_GROUP}:{name}"
        manager.register(plugin, name=name)
