"""Scenario runs the report tests share: the showcase file, a wide fan-out, hostile text."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from handoff_sim.scenarios import ScenarioResult, load_dict, load_path, run_scenario

FILES = Path(__file__).resolve().parent / "files"
SHOWCASE = FILES / "showcase.yaml"
ROOT = Path(__file__).resolve().parents[2]

HOSTILE = '</script><script>alert("x")</script><img src=x onerror=alert(1)>&amp;\u2028"\''
"""Text that would run script or break out of an attribute if it were not escaped."""


@cache
def showcase() -> tuple[ScenarioResult, ...]:
    """release-review (fails on purpose: nested parallel, retried timeout, denial, fallback)
    and retry-then-pass."""
    return tuple(run_scenario(s) for s in load_path(SHOWCASE))


@cache
def bundled() -> tuple[ScenarioResult, ...]:
    """Every scenario under scenarios/."""
    return tuple(run_scenario(s) for s in load_path(ROOT / "scenarios"))


def fan_out(count: int, *, timeouts_every: int = 10) -> dict[str, Any]:
    """One model turn delegating ``count`` tasks at once; some attempts time out and retry."""
    calls = [
        {"id": f"c{i}", "name": "delegate_worker", "arguments": {"task": f"t{i}"}}
        for i in range(count)
    ]
    steps: list[dict[str, Any]] = []
    for i in range(count):
        if i % timeouts_every == 3:
            steps.append({"text": "never", "latency": "1h"})
        steps.append({"text": f"ok{i}", "latency": f"{(i * 37) % 900 + 50}ms"})
    return {
        "scenario": f"fan-out-{count}",
        "agents": {
            "boss": {
                "parallel_tool_calls": True,
                "policy": {"timeout": "2s", "max_retries": 1},
                "model": {"script": [{"tool_calls": calls}, {"text": "all done"}]},
                "subagents": [{"agent": "worker", "tool_name": "delegate_worker"}],
            },
            "worker": {"model": {"script": steps}},
        },
        "run": ["go"],
    }


@cache
def wide(count: int = 1000) -> ScenarioResult:
    """The result of :func:`fan_out` with ``count`` parallel handoffs."""
    return run_scenario(load_dict(fan_out(count))[0])


def hostile_run() -> ScenarioResult:
    """A failing run whose output, error and expectations carry :data:`HOSTILE` text."""
    doc = {
        "scenario": "hostile",
        "description": HOSTILE,
        "agents": {
            "boss": {
                "model": {
                    "script": [
                        {
                            "tool_calls": [
                                {
                                    "id": HOSTILE,
                                    "name": "delegate_w",
                                    "arguments": {"task": HOSTILE},
                                }
                            ]
                        },
                        {"text": HOSTILE},
                    ]
                },
                "subagents": [{"agent": "w", "tool_name": "delegate_w"}],
            },
            "w": {"model": {"script": [{"error": HOSTILE}]}},
        },
        "run": [HOSTILE],
        "expect": {"output": HOSTILE + "!"},
    }
    return run_scenario(load_dict(doc)[0])
