"""An OpenAI Agents SDK graph in a scenario file's own form, for a recording of its run.

What the file can say of an SDK agent: its instructions (the system prompt a replay's
fingerprints check), ``parallel_tool_calls``, its agents as tools (sub-agent mounts,
under their tool names) and its function tools (name, description, parameters).
What it cannot say — instructions computed per run, control transfers
(``handoffs=[...]``), hosted tools, a ``governed(...)`` policy kept inside its tool —
is named in ``notes``, never guessed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agents import Agent
from agents.tool import FunctionTool

from handoff_sim._errors._families import ConfigurationError
from handoff_sim.subagents._naming import normalize_tool_name

__all__ = ["SdkGraph", "sdk_graph"]

_EMPTY_SCHEMA = {"type": "object", "properties": {}}
_GOVERNED = "handoff_sim.adapters._oai_governed"  # the module of a governed tool's invoker


@dataclass
class SdkGraph:
    """Agents in file form (entry first, no ``model``), plain tools' specs, and notes.

    The fields are those of ``handoff_sim.recording``'s agent graph, so a recorder can
    write either the same way.
    """

    entry: str
    agents: dict[str, dict[str, Any]] = field(default_factory=dict)
    tools: dict[str, dict[str, Any]] = field(default_factory=dict)
    subagent_tools: set[str] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)

    def _mount(self, agent: str, tool: FunctionTool, child: Agent[Any]) -> dict[str, Any]:
        self.subagent_tools.add(tool.name)
        entry: dict[str, Any] = {"agent": child.name}
        if getattr(tool.on_invoke_tool, "__module__", None) == _GOVERNED:
            self.notes.append(
                f"agent {agent!r}: the governed(...) policy of {tool.name!r} is not written "
                "(give it under the agent's policy: to replay under it)"
            )
        if tool.name != normalize_tool_name(child.name):
            entry["tool_name"] = tool.name
        if tool.description:
            entry["description"] = tool.description
        return entry

    def _tool(self, agent: str, tool: FunctionTool) -> None:
        spec: dict[str, Any] = {"description": tool.description}
        if tool.params_json_schema and dict(tool.params_json_schema) != _EMPTY_SCHEMA:
            spec["parameters"] = dict(tool.params_json_schema)
        if self.tools.setdefault(tool.name, spec) != spec:
            self.notes.append(
                f"tool {tool.name!r} of agent {agent!r} differs from another of that name"
            )

    def _tools_of(
        self, agent: Agent[Any]
    ) -> tuple[list[dict[str, Any]], list[Agent[Any]], list[str]]:
        """``agent``'s mounts (agents as tools), the agents they mount, its plain tool names."""
        mounts: list[dict[str, Any]] = []
        children: list[Agent[Any]] = []
        plain: list[str] = []
        for tool in agent.tools:
            child = getattr(tool, "_agent_instance", None)  # set by Agent.as_tool
            if isinstance(tool, FunctionTool) and isinstance(child, Agent):
                mounts.append(self._mount(agent.name, tool, child))
                children.append(child)
            elif isinstance(tool, FunctionTool):
                plain.append(tool.name)
                self._tool(agent.name, tool)
            else:
                self.notes.append(f"agent {agent.name!r}: hosted tool {tool.name!r} is not written")
        return mounts, children, plain

    def _agent(self, agent: Agent[Any]) -> tuple[dict[str, Any], list[Agent[Any]]]:
        """``agent``'s block, and the agents it mounts as tools."""
        block: dict[str, Any] = {}
        if isinstance(agent.instructions, str):
            block["system_prompt"] = agent.instructions
        elif agent.instructions is not None:
            self.notes.append(
                f"agent {agent.name!r}: instructions computed per run are not written"
            )
        if agent.model_settings.parallel_tool_calls:
            block["parallel_tool_calls"] = True
        mounts, children, plain = self._tools_of(agent)
        if mounts:
            block["subagents"] = mounts
        if plain:
            block["tools"] = plain
        if agent.handoffs:
            self.notes.append(
                f"agent {agent.name!r}: control transfers (handoffs=[...]) are not written: a "
                "scenario file has no form for them"
            )
        return block, children


def sdk_graph(root: Agent[Any]) -> SdkGraph:
    """The graph ``root`` reaches through its agents as tools, in definition order."""
    if not isinstance(root, Agent):
        raise ConfigurationError(f"sdk_graph: expected an agents.Agent, got {root!r}")
    graph = SdkGraph(root.name)
    seen: dict[str, Agent[Any]] = {}
    pending = [root]
    while pending:
        agent = pending.pop(0)
        if agent.name in seen:
            if seen[agent.name] is not agent:
                graph.notes.append(
                    f"two agents are named {agent.name!r}: the file describes the first"
                )
            continue
        seen[agent.name] = agent
        graph.agents[agent.name], children = graph._agent(agent)
        pending.extend(children)
    return graph
