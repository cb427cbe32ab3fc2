"""Swap models by agent name in a framework's agent graph: what both frameworks share.

``override_models(graph, {"researcher": ScriptedModel([...]), "*": SchemaModel()})`` on
a framework agent walks the agents its graph reaches (each framework says how), checks
every name against them, and hands each named agent its replacement, wrapped in the
framework's ``SimModel``. The framework half applies the swaps and undoes them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from handoff_sim._errors._families import ConfigurationError

__all__ = ["ANY_AGENT", "FrameworkTree", "assign_models", "walk"]

ANY_AGENT = "*"


@dataclass(slots=True)
class FrameworkTree:
    """The agents of a framework graph by name (each agent once), as ``override_models`` found them.

    ``unknown`` names the agents the graph refers to but keeps no reference to (say, an
    SDK ``Handoff`` built by hand), each with where it is referred to; ``unnamed`` holds
    the agents without a name (only ``"*"`` reaches them).
    """

    framework: str
    agents: dict[str, list[Any]] = field(default_factory=dict)
    unknown: dict[str, str] = field(default_factory=dict)
    unnamed: list[Any] = field(default_factory=list)

    @property
    def names(self) -> list[str]:
        """Every name a model can be swapped by, sorted."""
        return sorted(self.agents)


def walk(
    tree: FrameworkTree,
    root: object,
    name_of: Callable[[Any], str | None],
    children: Callable[[Any, FrameworkTree], Iterable[object]],
) -> FrameworkTree:
    """Fill ``tree`` with ``root`` and every agent ``children`` reaches from it, once each."""
    seen: set[int] = set()
    pending = [root]
    while pending:
        agent = pending.pop()
        if id(agent) in seen:
            continue
        seen.add(id(agent))
        name = name_of(agent)
        if name:
            tree.agents.setdefault(name, []).append(agent)
        else:
            tree.unnamed.append(agent)
        pending.extend(children(agent, tree))
    for name in tree.agents:
        tree.unknown.pop(name, None)
    return tree


def _check(tree: FrameworkTree, root_name: str, models: object) -> Mapping[str, Any]:
    if not isinstance(models, Mapping):
        raise ConfigurationError(
            "override_models takes a mapping of agent name to model client, got "
            f"{type(models).__name__}"
        )
    for name, model in models.items():
        if name != ANY_AGENT and name not in tree.agents:
            hint = tree.unknown.get(name)
            why = (
                f"; {name!r} is {hint}, whose agent the graph keeps no reference to: set its "
                "model where it is built"
                if hint
                else ""
            )
            raise ConfigurationError(
                f"override_models: no agent named {name!r} in the {tree.framework} graph of "
                f"{root_name!r}; known agents: {', '.join(tree.names)} (or '*' for every other "
                f"agent){why}"
            )
        if model is None:
            raise ConfigurationError(
                f"override_models: the model for {name!r} must be a model client with "
                "complete(request) or a model of the framework, got None"
            )
    return models


def assign_models(
    tree: FrameworkTree,
    root_name: str,
    models: object,
    wrap: Callable[[str, Any], Any],
) -> list[tuple[Any, Any]]:
    """Each agent of ``tree`` that gets a model, with it (``wrap`` makes it a framework model)."""
    checked = _check(tree, root_name, models)
    fallback = checked.get(ANY_AGENT)
    wrapped: dict[int, Any] = {}
    pairs: list[tuple[Any, Any]] = []
    for name, found in tree.agents.items():
        model = checked.get(name, fallback)
        if model is None:
            continue
        if id(model) not in wrapped:
            wrapped[id(model)] = wrap(name, model)
        pairs.extend((agent, wrapped[id(model)]) for agent in found)
    if fallback is not None and tree.unnamed:
        model = wrapped.get(id(fallback)) or wrap(ANY_AGENT, fallback)
        pairs.extend((agent, model) for agent in tree.unnamed)
    return pairs
