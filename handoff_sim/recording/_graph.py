"""The agent graph of a recording in the file's own form: prompts, tools, mounts, policies.

From a built :class:`Agent` tree when there is one (everything a scenario file can say
about it), else from a trace (who delegated to whom under which tool, which tools each
agent was offered). What the file form cannot say is kept as a note, never guessed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from handoff_sim import Agent, HandoffPolicy, SubAgent, Tool, Trace, normalize_tool_name
from handoff_sim._tools import ToolSetExecutor
from handoff_sim.events import HandoffStartEvent, ModelRequestEvent, RunStartEvent, ToolStartEvent
from handoff_sim.recording._dispatch_graph import dispatcher_block, sophi_dispatcher, type_block
from handoff_sim.styles.flink import FlinkSubAgent
from handoff_sim.styles.sophi import RiskLevel, SubagentDispatcher
from handoff_sim.styles.sophi._arguments import DELEGATE_TOOL_NAME

__all__ = ["AgentGraph", "duration_text"]

_DEFAULT_MAX_STEPS = 20
_EMPTY_SCHEMA = {"type": "object", "properties": {}}
_IDENTIFIER = r"[A-Za-z_][A-Za-z0-9_]*"
_IMPORT_PATH = re.compile(rf"{_IDENTIFIER}(\.{_IDENTIFIER})*:{_IDENTIFIER}(\.{_IDENTIFIER})*\Z")
"""``package.module:function``, as a file's ``python:`` names a policy function."""


def duration_text(seconds: float) -> str:
    """``seconds`` quantised to 1 ms, written as a file writes a duration (``250ms``, ``1.5s``)."""
    ms = max(0, round(seconds * 1000))
    if ms < 1000:
        return f"{ms}ms"
    if ms % 1000 == 0:
        return f"{ms // 1000}s"
    return f"{ms // 1000}.{ms % 1000:03d}".rstrip("0") + "s"


