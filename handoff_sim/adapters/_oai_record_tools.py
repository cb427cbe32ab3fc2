"""The plain tools of an OpenAI Agents SDK graph, recorded or served from a recording, for a block.

A plain tool is a ``FunctionTool`` that is not an agent used as a tool (``Agent.as_tool``
keeps its agent; handoffs are not tools at all): those are delegations, recorded through
their models. Each agent's plain tools are replaced by copies (``copy.copy``, the SDK's
own way to copy a ``FunctionTool``) whose ``on_invoke_tool`` wraps the real one, and put
back when the block ends.

Recording keeps what ``on_invoke_tool`` gave the SDK: the raw arguments string, the
text the model then saw, and whether the call failed. The SDK turns a tool's exception
into text for the model (its ``failure_error_function``) and marks the call's span
failed: such a call is recorded as an error whose message is that text (a recorded
run always traces: the capture refuses a run with tracing disabled). A replay
answers it the same way: the text goes back to the model and the call ends in error.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from agents import Agent, get_current_span
from agents.tool import FunctionTool
from agents.tool_context import ToolContext

from handoff_sim._errors._families import ConfigurationError
from handoff_sim._safe import describe_error
from handoff_sim.adapters._capture import current_tool
from handoff_sim.adapters._model_swap import FrameworkTree
from handoff_sim.adapters._oai_overrides import agent_graph
from handoff_sim.adapters._record_tools import ToolCallRecorder, recorded_call, served_answer
from handoff_sim.adapters._simulate import note_failure
from handoff_sim.errors import HandoffSimError

__all__ = ["recorded_tools", "replayed_tools"]


def is_plain(tool: object) -> bool:
    """Whether ``tool`` is a plain function tool (not an agent used as a tool)."""
    owner = getattr(tool, "_agent_instance", None)  # set by Agent.as_tool
    return isinstance(tool, FunctionTool) and not isinstance(owner, Agent)


@contextmanager
def _swapped(
    tree: FrameworkTree, make: Callable[[str, FunctionTool], FunctionTool | None]
) -> Iterator[None]:
    """Each agent's plain tools swapped for ``make(agent, tool)`` (None: kept), for the block."""
    previous: list[tuple[Agent[Any], list[Any]]] = []
    try:
        for name, agents in tree.agents.items():
            for agent in agents:
                tools = list(agent.tools)
                for index, tool in enumerate(tools):
                    copied = make(name, tool) if is_plain(tool) else None
                    if copied is not None:
                        tools[index] = copied
                if any(a is not b for a, b in zip(tools, agent.tools, strict=True)):
                    previous.append((agent, agent.tools))
                    agent.tools = tools
        yield
    finally:
        for agent, tools in reversed(previous):
            agent.tools = tools


def _text(output: Any) -> str:
    """A tool's output as the model reads it (the SDK sends any value but text as ``str()``)."""
    return output if isinstance(output, str) else str(output)


def _recording(recorder: ToolCallRecorder, agent: str, tool: FunctionTool) -> FunctionTool:
    """A copy of ``tool`` whose every call is recorded, then answered as the real one answers."""
    invoke = tool.on_invoke_tool

    async def on_invoke_tool(ctx: ToolContext[Any], arguments: str) -> Any:
        span = get_current_span()
        before = None if span is None else span.error

        def outcome(output: Any) -> tuple[str, BaseException | None]:
            text = _text(output)
            after = None if span is None else span.error
            failed = after is not None and after is not before
            return text, RuntimeError(text) if failed else None

        return await recorded_call(
            recorder, agent, tool.name, arguments, lambda: invoke(ctx, arguments), outcome
        )

    copied = copy.copy(tool)
    copied.on_invoke_tool = on_invoke_tool
    return copied


def _replaying(answers: Any, tool: FunctionTool) -> FunctionTool:
    """A copy of ``tool`` answering from the recording; the real function is never called."""

    async def on_invoke_tool(ctx: ToolContext[Any], arguments: str) -> Any:
        try:
            return await served_answer(answers, arguments)
        except HandoffSimError as error:  # no recorded call fits: the run fails, naming the
            note_failure(error)  # tool (the SDK would wrap it in its own UserError)
            raise
        except Exception as exc:  # a recorded failure: the model gets its text, as recorded
            in_flight = current_tool()
            if in_flight is not None:
                in_flight.failed = describe_error(exc)
            return str(exc)

    copied = copy.copy(tool)
    copied.on_invoke_tool = on_invoke_tool
    return copied


def _tree(root: Agent[Any]) -> FrameworkTree:
    """The agents of ``root``'s graph by name, as ``override_models`` finds them."""
    if not isinstance(root, Agent):
        raise ConfigurationError(f"replay: expected an agents.Agent, got {root!r}")
    return agent_graph(root)


@contextmanager
def recorded_tools(tree: FrameworkTree, recorder: ToolCallRecorder) -> Iterator[None]:
    """Every plain tool of ``tree`` records its calls to ``recorder`` for the block."""
    with _swapped(tree, lambda agent, tool: _recording(recorder, agent, tool)):
        yield


@contextmanager
def replayed_tools(root: Agent[Any], answers: Mapping[str, Any]) -> Iterator[None]:
    """The plain tools of ``root``'s graph that were recorded answer from ``answers``, by name."""
    with _swapped(
        _tree(root),
        lambda _agent, tool: _replaying(answers[tool.name], tool) if tool.name in answers else None,
    ):
        yield
