"""``override_models`` on a pydantic-ai graph: models swapped by agent name.

pydantic-ai delegates through tool functions that run another agent, so the graph is
found in the tools: every function tool of an agent's toolsets is searched for the
agents it refers to — through its closure (our ``governed(...)`` tools, tools made in a
function) and the module globals its code names (the docs' delegation tools, which call
a module-level agent). Each named agent runs on its replacement (our model clients
wrapped in ``SimModel``) through pydantic-ai's own ``agent.override(model=...)``.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Iterable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.models import Model

from handoff_sim._errors._families import ConfigurationError
from handoff_sim.adapters._governed import FrameworkMount, Governor
from handoff_sim.adapters._model_swap import FrameworkTree, assign_models, walk
from handoff_sim.adapters._pai_model import SimModel

__all__ = ["agent_graph", "override_models"]

_SEARCH_LIMIT = 10_000
"""How many objects one agent's tools are searched through, at most (a guard, never hit)."""


def _names(code: types.CodeType) -> Iterator[str]:
    """The global names ``code`` and the functions defined inside it refer to."""
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _names(const)


def _referred(value: object, names: dict[int, str]) -> Iterable[object]:
    """What a function (or something that runs one) refers to, for the search.

    An agent found under a module global gets that name in ``names`` (pydantic-ai
    infers an unnamed agent's name from its variable the same way).
    """
    if isinstance(value, functools.partial):
        return [value.func, *value.args, *value.keywords.values()]
    if isinstance(value, types.MethodType):
        return [value.__func__, value.__self__]
    if isinstance(value, Governor):
        return [value.mount]
    if isinstance(value, FrameworkMount):
        return [value.attempt]
    if isinstance(value, types.FunctionType):
        cells = [cell.cell_contents for cell in value.__closure__ or () if _filled(cell)]
        wrapped = getattr(value, "__wrapped__", None)  # functools.wraps: governed_tool's
        if wrapped is not None:
            cells.append(wrapped)
        found = value.__globals__
        named = [n for n in dict.fromkeys(_names(value.__code__)) if n in found]
        for name in named:
            if isinstance(found[name], Agent):
                names.setdefault(id(found[name]), name)
        return cells + [found[n] for n in named]
    return []


def _filled(cell: types.CellType) -> bool:
    try:
        cell.cell_contents  # noqa: B018  # an empty cell raises
    except ValueError:
        return False
    return True


def _agents_in(function: object, names: dict[int, str]) -> list[Agent[Any, Any]]:
    """The agents a tool function refers to, directly or through the functions it calls."""
    found: list[Agent[Any, Any]] = []
    seen: set[int] = set()
    pending = [function]
    while pending and len(seen) < _SEARCH_LIMIT:
        value = pending.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, Agent):
            found.append(value)
        else:
            pending.extend(_referred(value, names))
    return found


def agent_graph(root: Agent[Any, Any]) -> FrameworkTree:
    """Every agent reachable from ``root`` through the agents its tools run, by name.

    An agent without a ``name`` is known by the module global it was found under, if any.
    """
    names: dict[int, str] = {}

    def children(agent: Agent[Any, Any], tree: FrameworkTree) -> Iterable[object]:
        for toolset in agent.toolsets:
            tools = getattr(toolset, "tools", None)
            if isinstance(tools, Mapping):
                for tool in tools.values():
                    yield from _agents_in(getattr(tool, "function", None), names)

    def name_of(agent: Agent[Any, Any]) -> str | None:
        return agent.name or names.get(id(agent))

    return walk(FrameworkTree("pydantic-ai"), root, name_of, children)


def _wrap(name: str, model: Any) -> Model:
    if isinstance(model, Model):
        return model
    if not callable(getattr(model, "complete", None)):
        raise ConfigurationError(
            f"override_models: the model for {name!r} must be a model client with "
            f"complete(request) or a pydantic_ai Model, got {model!r}"
        )
    return SimModel(model)


@contextmanager
def override_models(root: Agent[Any, Any], models: Mapping[str, Any]) -> Iterator[FrameworkTree]:
    """Run the agents of ``root``'s graph named in ``models`` on those models; ``"*"``: the rest.

    Each swap is ``agent.override(model=...)``: it holds in this context and the runs
    and tasks started inside the block, and is undone on exit. An agent without a name
    cannot be named (``"*"`` still reaches it only if it has one: give agents names).
    """
    if not isinstance(root, Agent):
        raise ConfigurationError(f"override_models: expected a pydantic_ai.Agent, got {root!r}")
    tree = agent_graph(root)
    pairs = assign_models(tree, root.name or "agent", models, _wrap)
    with ExitStack() as stack:
        for agent, model in pairs:
            stack.enter_context(agent.override(model=model))
        yield tree
