"""Hypothesis entry point of handoff-sim: ``st.from_type(HandoffPolicy)``, whichever loads first.

Hypothesis runs this hook every time it is imported, in every environment where
handoff-sim is installed, so it must cost nothing and never import the runtime itself.
It lives here, above the runtime, because ``pytest_handoff`` imports nothing on its own
while importing anything under ``handoff_sim`` loads the runtime.

If ``handoff_sim`` is loaded already, the policy strategy is registered at once;
otherwise a one-shot import hook registers it right after ``handoff_sim`` has been
imported. The strategy module (``handoff_sim.strategies``) loads only when hypothesis
first resolves the type, and a failure never breaks hypothesis for the environment.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

    from handoff_sim.subagents.policy import HandoffPolicy

__all__: list[str] = []

_RUNTIME = "handoff_sim"


def _hypothesis_setup_hook() -> None:
    """Register the policy strategy now, or as soon as ``handoff_sim`` is imported."""
    if _RUNTIME in sys.modules:
        register_policy_strategy()
    elif not any(isinstance(finder, _AfterRuntimeImport) for finder in sys.meta_path):
        sys.meta_path.insert(0, _AfterRuntimeImport())


def register_policy_strategy() -> bool:
    """Register ``HandoffPolicy`` with hypothesis; ``False`` (never an error) if that fails."""
    try:
        from hypothesis import strategies as st

        from handoff_sim.subagents.policy import HandoffPolicy

        st.register_type_strategy(HandoffPolicy, _policies)
    except Exception:  # a broken install must never break hypothesis for everyone
        return False
    return True


def _policies(_type: type[HandoffPolicy]) -> SearchStrategy[HandoffPolicy]:
    from handoff_sim.strategies import policies

    return policies()


class _AfterRuntimeImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself: gives ``handoff_sim``'s own loader a wrapper, then leaves."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname != _RUNTIME:
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(fullname)
        except Exception:  # let the import system report it as it would without us
            return None
        if spec is not None and spec.loader is not None:
            spec.loader = _ThenRegister(spec.loader)
        return spec


class _ThenRegister(importlib.abc.Loader):
    """Runs the real loader, which the module keeps, then registers the strategy."""

    def __init__(self, loader: importlib.abc.Loader) -> None:
        self._loader = loader

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        module.__loader__ = self._loader
        if module.__spec__ is not None:
            module.__spec__.loader = self._loader
        self._loader.exec_module(module)
        register_policy_strategy()
