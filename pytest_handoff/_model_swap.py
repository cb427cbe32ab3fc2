"""What the ``handoff_models`` fixture hands out: swap models in built trees for one test."""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, overload

if TYPE_CHECKING:
    from handoff_sim import Agent, ModelClient
    from handoff_sim.adapters._model_swap import FrameworkTree
    from handoff_sim.testing._overrides import AgentTree

__all__ = ["ModelSwap"]


class ModelSwap:
    """``handoff_models(tree, {"researcher": fake, "*": SchemaModel()})`` until the test ends.

    Each call swaps the models of ``tree``'s agents named in the mapping (``"*"``: every
    other agent) and returns the tree's agents by name; the swaps are undone after the
    test, last first. A name the tree does not have is an error naming the known ones.
    ``tree`` may be an openai-agents or pydantic-ai agent too: its framework graph is
    walked and the fakes are wrapped in that framework's ``SimModel``.
    """

    def __init__(self) -> None:
        self._active: list[AbstractContextManager[Any]] = []

    @overload
    def __call__(self, tree: Agent, models: Mapping[str, ModelClient]) -> AgentTree: ...

    @overload
    def __call__(self, tree: object, models: Mapping[str, Any]) -> FrameworkTree: ...

    def __call__(self, tree: object, models: Mapping[str, Any]) -> AgentTree | FrameworkTree:
        """Swap the models of ``tree`` by agent name for the rest of the test."""
        from handoff_sim.testing import override_models

        swap = override_models(tree, models)
        agents: AgentTree | FrameworkTree = swap.__enter__()
        self._active.append(swap)
        return agents

    def undo(self) -> None:
        """Undo every swap of the test, last first."""
        while self._active:
            swap = self._active.pop()
            try:
                swap.__exit__(None, None, None)
            except ValueError:
                # Made inside a task (an async test): the swap lived in that task's
                # context, which ended with it; there is nothing left to undo here.
                continue
