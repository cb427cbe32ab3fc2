"""The plain tools of a pydantic-ai graph, recorded or served from a recording, for a block.

Each agent of the graph runs, for the block, with its toolsets (its own function tools
first, then the toolsets it was given) each wrapped in a ``WrapperToolset``, through
pydantic-ai's ``agent.override(tools=[], toolsets=[...])``: the wrapper sees each call
after pydantic-ai validated its arguments and before the tool runs. Recording keeps the
arguments (as JSON), the result as the model reads it, or the exception, and the times.

A delegation is a tool whose body runs another agent of the graph: a call during which
one of the graph's models was asked is not recorded (and the file's fake tools leave
out every tool the trace shows delegating), so a replay runs it live. Replay answers
a recorded tool from the recording without calling it; pydantic-ai's control flow
(deferred calls, approvals) passes through unrecorded.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai import Agent, RunContext
from pydantic_ai.exceptions import ApprovalRequired, CallDeferred, SkipToolExecution
from pydantic_ai.messages import ToolReturnPart
from pydantic_ai.toolsets import AbstractToolset, ToolsetTool, WrapperToolset
from pydantic_core import to_json

from handoff_sim._errors._families import ConfigurationError
from handoff_sim.adapters._model_swap import FrameworkTree
from handoff_sim.adapters._pai_overrides import agent_graph
from handoff_sim.adapters._record_tools import ToolCallRecorder, recorded_call, served_answer

__all__ = ["RecordingToolset", "ReplayingToolset", "recorded_tools", "replayed_tools"]

_CONTROL = (ApprovalRequired, CallDeferred, SkipToolExecution)
"""pydantic-ai's control flow through a tool call: not an answer of the tool."""


def _arguments(tool_args: dict[str, Any]) -> str:
    """The validated arguments as JSON text (what a recording keeps and a replay matches)."""
    return to_json(tool_args, fallback=str).decode()


def _outcome(name: str) -> Any:
    def outcome(result: Any) -> tuple[str, BaseException | None]:
        # the text pydantic-ai shows the model for this result
        return ToolReturnPart(tool_name=name, content=result).model_response_str(), None

    return outcome


@dataclass
class RecordingToolset(WrapperToolset[Any]):
    """A toolset whose every tool call is recorded, then answered by the wrapped toolset."""

    recorder: Any = field(default=None, kw_only=True)
    agent: str = field(default="", kw_only=True)

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        """The wrapped toolset's answer, recorded (a delegation's is not)."""
        return await recorded_call(
            self.recorder,
            self.agent,
            name,
            _arguments(tool_args),
            lambda: self.wrapped.call_tool(name, tool_args, ctx, tool),
            _outcome(name),
            _CONTROL,
        )


@dataclass
class ReplayingToolset(WrapperToolset[Any]):
    """A toolset whose recorded tools answer from the recording; the rest run as they are."""

    answers: Mapping[str, Any] = field(default_factory=dict, kw_only=True)

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        """The recorded answer for ``name``'s arguments; a tool not recorded runs live."""
        served = self.answers.get(name)
        if served is None:
            return await self.wrapped.call_tool(name, tool_args, ctx, tool)
        return await served_answer(served, _arguments(tool_args))


def _wrap_toolsets(
    tree: FrameworkTree, wrap: Any
) -> Iterator[tuple[Agent[Any, Any], list[AbstractToolset[Any]]]]:
    """Each agent of ``tree`` with its toolsets, each wrapped: ``wrap(agent name, toolset)``
    (an agent without a name: ``""``; its requests name it as pydantic-ai runs it)."""
    named = [(name, agent) for name, agents in tree.agents.items() for agent in agents]
    for name, agent in [*named, *(("", agent) for agent in tree.unnamed)]:
        yield agent, [wrap(name, toolset) for toolset in agent.toolsets]


@contextmanager
def _overridden(tree: FrameworkTree, wrap: Any) -> Iterator[None]:
    """Every agent of ``tree`` runs on its toolsets wrapped, for the block."""
    with ExitStack() as stack:
        for agent, toolsets in list(_wrap_toolsets(tree, wrap)):
            # the agent's own function tools are in toolsets[0], wrapped: none besides
            stack.enter_context(agent.override(tools=[], toolsets=toolsets))
        yield


@contextmanager
def recorded_tools(tree: FrameworkTree, recorder: ToolCallRecorder) -> Iterator[None]:
    """Every tool of ``tree``'s agents records its calls to ``recorder`` for the block."""
    with _overridden(
        tree, lambda name, toolset: RecordingToolset(toolset, recorder=recorder, agent=name)
    ):
        yield


@contextmanager
def replayed_tools(root: Agent[Any, Any], answers: Mapping[str, Any]) -> Iterator[None]:
    """The tools of ``root``'s graph that were recorded answer from ``answers``, by name."""
    if not isinstance(root, Agent):
        raise ConfigurationError(f"replay: expected a pydantic_ai.Agent, got {root!r}")
    with _overridden(
        agent_graph(root), lambda _name, toolset: ReplayingToolset(toolset, answers=answers)
    ):
        yield
