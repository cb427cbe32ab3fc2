"""Small builders for the style tests: scripted calls and turns, counting tools."""

from __future__ import annotations

from typing import Any

from handoff_sim import Tool, tool
from handoff_sim.styles.sophi import AgentDefinition, RiskLevel, with_risk

__all__ = ["Counter", "call", "counting_tool", "definition", "delegation", "turn"]


def call(name: str, arguments: Any = None, id: str | None = None) -> dict[str, Any]:
    """One scripted tool call (``arguments`` a dict or raw string; default ``{}``)."""
    step: dict[str, Any] = {"name": name, "arguments": {} if arguments is None else arguments}
    if id is not None:
        step["id"] = id
    return step


def turn(*calls: dict[str, Any]) -> dict[str, Any]:
    """A script step asking for ``calls`` in one model turn."""
    return {"tool_calls": list(calls)}


def delegation(
    subagent_type: str,
    prompt: str = "do it",
    *,
    expected_tools: list[str] | None = None,
    id: str | None = None,
) -> dict[str, Any]:
    """A ``delegate_to_subagent`` call."""
    arguments: dict[str, Any] = {"subagent_type": subagent_type, "prompt": prompt}
    if expected_tools is not None:
        arguments["expected_tools"] = expected_tools
    return call("delegate_to_subagent", arguments, id)


def definition(
    name: str, *allowed: str, description: str = "", model: str | None = None
) -> AgentDefinition:
    """An agent type allowed ``allowed`` tools."""
    return AgentDefinition(
        name=name,
        description=description or f"{name} agent",
        system_prompt=f"You are {name}.",
        allowed_tools=allowed,
        model=model,
    )


class Counter:
    """Counts how often each counting tool ran."""

    def __init__(self) -> None:
        self.calls: dict[str, int] = {}

    def __getitem__(self, name: str) -> int:
        return self.calls.get(name, 0)


def counting_tool(
    name: str, counter: Counter, risk: RiskLevel | str = RiskLevel.SAFE, result: str = ""
) -> Tool:
    """A tool named ``name`` of tier ``risk`` that counts its runs and returns ``result``."""

    def run() -> str:
        counter.calls[name] = counter[name] + 1
        return result or f"{name} ran"

    return with_risk(tool(run, name=name), risk)
