"""The agent graph of a recorded pydantic-ai run, in the recording file's own form.

The trace says who delegated to whom under which tool and which tools each agent was
offered; the recorded requests add what a pydantic-ai agent does not expose otherwise:
each agent's instructions (its system prompt), whether its tool calls ran in
parallel, and each plain tool's description and JSON schema. A structured output
type cannot be written (a scenario's agents answer in text): its output tools are
left out of the tools and named in a note, as are the policies of governed tools.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from handoff_sim import ModelRequest, Trace, normalize_tool_name
from handoff_sim.events import HandoffStartEvent, RunStartEvent

__all__ = ["PaiGraph", "recorded_graph"]


@dataclass
class PaiGraph:
    """Agents in file form (entry first, no ``model``), plain tools' specs, and notes.

    The fields are those of ``handoff_sim.recording``'s agent graph, so a recorder can
    write either the same way.
    """

    entry: str
    agents: dict[str, dict[str, Any]] = field(default_factory=dict)
    tools: dict[str, dict[str, Any]] = field(default_factory=dict)
    subagent_tools: set[str] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)


def _mounts(graph: PaiGraph, trace: Trace) -> None:
    """Who delegated to whom under which tool, from the trace's handoffs."""
    for start in trace.of_type(HandoffStartEvent):
        graph.subagent_tools.add(start.tool)
        mounts = graph.agents.setdefault(start.agent, {}).setdefault("subagents", [])
        entry = {"agent": start.subagent}
        if start.tool != normalize_tool_name(start.subagent):
            entry["tool_name"] = start.tool
        if entry not in mounts:
            mounts.append(entry)


def _mount_tool(entry: Mapping[str, Any]) -> str:
    """A mount's tool name in the file's form: its ``tool_name``, else its agent's name."""
    return str(entry.get("tool_name") or normalize_tool_name(str(entry.get("agent"))))


def _describe(graph: PaiGraph, agent: str, first: ModelRequest, outputs: set[str]) -> None:
    """The agent's prompt, parallelism and plain tools, from its first recorded request."""
    block = graph.agents.setdefault(agent, {})
    texts = [m.content or "" for m in first.messages if m.role == "system"]
    if texts:
        block["system_prompt"] = "\n\n".join(texts)
    if first.parallel_tool_calls:
        block["parallel_tool_calls"] = True
    for spec in first.tools:
        if spec.name in graph.subagent_tools or spec.name in outputs:
            continue
        block.setdefault("tools", []).append(spec.name)
        written: dict[str, Any] = {"description": spec.description}
        if spec.parameters:
            written["parameters"] = _plain(spec.parameters)
        graph.tools.setdefault(spec.name, written)
    offered = {name: index for index, name in enumerate(first.tool_names)}
    # in the order the agent offered them: a replay checks the offered names in order
    block.get("subagents", []).sort(key=lambda e: offered.get(_mount_tool(e), len(offered)))
    if outputs:
        graph.notes.append(
            f"agent {agent!r} has a structured output type (output tools "
            f"{', '.join(sorted(outputs))}): the file's agent answers in text"
        )


def recorded_graph(
    trace: Trace,
    first_requests: Mapping[str, ModelRequest],
    output_tools: Mapping[str, set[str]],
) -> PaiGraph:
    """The graph of a recorded pydantic-ai run: mounts from the trace, the rest from requests.

    ``first_requests`` holds each agent's first recorded request; ``output_tools`` the
    output tools each agent was offered.
    """
    runs = [e for e in trace if isinstance(e, RunStartEvent)]
    graph = PaiGraph(runs[0].agent if runs else "agent")
    for run in runs:
        graph.agents.setdefault(run.agent, {})
    _mounts(graph, trace)
    for agent, first in first_requests.items():
        _describe(graph, agent, first, output_tools.get(agent, set()))
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
