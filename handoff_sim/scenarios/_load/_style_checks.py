"""Load-time checks of the style keys: Flink mounts, dispatchers, confirmations, tool runs."""

from __future__ import annotations

from collections.abc import Iterator

from handoff_sim.scenarios._load._yaml import FieldPath
from handoff_sim.scenarios._schema import (
    AgentSpec,
    ApproveSpec,
    DispatcherSpec,
    ExpectSpec,
    ScenarioSpec,
    SubAgentSpec,
)

__all__ = ["DELEGATE_TOOL", "Finding", "style_findings"]

Finding = tuple[FieldPath, str]
DELEGATE_TOOL = "delegate_to_subagent"


def style_findings(spec: ScenarioSpec) -> Iterator[Finding]:
    """Every misuse of a style key, at the key that is wrong."""
    for name, agent in spec.agents.items():
        at: FieldPath = ("agents", name)
        yield from _mount_findings(spec, agent, at)
        if agent.dispatcher is not None:
            yield from _dispatcher_agent_findings(agent, at)
            yield from _confirm_findings(spec, agent.dispatcher, (*at, "dispatcher"))
    yield from _tool_runs_findings(spec, spec.expect, ("expect",))
    for index, variant in enumerate(spec.matrix or ()):
        if variant.expect is not None:
            yield from _tool_runs_findings(spec, variant.expect, ("matrix", index, "expect"))


def _mount_findings(spec: ScenarioSpec, agent: AgentSpec, at: FieldPath) -> Iterator[Finding]:
    for index, mount in agent.entries():
        where: FieldPath = (*at, "subagents", index)
        if not isinstance(mount, SubAgentSpec):
            yield from _confirm_findings(spec, mount.dispatcher, (*where, "dispatcher"))
            continue
        given = mount.model_fields_set
        if mount.style == "flink" and "tool_name" in given:
            yield (
                (*where, "tool_name"),
                "a style flink sub-agent has no tool_name: its callable is always "
                f"subagent_<name> (here subagent_{mount.name or mount.agent})",
            )
        if mount.style == "flink" and "session_scope" in given:
            yield (*where, "session_scope"), "a style flink sub-agent takes no session_scope"
        for key in ("input_schema", "input_type"):
            if mount.style != "flink" and key in given:
                yield (*where, key), f"{key} needs 'style: flink' on this sub-agent"


def _dispatcher_agent_findings(agent: AgentSpec, at: FieldPath) -> Iterator[Finding]:
    if agent.subagents:
        yield (
            (*at, "subagents"),
            "an agent with 'dispatcher' has no other sub-agents; to mix styles, mount the "
            "dispatcher as a subagents entry instead: - dispatcher: {...}",
        )
    if agent.tool_executor is not None:
        yield (
            (*at, "tool_executor"),
            "an agent with 'dispatcher' serves its own tools (the registry); no tool_executor",
        )


def _confirm_findings(
    spec: ScenarioSpec, dispatcher: DispatcherSpec, at: FieldPath
) -> Iterator[Finding]:
    if not isinstance(dispatcher.confirm, ApproveSpec):
        return
    known = [*spec.tools, DELEGATE_TOOL]
    for index, tool in enumerate(dispatcher.confirm.approve):
        if tool not in known:
            yield (
                (*at, "confirm", "approve", index),
                f"undefined tool '{tool}' (tools: {', '.join(known)})",
            )


def _tool_runs_findings(spec: ScenarioSpec, expect: ExpectSpec, at: FieldPath) -> Iterator[Finding]:
    for tool in expect.tool_runs or {}:
        if tool not in spec.tools:
            known = ", ".join(spec.tools) or "none defined"
            yield (*at, "tool_runs", tool), f"undefined tool '{tool}' (tools: {known})"
