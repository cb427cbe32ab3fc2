"""The three-level delegation with parallel fan-out the trajectory tests check, and how its
recorded trace is made again (``python -m tests.trajectory._fan_out`` rewrites the file)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from handoff_sim import Trace

RECORDED = Path(__file__).parent / "files" / "fan_out.jsonl"


def _calls(*calls: tuple[str, str, dict[str, Any]]) -> dict[str, Any]:
    return {"tool_calls": [{"id": i, "name": n, "arguments": a} for i, n, a in calls]}


# manager fans out to billing and research at once; billing queries sql twice, then looks
# up the account; research delegates to worker (three levels), which searches.
FAN_OUT: dict[str, Any] = {
    "scenario": "fan-out",
    "tools": {
        "sql": {"returns": "rows", "latency": "100ms"},
        "lookup": {"returns": "acct", "latency": "50ms"},
        "search": {"returns": "hits", "latency": "10ms"},
    },
    "agents": {
        "manager": {
            "parallel_tool_calls": True,
            "policy": {"max_depth": 3},
            "model": {
                "script": [
                    _calls(
                        ("b", "delegate_billing", {"task": "bill"}),
                        ("r", "delegate_research", {"task": "dig"}),
                    ),
                    {"text": "all-done"},
                ]
            },
            "subagents": [
                {"agent": "billing", "tool_name": "delegate_billing"},
                {"agent": "research", "tool_name": "delegate_research"},
            ],
        },
        "billing": {
            "tools": ["sql", "lookup"],
            "model": {
                "script": [
                    _calls(("s1", "sql", {"query": "select refunds", "limit": 10})),
                    _calls(("s2", "sql", {"query": "select invoices", "limit": 10})),
                    _calls(("l1", "lookup", {"account": "A-7"})),
                    {"text": "billed"},
                ]
            },
        },
        "research": {
            "tools": ["search"],
            "policy": {"max_depth": 3},
            "model": {
                "script": [
                    _calls(("q1", "search", {"q": "refund policy"})),
                    _calls(("w", "delegate_worker", {"task": "build"})),
                    {"text": "researched"},
                ]
            },
            "subagents": [{"agent": "worker", "tool_name": "delegate_worker"}],
        },
        "worker": {
            "tools": ["search"],
            "model": {
                "script": [
                    _calls(("q2", "search", {"q": "build steps"})),
                    {"text": "built"},
                ]
            },
        },
    },
    "run": ["go"],
}


def run_fan_out() -> Trace:
    """Run the fan-out scenario and return its trace."""
    from handoff_sim.scenarios import load_dict, run_scenario

    (scenario,) = load_dict(FAN_OUT)
    result = run_scenario(scenario)
    assert result.passed, result.mismatches
    return result.trace


def recorded() -> Trace:
    """The fan-out's recorded trace, as a test reads a stored run."""
    return Trace.from_jsonl(RECORDED.read_text(encoding="utf-8"))


if __name__ == "__main__":
    RECORDED.write_text(run_fan_out().to_jsonl(), encoding="utf-8")
