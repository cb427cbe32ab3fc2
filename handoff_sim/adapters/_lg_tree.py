"""The LangChain run tree a capture keeps: which callback run is a graph, a node, a tool, a model.

LangChain's callbacks name each run by ``run_id`` and its parent's ``parent_run_id``. A
node task carries LangGraph's ``graph:step:<n>`` tag, and only a graph run (a compiled
``StateGraph``: an agent, or a container of agents) runs node tasks, so a chain run is
known as a graph when its first node task starts, before anything runs inside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from handoff_sim.adapters._capture import FrameScope, ModelMark, ToolInFlight
from handoff_sim.adapters._recording import RunRecord
from handoff_sim.events import RunStatus

__all__ = ["Kind", "Node", "is_task"]

Kind = Literal["graph", "chain", "tool", "model"]


@dataclass(slots=True, eq=False)
class Node:
    """One LangChain callback run, as far as the capture needs it."""

    kind: Kind
    name: str
    parent: Node | None
    task: bool = False
    record: RunRecord | None = None
    """A graph's run of ours once opened (a container graph never opens one)."""
    closer: Node | None = None
    """The node task whose end closes this graph's run (so its transfer back is recorded)."""
    closing: list[Node] = field(default_factory=list)
    """The graph runs this task closes when it ends."""
    closing_done: bool = False
    adopted: bool = False
    """A governed attempt's run: the governor records its end."""
    outcome: tuple[RunStatus, str | None] | None = None
    tool: ToolInFlight | None = None
    scope: FrameScope | None = None
    mark: ModelMark | None = None
    asked: tuple[list[Any], Any] | None = None
    """A model call's conversation and bound tools, as LangChain gave them at its start."""

    def graph(self) -> Node | None:
        """The nearest enclosing graph (this node's own, if it is one)."""
        node: Node | None = self
        while node is not None and node.kind != "graph":
            node = node.parent
        return node

    def enclosing_tool(self) -> Node | None:
        """The tool call this graph runs inside, if any (stops at the next graph up)."""
        node = self.parent
        while node is not None and node.kind != "graph":
            if node.kind == "tool":
                return node
            node = node.parent
        return None

    def opened_run(self) -> RunRecord | None:
        """The run of the nearest enclosing graph that has one (containers have none)."""
        node: Node | None = self.parent
        while node is not None:
            if node.kind == "graph" and node.record is not None:
                return node.record
            node = node.parent
        return None

    def task_closer(self) -> Node | None:
        """The first node task above this graph, unless a tool or a graph comes first."""
        node = self.parent
        while node is not None and node.kind == "chain":
            if node.task:
                return node
            node = node.parent
        return None


def is_task(tags: Sequence[str] | None) -> bool:
    """LangGraph tags each node task it runs ``graph:step:<n>``."""
    if tags:
        for tag in tags:
            if tag.startswith("graph:step:"):
                return True
    return False
