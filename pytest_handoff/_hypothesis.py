"""Hypothesis entry point of handoff-sim: the ``handoff-ci`` profile and ``st.from_type``.

Hypothesis runs this hook every time it is imported, in every environment where
handoff-sim is installed, so it must cost nothing, never import the runtime itself
and never raise. It lives here, above the runtime, because ``pytest_handoff``
imports nothing on its own while importing anything under ``handoff_sim`` loads the
runtime.

What it does:

* registers the settings profile ``handoff-ci`` (:data:`CI_PROFILE`), so
  ``pytest --hypothesis-profile=handoff-ci`` (or ``settings.load_profile``) finds it;
* teaches ``st.from_type`` the handoff types: ``HandoffPolicy``, ``SubAgent`` and
  ``Agent`` as soon as ``handoff_sim`` is imported, ``ScenarioSpec`` as soon as
  ``handoff_sim.scenarios`` is. A type whose module is loaded already is
  registered at once; otherwise a one-shot import hook registers it right after its
  module has loaded. The strategies themselves (``handoff_sim.strategies``) load
  only when hypothesis first resolves one of the types.

``HYPOTHESIS_NO_PLUGINS`` turns the hook off; ``import handoff_sim.strategies`` then
registers the types, and :func:`register_profiles` the profile.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from collections.abc import Callable, Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

__all__ = ["CI_PROFILE", "register_profiles", "register_runtime_types", "register_scenario_type"]

CI_PROFILE = "handoff-ci"
"""A settings profile for CI: derandomized, no database, no deadline, the blob printed."""


def _hypothesis_setup_hook() -> None:
    """Register the profile now, and each type now or as soon as its module is imported."""
    register_profiles()
    for module, register in _REGISTER_AFTER.items():
        if module in sys.modules:
            register()
        else:
            _AfterImport.watch(module, register)


def register_profiles() -> bool:
    """Register ``handoff-ci``; ``False`` (never an error) if that fails.

    Like hypothesis' own ``ci`` profile (derandomized: the same examples on every run,
    no database, no deadline, ``@reproduce_failure`` blobs printed), with the health
    checks that large generated agent trees trip (too slow, data too large) off.
    """
    try:
        from hypothesis import HealthCheck, settings

        settings.register_profile(
            CI_PROFILE,
            derandomize=True,
            database=None,
            deadline=None,
            print_blob=True,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        )
    except Exception:  # a broken install must never break hypothesis for everyone
        return False
    return True


def _lazy(name: str) -> Callable[[type[Any]], Any]:
    """A resolver that imports the strategies module only when hypothesis asks."""

    def resolve(_type: type[Any]) -> Any:
        from handoff_sim import strategies

        return getattr(strategies, name)()

    return resolve


def register_runtime_types() -> bool:
    """Register ``HandoffPolicy``, ``SubAgent`` and ``Agent``; ``False`` if that fails."""
    try:
        from hypothesis import strategies as st

        from handoff_sim import Agent, HandoffPolicy, SubAgent

        st.register_type_strategy(HandoffPolicy, _lazy("policies"))
        st.register_type_strategy(SubAgent, _lazy("sub_agents"))
        st.register_type_strategy(Agent, _lazy("agent_trees"))
    except Exception:  # a broken install must never break hypothesis for everyone
        return False
    return True


def register_scenario_type() -> bool:
    """Register ``ScenarioSpec``; ``False`` (never an error) if that fails."""
    try:
        from hypothesis import strategies as st

        from handoff_sim.scenarios import ScenarioSpec

        st.register_type_strategy(ScenarioSpec, _lazy("scenario_specs"))
    except Exception:  # a broken install must never break hypothesis for everyone
        return False
    return True


_REGISTER_AFTER: dict[str, Callable[[], bool]] = {
    "handoff_sim": register_runtime_types,
    "handoff_sim.scenarios": register_scenario_type,
}


class _AfterImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself: gives a watched module's own loader a wrapper, then leaves."""

    def __init__(self) -> None:
        self.pending: dict[str, Callable[[], bool]] = {}

    @classmethod
    def watch(cls, module: str, register: Callable[[], bool]) -> None:
        """Call ``register`` once ``module`` has been imported (one finder for all)."""
        finder = next((f for f in sys.meta_path if isinstance(f, cls)), None)
        if finder is None:
            finder = cls()
            sys.meta_path.insert(0, finder)
        finder.pending.setdefault(module, register)

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        register = self.pending.pop(fullname, None)
        if register is None:
            return None
        if not self.pending and self in sys.meta_path:
            sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(fullname)
        except Exception:  # let the import system report it as it would without us
            return None
        if spec is not None and spec.loader is not None:
            spec.loader = _ThenRegister(spec.loader, register)
        return spec


class _ThenRegister(importlib.abc.Loader):
    """Runs the real loader, which the module keeps, then registers the strategies."""

    def __init__(self, loader: importlib.abc.Loader, register: Callable[[], bool]) -> None:
        self._loader = loader
        self._register = register

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        module.__loader__ = self._loader
        if module.__spec__ is not None:
            module.__spec__.loader = self._loader
        self._loader.exec_module(module)
        self._register()
