"""Swap the models of a built agent tree by agent name, for a ``with`` block or a test.

A downstream project's real agent graph runs with fakes without being rebuilt: every
agent reachable from the root through its sub-agents (``SubAgent``, Flink-style mounts,
agents mounted directly) and every agent type of a SoPhi dispatcher can be named. An
openai-agents or pydantic-ai agent is handed to its adapter, which walks that
framework's graph (``handoff_sim.adapters._registry.override_framework_models``).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from typing import Any, overload

from handoff_sim._agent import Agent, override_agent_models, require_agent
from handoff_sim._errors._families import ConfigurationError
from handoff_sim._models import ModelClient

__all__ = ["AgentTree", "override_models"]

ANY_AGENT = "*"

_FRAMEWORK_PACKAGES = ("agents", "pydantic_ai")
"""The top-level packages of the frameworks whose agents the adapters can walk."""


@dataclass(slots=True)
class AgentTree:
    """The agents of a tree by name: built ones, and the types dispatchers build per call.

    ``types`` maps a dispatcher's agent type to the models it would be built with (the
    type's own model, else the dispatcher's), each with the type name.
    """

    agents: dict[str, list[Agent]] = field(default_factory=dict)
    types: dict[str, list[ModelClient]] = field(default_factory=dict)

    @classmethod
    def of(cls, root: Agent) -> AgentTree:
        """Walk ``root``'s sub-agents (each agent once) and its dispatchers' agent types."""
        tree = cls()
        seen: set[int] = set()
        pending = [root]
        while pending:
            agent = pending.pop()
            if id(agent) in seen:
                continue
            seen.add(id(agent))
            tree.agents.setdefault(agent.name, []).append(agent)
            for mount in _mounts(agent):
                child = getattr(mount, "agent", None)
                if isinstance(child, Agent):
                    pending.append(child)
                tree.add_types(mount)
        return tree

    def add_types(self, mount: object) -> None:
        """A SoPhi dispatcher's agent types and the model each would be built with."""
        config = getattr(mount, "config", None)
        definitions = getattr(config, "definitions", None)
        if not isinstance(definitions, Mapping):
            return
        models: Mapping[str, ModelClient] = getattr(config, "models", {}) or {}
        default = getattr(config, "model", None)
        for name in definitions:
            model = models.get(name) or default
            known = self.types.setdefault(name, [])
            if model is not None and all(m is not model for m in known):
                known.append(model)

    @property
    def names(self) -> list[str]:
        """Every name a model can be swapped by, sorted."""
        return sorted(set(self.agents) | set(self.types))


def _mounts(agent: Agent) -> list[object]:
    """The sub-agent mounts of ``agent``: those it was built with and those its executor runs."""
    mounts: list[object] = list(agent.subagents)
    executor_mounts = getattr(getattr(agent, "executor", None), "mounts", {})
    mounts += [m for m in executor_mounts.values() if all(m is not k for k in mounts)]
    return mounts


@overload
def override_models(
    root: Agent, models: Mapping[str, ModelClient]
) -> AbstractContextManager[AgentTree]: ...


@overload
def override_models(root: object, models: Mapping[str, Any]) -> AbstractContextManager[Any]: ...


def override_models(
    root: object, models: Mapping[str, Any]
) -> AbstractContextManager[AgentTree] | AbstractContextManager[Any]:
    """Run the agents of ``root``'s tree named in ``models`` on those models; ``"*"``: the rest.

    A name no agent of the tree has is a ConfigurationError naming it and the known
    names. The swap follows ``Agent.override``: it holds in this context (and the runs and
    tasks started inside the block), stacks, and is undone on exit. An openai-agents or
    pydantic-ai agent's graph is swapped by its adapter (docs/adapters.md, "Fakes in an
    existing graph"): the fakes are wrapped in the framework's ``SimModel``, and the block
    gets a ``handoff_sim.adapters._model_swap.FrameworkTree``.
    """
    if not isinstance(root, Agent):
        swap = _framework_swap(root, models)
        if swap is not None:
            return swap
    return _override_tree(require_agent(root, "override_models"), models)


def _framework_swap(root: object, models: Mapping[str, Any]) -> AbstractContextManager[Any] | None:
    """The adapter's swap for a framework agent (the adapters sit above the fakes: by name)."""
    packages = {cls.__module__.partition(".")[0] for cls in type(root).__mro__}
    if packages.isdisjoint(_FRAMEWORK_PACKAGES):
        return None
    adapters: Any = importlib.import_module("handoff_sim.adapters._registry")
    swap: AbstractContextManager[Any] | None = adapters.override_framework_models(root, models)
    return swap


@contextmanager
def _override_tree(root: Agent, models: Mapping[str, ModelClient]) -> Iterator[AgentTree]:
    tree = AgentTree.of(root)
    _check(root, tree, models)
    fallback = models.get(ANY_AGENT)
    agents: dict[Agent, ModelClient] = {}
    for name, found in tree.agents.items():
        model = models.get(name, fallback)
        if model is not None:
            agents.update(dict.fromkeys(found, model))
    built: dict[tuple[ModelClient, str], ModelClient] = {}
    for name, originals in tree.types.items():
        model = models.get(name, fallback)
        if model is not None:
            built.update({(original, name): model for original in originals})
    with override_agent_models(agents, built):
        yield tree


def _check(root: Agent, tree: AgentTree, models: object) -> None:
    if not isinstance(models, Mapping):
        raise ConfigurationError(
            f"override_models takes a mapping of agent name to model client, got "
            f"{type(models).__name__}"
        )
    known = tree.names
    for name, model in models.items():
        if name != ANY_AGENT and name not in known:
            raise ConfigurationError(
                f"override_models: no agent named {name!r} in the tree of {root.name!r}; "
                f"known agents: {', '.join(known)} (or '*' for every other agent)"
            )
        if model is None or not callable(getattr(model, "complete", None)):
            raise ConfigurationError(
                f"override_models: the model for {name!r} must be a model client with "
                f"complete(request), got {model!r}"
            )
