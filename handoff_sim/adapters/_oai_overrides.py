"""``override_models`` on an OpenAI Agents SDK graph: models swapped by agent name.

The graph is walked as the SDK keeps it: an agent's ``tools`` (an ``Agent.as_tool``
tool, governed or not, keeps its agent), its ``handoffs`` (an ``Agent``, or a
``Handoff`` made by ``handoff()``, which keeps a reference to its agent). Each named
agent's ``model`` is set to the replacement (our model clients wrapped in
``SimModel``) and set back when the block ends.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from agents import Agent, Handoff
from agents.models.interface import Model

from handoff_sim._errors._families import ConfigurationError
from handoff_sim.adapters._model_swap import FrameworkTree, assign_models, walk
from handoff_sim.adapters._oai_model import SimModel

__all__ = ["agent_graph", "override_models"]


def _children(agent: Agent[Any], tree: FrameworkTree) -> Iterable[object]:
    """The agents ``agent`` reaches: its agents as tools and its handoff targets."""
    for tool in agent.tools:
        owner = getattr(tool, "_agent_instance", None)  # set by Agent.as_tool
        if isinstance(owner, Agent):
            yield owner
    for entry in agent.handoffs:
        if isinstance(entry, Agent):
            yield entry
        elif isinstance(entry, Handoff):
            ref = entry._agent_ref
            target = ref() if ref is not None else None
            if isinstance(target, Agent):
                yield target
            else:
                tree.unknown[entry.agent_name] = f"the target of handoff {entry.tool_name!r}"


def agent_graph(root: Agent[Any]) -> FrameworkTree:
    """Every agent reachable from ``root`` through agents as tools and handoffs, by name."""
    return walk(FrameworkTree("openai-agents"), root, lambda a: a.name, _children)


def _wrap(name: str, model: Any) -> Model:
    if isinstance(model, Model):
        return model
    if not callable(getattr(model, "complete", None)):
        raise ConfigurationError(
            f"override_models: the model for {name!r} must be a model client with "
            f"complete(request) or an agents Model, got {model!r}"
        )
    return SimModel(model)


@contextmanager
def override_models(root: Agent[Any], models: Mapping[str, Any]) -> Iterator[FrameworkTree]:
    """Run the agents of ``root``'s graph named in ``models`` on those models; ``"*"``: the rest.

    Our model clients are wrapped in :class:`SimModel`; an SDK ``Model`` is used as it
    is. The swap sets each agent's ``model`` (the SDK reads it at every turn), so it
    holds for every run until the block ends, when the previous models are put back
    (a ``RunConfig(model=...)`` still wins over it, as over any agent's model).
    """
    if not isinstance(root, Agent):
        raise ConfigurationError(f"override_models: expected an agents.Agent, got {root!r}")
    tree = agent_graph(root)
    pairs = assign_models(tree, root.name, models, _wrap)
    previous = [(agent, agent.model) for agent, _ in pairs]
    try:
        for agent, model in pairs:
            agent.model = model
        yield tree
    finally:
        for agent, model in reversed(previous):
            agent.model = model
