"""The agent graph of a recorded pydantic-ai run, in the recording file's own form.

The trace says who delegated to whom under which tool and which tools each agent was
offered; the recorded requests add what a pydantic-ai agent does not expose otherwise:
each agent's instructions (its system prompt), whether its tool calls ran in
parallel, and each plain tool's description and JSON schema. A structured output
type cannot be written (a scenario's agents answer in text): its output tools are
left out of the tools and named in a note.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from handoff_sim import ModelRequest, Trace

if TYPE_CHECKING:
    from handoff_sim.recording._graph import AgentGraph

__all__ = ["recorded_graph"]

_FROM_TRACE = "the agents were read from the trace"


def _system_prompt(request: ModelRequest) -> str | None:
    """The request's system prompt: its system messages' texts, as pydantic-ai sent them."""
    texts = [m.content or "" for m in request.messages if m.role == "system"]
    return "\n\n".join(texts) if texts else None


def _describe(graph: AgentGraph, agent: str, first: ModelRequest, outputs: set[str]) -> None:
    block = graph.agents.setdefault(agent, {})
    prompt = _system_prompt(first)
    if prompt is not None:
        block["system_prompt"] = prompt
    if first.parallel_tool_calls:
        block["parallel_tool_calls"] = True
    if outputs:
        block["tools"] = [t for t in block.get("tools", []) if t not in outputs]
        if not block["tools"]:
            del block["tools"]
        graph.notes.append(
            f"agent {agent!r} has a structured output type (output tools "
            f"{', '.join(sorted(outputs))}): the file's agent answers in text"
        )
    for spec in first.tools:
        if spec.name in graph.tools and spec.name not in outputs:
            written: dict[str, Any] = {"description": spec.description}
            if spec.parameters:
                written["parameters"] = _plain(spec.parameters)
            graph.tools[spec.name] = written


def recorded_graph(
    trace: Trace,
    requests: Mapping[str, Sequence[ModelRequest]],
    output_tools: Mapping[str, set[str]],
) -> AgentGraph:
    """The graph of a recorded pydantic-ai run: the trace's, completed from each agent's requests.

    ``requests`` holds each agent's recorded requests in order; ``output_tools`` the
    output tools each agent was offered (``RecordedAgents.output_tools()``).
    """
    from handoff_sim.recording._graph import AgentGraph

    graph = AgentGraph.from_trace(trace)
    graph.notes = [n for n in graph.notes if not n.startswith(_FROM_TRACE)]
    for agent, asked in requests.items():
        if asked:
            _describe(graph, agent, asked[0], output_tools.get(agent, set()))
    for names in output_tools.values():
        for name in names:
            graph.tools.pop(name, None)
    graph.notes.append(
        "the agents were read from a pydantic-ai run: prompts and tools from its requests, "
        "mounts from its trace; the policies of governed(...) tools are not written"
    )
    return graph


def _plain(value: Any) -> Any:
    """``value`` as plain dicts and lists (what YAML writes)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value
