"""Scenario runtimes by name: ``handoff-sim``, ``openai-agents``, ``pydantic-ai``, ``langgraph``.

The command's ``--runtime`` and pytest's ``--handoff-runtime`` select a runtime by
name; a framework runtime is imported only when it is chosen, so a missing extra is
reported then, naming the extra, and never costs anything otherwise.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from handoff_sim._errors._families import ConfigurationError

if TYPE_CHECKING:
    from handoff_sim.adapters._model_swap import FrameworkTree
    from handoff_sim.scenarios import ScenarioRuntime
    from handoff_sim.scenarios._build import ModelFactory

__all__ = [
    "DEFAULT_RUNTIME",
    "RUNTIME_NAMES",
    "RuntimeFactory",
    "UnknownRuntimeError",
    "override_framework_models",
    "record_framework_models",
    "replay_framework_tools",
    "runtime_factory",
]

DEFAULT_RUNTIME = "handoff-sim"

_RUNTIMES: dict[str, tuple[str, str, str] | None] = {
    DEFAULT_RUNTIME: None,
    "openai-agents": (
        "handoff_sim.adapters.openai_agents",
        "handoff_sim.adapters._oai_scenarios",
        "OpenAIAgentsRuntime",
    ),
    "pydantic-ai": (
        "handoff_sim.adapters.pydantic_ai",
        "handoff_sim.adapters._pai_scenarios",
        "PydanticAIRuntime",
    ),
    "langgraph": (
        "handoff_sim.adapters.langgraph",
        "handoff_sim.adapters._lg_scenarios",
        "LangGraphRuntime",
    ),
}

RUNTIME_NAMES: tuple[str, ...] = tuple(_RUNTIMES)
"""Every runtime name ``--runtime`` accepts, the default first."""

RuntimeFactory = Callable[["Sequence[ModelFactory]"], "ScenarioRuntime"]
"""Makes a runtime for one scenario from the model factories of plugins' model kinds."""


class UnknownRuntimeError(ConfigurationError):
    """A runtime name that is not one of :data:`RUNTIME_NAMES`."""


def runtime_factory(name: str) -> RuntimeFactory | None:
    """The factory of the runtime called ``name``; ``None`` for ``handoff-sim`` (the default).

    Raises :class:`UnknownRuntimeError` for a name it does not know and
    :class:`~handoff_sim.adapters.MissingExtraError` when the framework is not installed.
    """
    if name not in _RUNTIMES:
        known = ", ".join(RUNTIME_NAMES)
        raise UnknownRuntimeError(f"unknown runtime {name!r} (choose one of: {known})")
    entry = _RUNTIMES[name]
    if entry is None:
        return None
    adapter, module, attribute = entry
    importlib.import_module(adapter)  # raises MissingExtraError naming the extra
    factory: Any = getattr(importlib.import_module(module), attribute)

    def make(model_factories: Sequence[ModelFactory] = ()) -> ScenarioRuntime:
        runtime: ScenarioRuntime = factory(model_factories)
        return runtime

    return make


_GRAPHS = {
    "agents": ("handoff_sim.adapters.openai_agents", "handoff_sim.adapters._oai_overrides"),
    "pydantic_ai": ("handoff_sim.adapters.pydantic_ai", "handoff_sim.adapters._pai_overrides"),
}
"""A framework's top-level package: its adapter and the module that swaps its models."""


def override_framework_models(
    root: object, models: Mapping[str, Any]
) -> AbstractContextManager[FrameworkTree] | None:
    """``override_models`` for a framework agent (openai-agents, pydantic-ai); ``None`` otherwise.

    The framework is told by the package that defines ``root``'s class, so nothing is
    imported for an object of neither framework.
    """
    for cls in type(root).__mro__:
        entry = _GRAPHS.get(cls.__module__.partition(".")[0])
        if entry is not None:
            adapter, module = entry
            importlib.import_module(adapter)  # raises MissingExtraError naming the extra
            swap: AbstractContextManager[FrameworkTree]
            swap = importlib.import_module(module).override_models(root, models)
            return swap
    return None


_RECORDERS = {
    "agents": ("handoff_sim.adapters.openai_agents", "handoff_sim.adapters._oai_record"),
    "pydantic_ai": ("handoff_sim.adapters.pydantic_ai", "handoff_sim.adapters._pai_record_run"),
}
"""A framework's top-level package: its adapter and the module that records its models."""


def record_framework_models(root: object, recorder: object) -> AbstractContextManager[Any] | None:
    """Record a framework agent's graph for ``handoff_sim.recording.record``; ``None`` otherwise.

    The block's model calls go to ``recorder`` (its ``model_call``) and its runs are
    captured; the context yields what the framework's ``recording(root, recorder)``
    gives (``runtime``, ``versions``, ``graph``, ``capture``). Nothing is imported for
    an object of neither framework.
    """
    for cls in type(root).__mro__:
        entry = _RECORDERS.get(cls.__module__.partition(".")[0])
        if entry is not None:
            adapter, module = entry
            importlib.import_module(adapter)  # raises MissingExtraError naming the extra
            session: AbstractContextManager[Any] = importlib.import_module(module).recording(
                root, recorder
            )
            return session
    return None


_TOOL_REPLAYS = {
    "agents": ("handoff_sim.adapters.openai_agents", "handoff_sim.adapters._oai_record_tools"),
    "pydantic_ai": ("handoff_sim.adapters.pydantic_ai", "handoff_sim.adapters._pai_record_tools"),
}
"""A framework's top-level package: its adapter and the module that replays its plain tools."""


def replay_framework_tools(
    root: object, answers: Mapping[str, Any]
) -> AbstractContextManager[None] | None:
    """A framework graph's recorded plain tools answering from ``answers`` (tool name ->
    recorded answers) for the block, for ``handoff_sim.recording.replay``; ``None`` for an
    object of neither framework."""
    for cls in type(root).__mro__:
        entry = _TOOL_REPLAYS.get(cls.__module__.partition(".")[0])
        if entry is not None:
            adapter, module = entry
            importlib.import_module(adapter)  # raises MissingExtraError naming the extra
            swap: AbstractContextManager[None]
            swap = importlib.import_module(module).replayed_tools(root, answers)
            return swap
    return None
