"""Traces the gate tests check: our own export of a three-level delegation with parallel
fan-out, and the same run with one thing planted (a loop, a 40 s handoff, a forbidden
tool), each written to OTLP JSON and read back as CI would read a recorded trace."""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

from handoff_sim import Trace

# manager fans out to billing and research at once; research delegates to worker
# (three levels of agents); billing calls a plain tool, lookup.
FAN_OUT: dict[str, Any] = {
    "scenario": "fan-out",
    "tools": {"lookup": {"returns": "row", "latency": "100ms"}, "delete_account": {}},
    "agents": {
        "manager": {
            "parallel_tool_calls": True,
            "policy": {"max_depth": 4},
            "model": {
                "script": [
                    {
                        "tool_calls": [
                            {"id": "b", "name": "delegate_billing", "arguments": {"task": "bill"}},
                            {"id": "r", "name": "delegate_research", "arguments": {"task": "dig"}},
                        ]
                    },
                    {"text": "all-done"},
                ]
            },
            "subagents": [
                {"agent": "billing", "tool_name": "delegate_billing"},
                {"agent": "research", "tool_name": "delegate_research"},
            ],
        },
        "billing": {
            "tools": ["lookup"],
            "model": {
                "script": [
                    {"tool_calls": [{"id": "l", "name": "lookup", "arguments": {"q": "acct"}}]},
                    {"text": "billed", "latency": "1s"},
                ]
            },
        },
        "research": {
            "policy": {"max_depth": 4},
            "model": {
                "script": [
                    {"tool_calls": [{"id": "w", "name": "delegate_worker", "arguments": {}}]},
                    {"text": "researched"},
                ]
            },
            "subagents": [{"agent": "worker", "tool_name": "delegate_worker"}],
        },
        "worker": {"model": {"script": [{"text": "built", "latency": "200ms"}]}},
    },
    "run": ["go"],
}


def planted_loop() -> Trace:
    """The worker delegates back to research: manager → research → worker → research.

    Scenario files refuse a sub-agent cycle, so the loop is built in Python: a second
    agent named research (a production trace shows names, not objects).
    """
    from handoff_sim import Agent, HandoffPolicy, SubAgent, simulate
    from handoff_sim.testing import ScriptedModel

    policy = HandoffPolicy(max_depth=4)

    def agent(name: str, *steps: dict[str, Any], subagents: list[SubAgent] = ()) -> Agent:  # type: ignore[assignment]
        return Agent(
            name=name,
            model=ScriptedModel(list(steps)),
            subagents=subagents,
            handoff_policy=policy,
            parallel_tool_calls=True,
        )

    def calls(*pairs: tuple[str, str]) -> dict[str, Any]:
        return {"tool_calls": [{"id": i, "name": n, "arguments": {"task": "t"}} for i, n in pairs]}

    again = agent("research", {"text": "inner"})
    worker = agent(
        "worker",
        calls(("back", "delegate_research")),
        {"text": "built"},
        subagents=[SubAgent("research", agent=again, tool_name="delegate_research")],
    )
    research = agent(
        "research",
        calls(("w", "delegate_worker")),
        {"text": "researched"},
        subagents=[SubAgent("worker", agent=worker, tool_name="delegate_worker")],
    )
    billing = agent("billing", {"text": "billed"})
    manager = agent(
        "manager",
        calls(("b", "delegate_billing"), ("r", "delegate_research")),
        {"text": "all-done"},
        subagents=[
            SubAgent("billing", agent=billing, tool_name="delegate_billing"),
            SubAgent("research", agent=research, tool_name="delegate_research"),
        ],
    )
    return simulate(manager, "go").trace


def planted_slow() -> dict[str, Any]:
    """The worker takes 40 s to answer: the research and worker handoffs take 40 s and more."""
    data = copy.deepcopy(FAN_OUT)
    data["scenario"] = "slow"
    data["agents"]["worker"]["model"]["script"] = [{"text": "built", "latency": "40s"}]
    return data


def planted_forbidden() -> dict[str, Any]:
    """Billing calls delete_account after its lookup."""
    data = copy.deepcopy(FAN_OUT)
    data["scenario"] = "forbidden"
    billing = data["agents"]["billing"]
    billing["tools"] = ["lookup", "delete_account"]
    billing["model"]["script"] = [
        {"tool_calls": [{"id": "l", "name": "lookup", "arguments": {"q": "acct"}}]},
        {"tool_calls": [{"id": "d", "name": "delete_account", "arguments": {"id": 7}}]},
        {"text": "billed", "latency": "1s"},
    ]
    return data


JUNIT_XSD = Path(__file__).with_name("junit-10.xsd")


@functools.cache
def junit_schema() -> Any:
    """The Jenkins xUnit junit-10.xsd pytest's --junitxml follows, compiled once (xmlschema
    takes most of a second to import and compile it)."""
    from tests._helpers import import_extra

    return import_extra("test", "xmlschema").XMLSchema(str(JUNIT_XSD))


def run_trace(data: dict[str, Any]) -> Trace:
    """The trace of running the scenario ``data`` (it must pass: it has no expectations)."""
    from handoff_sim.scenarios import run_scenario

    result = run_scenario(data)
    assert result.error is None, result.error
    return result.trace


def exported(run: dict[str, Any] | Trace, folder: Path, name: str) -> Path:
    """A scenario's run (or a trace) written by our own OTLP export, as ``run --otel`` would."""
    from handoff_sim.otel import write_otlp_json

    path = folder / f"{name}.json"
    trace = run if isinstance(run, Trace) else run_trace(run)
    write_otlp_json({name: trace}, path)
    return path
