"""Shared pieces of the OpenTelemetry tests: the skip reason, a nested parallel scenario."""

from __future__ import annotations

from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures"
NEEDS_OTEL = "needs the optional extra 'otel': pip install 'handoff-sim[otel]'"

# The manager fans out three handoffs at once: one that delegates again (nested), one whose
# first attempt times out and whose retry succeeds, and one the policy denies.
NESTED_PARALLEL: dict[str, Any] = {
    "scenario": "nested-parallel",
    "agents": {
        "manager": {
            "parallel_tool_calls": True,
            "policy": {
                "timeout": "1s",
                "max_retries": 1,
                "max_depth": 3,
                "denied_tools": ["delegate_secret"],
                "on_denied": "report_to_model",
            },
            "model": {
                "script": [
                    {
                        "tool_calls": [
                            {"id": "r", "name": "delegate_research", "arguments": {"task": "dig"}},
                            {"id": "s", "name": "delegate_slow", "arguments": {"task": "wait"}},
                            {"id": "x", "name": "delegate_secret", "arguments": {"task": "peek"}},
                        ]
                    },
                    {"text": "all-done"},
                ]
            },
            "subagents": [
                {"agent": "research", "tool_name": "delegate_research"},
                {"agent": "slow", "tool_name": "delegate_slow"},
                {"agent": "secret", "tool_name": "delegate_secret"},
            ],
        },
        "research": {
            "model": {
                "script": [
                    {
                        "tool_calls": [
                            {"id": "w", "name": "delegate_worker", "arguments": {"task": "build"}}
                        ]
                    },
                    {"text": "research-done"},
                ]
            },
            "policy": {"max_depth": 3},
            "subagents": [{"agent": "worker", "tool_name": "delegate_worker"}],
        },
        "worker": {"model": {"script": [{"text": "built", "latency": "200ms"}]}},
        "slow": {
            "model": {
                "script": [
                    {"text": "late", "latency": "5s"},
                    {"text": "on-time", "latency": "300ms"},
                ]
            }
        },
        "secret": {"model": {"script": ["never"]}},
    },
    "run": ["go"],
    "expect": {"output": "all-done"},
}