@dataclass
class AgentGraph:
    """Agents in file form (entry first; no ``model``), plain tools' specs, and notes."""

    entry: str
    agents: dict[str, dict[str, Any]] = field(default_factory=dict)
    tools: dict[str, dict[str, Any]] = field(default_factory=dict)
    subagent_tools: set[str] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)
    agent_types: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The agent types SoPhi dispatchers build agents from, in file form (no ``model``)."""
    executors: dict[str, list[str]] = field(default_factory=dict)
    """Agents with a primary executor of their own, and the tool names their own tools
    serve: every other call that executor answered is written as ``tool_executor:``."""

    @classmethod
    def of(cls, root: Agent) -> AgentGraph:
        """The graph ``root`` reaches through its sub-agents, in definition order."""
        graph = cls(root.name)
        seen: dict[str, Agent] = {}
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
            graph.agents[agent.name] = graph._agent(agent)
            children = (getattr(s, "agent", None) for s in agent.subagents)
            pending.extend(child for child in children if isinstance(child, Agent))
        return graph

    def _agent(self, agent: Agent) -> dict[str, Any]:
        block: dict[str, Any] = {}
        if agent.system_prompt is not None:
            block["system_prompt"] = agent.system_prompt
        if agent.parallel_tool_calls:
            block["parallel_tool_calls"] = True
        if agent.max_steps != _DEFAULT_MAX_STEPS:
            block["max_steps"] = agent.max_steps
        sophi = sophi_dispatcher(agent)
        block.update(self._wiring(agent, sophi))
        if agent.tools:
            block["tools"] = [t.name for t in agent.tools]
        for plain in agent.tools:
            self._tool(agent.name, plain)
        if sophi is None and type(agent.primary_executor) is not ToolSetExecutor:
            self.executors[agent.name] = [t.name for t in agent.tools]
        return block

    def _wiring(self, agent: Agent, sophi: SubagentDispatcher | None) -> dict[str, Any]:
        """The agent's ``policy`` and its ``dispatcher`` (made by ``sophi_agent``) or its
        ``subagents``."""
        out: dict[str, Any] = {}
        policy = self._policy(agent.name, agent.handoff_policy)
        if sophi is not None and policy.get("max_depth") == 0:
            del policy["max_depth"]  # a dispatcher's agent is unlimited unless its file says
        if policy:
            out["policy"] = policy
        if sophi is not None:
            out["dispatcher"] = self._dispatcher(agent, sophi, on_agent=True)
            return out
        mounts = [m for m in (self._mount(agent, s) for s in agent.subagents) if m]
        if mounts:
            out["subagents"] = mounts
        return out

    def offered(self, agent: str) -> set[str] | None:
        """The plain tools ``agent`` has (an agent type: those it may use); None: unknown."""
        if agent in self.agents:
            return set(self.agents[agent].get("tools", ()))
        if agent in self.agent_types:
            return set(self.agent_types[agent].get("allowed_tools", ()))
        return None

    def _dispatcher(
        self, owner: Agent, mount: SubagentDispatcher, *, on_agent: bool
    ) -> dict[str, Any]:
        self.subagent_tools.add(DELEGATE_TOOL_NAME)
        for name, definition in mount.config.definitions.items():
            written = type_block(definition)
            known = self.agent_types.setdefault(name, written)
            if known != written:
                self.notes.append(
                    f"two agent types are named {name!r}: the file describes the first"
                )
        return dispatcher_block(owner, mount, on_agent=on_agent, notes=self.notes)

    def _tool(self, agent: str, plain: Tool) -> None:
        spec: dict[str, Any] = {"description": plain.description}
        if dict(plain.parameters) != _EMPTY_SCHEMA:
            spec["parameters"] = _plain(plain.parameters)
        risk = _risk(agent, plain, self.notes)
        if risk is not None:
            spec["risk"] = risk
        name = plain.name
        known = self.tools.setdefault(name, spec)
        if known != spec:
            self.notes.append(f"tool {name!r} of agent {agent!r} differs from another of that name")

    def _mount(self, owner: Agent, mount: SubAgent) -> dict[str, Any] | None:
        agent = owner.name
        if type(mount) is SubagentDispatcher:
            return {"dispatcher": self._dispatcher(owner, mount, on_agent=False)}
        child = getattr(mount, "agent", None)
        if not isinstance(child, Agent):
            self.notes.append(f"agent {agent!r}: sub-agent {mount.name!r} is not written")
            return None
        self.subagent_tools.add(mount.tool_name)
        entry: dict[str, Any] = {"agent": child.name}
        if mount.name != child.name:
            entry["name"] = mount.name
        if type(mount) is FlinkSubAgent:
            return self._flink(agent, mount, entry)
        if type(mount) is not SubAgent:
            self.notes.append(
                f"agent {agent!r}: sub-agent {mount.name!r} is a {type(mount).__name__}, "
                "written as a plain sub-agent"
            )
        if mount.description != f"Delegate a specialized task to subagent {mount.name}":
            entry["description"] = mount.description
        if mount.tool_name != normalize_tool_name(mount.name):
            entry["tool_name"] = mount.tool_name
        if mount.session_mode.value != "new_session":
            entry["session_mode"] = mount.session_mode.value
        if mount.session_scope != "agent":
            entry["session_scope"] = mount.session_scope
        return entry

    def _flink(self, agent: str, mount: FlinkSubAgent, entry: dict[str, Any]) -> dict[str, Any]:
        entry["style"] = "flink"
        if mount.description != f"Delegate a standalone task to sub-agent {mount.name}":
            entry["description"] = mount.description
        if mount.input_schema is not None:
            entry["input_schema"] = _plain(mount.input_schema)
        if mount.session_mode.value != "new_session":
            entry["session_mode"] = mount.session_mode.value
        if mount.result_type is not None:
            self.notes.append(
                f"agent {agent!r}: sub-agent {mount.name!r}'s result_type is not written"
            )
        return entry

    def _policy(self, agent: str, policy: HandoffPolicy) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key in type(policy).model_fields:
            if key not in policy.model_fields_set:
                continue
            value = getattr(policy, key)
            if key == "timeout" and value is not None:
                out[key] = duration_text(value) if _whole_ms(value) else value
            elif key in ("allowed_tools", "denied_tools") and value is not None:
                out[key] = sorted(value)
            elif key in ("on_denied", "on_error"):
                out[key] = value.value
            elif key in ("input_filter", "retry_on"):
                written = _callable_block(key, value)
                if written is None and value is not None:
                    self.notes.append(
                        f"agent {agent!r}: policy {key} is a function the file cannot name"
                    )
                elif written is not None:
                    out[key] = written
            else:
                out[key] = value
        return out

    @classmethod
    def from_trace(cls, trace: Trace) -> AgentGraph:
        """What a trace says of the graph: who delegated to whom, which tools were offered."""
        runs = [e for e in trace if isinstance(e, RunStartEvent)]
        graph = cls(runs[0].agent if runs else "agent")
        for run in runs:
            graph.agents.setdefault(run.agent, {})
        for start in trace.of_type(HandoffStartEvent):
            graph.subagent_tools.add(start.tool)
            block = graph.agents.setdefault(start.agent, {})
            mounts = block.setdefault("subagents", [])
            entry = {"agent": start.subagent}
            if start.tool != normalize_tool_name(start.subagent):
                entry["tool_name"] = start.tool
            if entry not in mounts:
                mounts.append(entry)
        for request in trace.of_type(ModelRequestEvent):
            block = graph.agents.setdefault(request.agent, {})
            for name in request.tools:
                if name not in graph.subagent_tools and name not in block.get("tools", []):
                    block.setdefault("tools", []).append(name)
                    graph.tools.setdefault(name, {"description": ""})
        for call in trace.of_type(ToolStartEvent):
            if call.tool not in graph.subagent_tools:
                graph.tools.setdefault(call.tool, {"description": ""})
        graph.notes.append("the agents were read from the trace: prompts and policies are unknown")
        return graph


def _risk(agent: str, plain: Tool, notes: list[str]) -> str | None:
    """A tool's declared risk tier as the file writes it (None: safe, the default)."""
    declared = plain.metadata.get("risk", RiskLevel.SAFE)
    if callable(declared):
        notes.append(
            f"tool {plain.name!r} of agent {agent!r}: its risk is a function, written safe"
        )
        return None
    try:
        tier = RiskLevel.parse(declared)
    except ValueError:
        return None  # the agent could not have been built with it
    return None if tier is RiskLevel.SAFE else tier.name.lower()


def _whole_ms(seconds: float) -> bool:
    return abs(seconds * 1000 - round(seconds * 1000)) < 1e-9


def _plain(value: Any) -> Any:
    """``value`` as plain dicts and lists (what YAML writes)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _callable_block(key: str, value: Any) -> dict[str, Any] | None:
    """An input filter or retry classification as the file writes it, if it can be named."""
    if value is None:
        return None
    reference = getattr(value, "reference", None)  # a function a file named by import path
    if isinstance(reference, str) and _IMPORT_PATH.match(reference):
        return {"python": reference}
    if key == "input_filter":
        name = getattr(value, "__name__", "")
        cells = [c.cell_contents for c in (getattr(value, "__closure__", None) or ())]
        if name == "_keep":
            return {"keep": True}
        if name == "fail" and len(cells) == 1 and isinstance(cells[0], str):
            return {"raises": cells[0]}
        if name == "rewrite" and len(cells) == 1 and isinstance(cells[0], str):
            return {"arguments": cells[0]}
    module, qualname = getattr(value, "__module__", None), getattr(value, "__qualname__", "")
    if not module or not qualname or "<" in qualname or module == "__main__":
        return None
    return {"python": f"{module}:{qualname}"}
