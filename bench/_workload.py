"""Our side of the delegation workloads: the same shape as the peer scripts in bench/peers/.

A parent agent whose scripted model delegates to a child mounted as a sub-agent tool;
the child's model answers at once. ``sequential``: N handoffs, one per parent turn,
then a text answer (N+1 parent calls, N child calls). ``parallel``: K handoffs in one
turn with ``parallel_tool_calls=True``, then a text answer (2 parent calls, K child).

Both fake models are minimal ``ModelClient`` classes that look only at the tail of
the request (like the peers' custom models), so the figures measure the runtime. The
``scripted`` variant uses the project's own ``ScriptedModel`` instead. Every run is
verified after the clock stops: counts, every tool result, and the recorded trace.
"""

from __future__ import annotations

import asyncio
import gc
import json
import time
from dataclasses import dataclass
from typing import Any, Literal

from handoff_sim import Agent, ModelRequest, ModelResponse, RunResult, SubAgent, ToolCall, simulate
from handoff_sim.testing import ScriptedModel

__all__ = ["MODES", "Built", "Mode", "Workload", "build", "execute", "run_once", "verify"]

Mode = Literal["realtime", "simulate", "simulate+wallclock"]
Workload = Literal["sequential", "parallel"]
MODES: tuple[Mode, ...] = ("realtime", "simulate", "simulate+wallclock")

CHILD_TEXT = "child-done"
PARENT_TEXT = "parent-done"
TOOL = "delegate"
EXPECTED_RESULT = json.dumps(
    {"subagent": "child", "toolName": TOOL, "output": CHILD_TEXT, "steps": 1},
    separators=(",", ":"),
)


def _call(i: int) -> ToolCall:
    return ToolCall(f"call_{i}", TOOL, json.dumps({"task": f"task {i}"}))


class ChildModel:
    """Answers every request at once with the same text."""

    model_name = "bench-child"

    def __init__(self) -> None:
        self.calls = 0
        self._answer = ModelResponse(text=CHILD_TEXT)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        self.calls += 1
        return self._answer


class ParentModel:
    """Emits the delegation calls, checks each result that comes back, then answers.

    It reads only the last message (sequential) or the last K (parallel): O(1)/O(K).
    """

    model_name = "bench-parent"

    def __init__(self, workload: Workload, n: int) -> None:
        self.workload, self.n = workload, n
        self.calls = 0
        self.results_seen = 0

    def _check_tail(self, request: ModelRequest, first: int, count: int) -> None:
        tail = request.messages[-count:]
        for offset, message in enumerate(tail):
            assert message.role == "tool", message
            assert message.tool_call_id == f"call_{first + offset}", message
            assert message.content == EXPECTED_RESULT, message.content
            self.results_seen += 1

    async def complete(self, request: ModelRequest) -> ModelResponse:
        i = self.calls
        self.calls += 1
        if self.workload == "sequential":
            if i > 0:
                self._check_tail(request, i - 1, 1)
            if i < self.n:
                return ModelResponse(tool_calls=(_call(i),))
            return ModelResponse(text=PARENT_TEXT)
        if i == 0:
            return ModelResponse(tool_calls=tuple(_call(j) for j in range(self.n)))
        assert i == 1, i
        self._check_tail(request, 0, self.n)
        return ModelResponse(text=PARENT_TEXT)


def _scripted(workload: Workload, n: int) -> tuple[ScriptedModel, ScriptedModel]:
    steps: list[dict[str, Any]]
    if workload == "sequential":
        steps = [{"tool_calls": [_call_dict(i)]} for i in range(n)]
    else:
        steps = [{"tool_calls": [_call_dict(j) for j in range(n)]}]
    steps.append({"text": PARENT_TEXT})
    return ScriptedModel(steps), ScriptedModel([{"text": CHILD_TEXT}] * n)


def _call_dict(i: int) -> dict[str, Any]:
    return {"id": f"call_{i}", "name": TOOL, "arguments": {"task": f"task {i}"}}


@dataclass
class Built:
    """A fresh parent/child pair for one run and the models to verify afterwards."""

    parent: Agent
    parent_model: ParentModel | ScriptedModel
    child_model: ChildModel | ScriptedModel
    max_model_calls: int = 10_000
    max_handoffs: int = 10_000


def build(workload: Workload, n: int, model: str = "custom") -> Built:
    """Fresh agents and models (never timed).

    ``max_steps`` is raised to N+2 (sequential) and the run budget to the run's own
    model calls and handoffs, so K=10,000 in one turn fits.
    """
    parent_model: ParentModel | ScriptedModel
    child_model: ChildModel | ScriptedModel
    if model == "scripted":
        parent_model, child_model = _scripted(workload, n)
    else:
        parent_model, child_model = ParentModel(workload, n), ChildModel()
    child = Agent("child", child_model)
    parent = Agent(
        "parent",
        parent_model,
        subagents=[SubAgent("child", "Delegate a task to the child.", child, tool_name=TOOL)],
        parallel_tool_calls=workload == "parallel",
        max_steps=n + 2 if workload == "sequential" else 3,
    )
    return Built(parent, parent_model, child_model, max(10_000, 2 * n + 2), max(10_000, n))


def _calls(model: ParentModel | ChildModel | ScriptedModel) -> int:
    return len(model.requests) if isinstance(model, ScriptedModel) else model.calls


def verify(built: Built, result: RunResult, workload: Workload, n: int) -> dict[str, int]:
    """Abort unless every delegation really happened and was recorded in the trace."""
    assert result.output == PARENT_TEXT, result.output
    parent_calls = n + 1 if workload == "sequential" else 2
    assert _calls(built.child_model) == n, (_calls(built.child_model), n)
    assert _calls(built.parent_model) == parent_calls, (_calls(built.parent_model), parent_calls)
    assert result.steps == parent_calls, (result.steps, parent_calls)
    if isinstance(built.parent_model, ParentModel):
        assert built.parent_model.results_seen == n, (built.parent_model.results_seen, n)
    handoffs = result.trace.handoffs()
    assert len(handoffs) == n, (len(handoffs), n)
    assert all(h.status == "completed" and h.output == CHILD_TEXT for h in handoffs)
    tool_results = [m for m in result.messages if m.role == "tool"]
    assert len(tool_results) == n, len(tool_results)
    assert all(m.content == EXPECTED_RESULT for m in tool_results)
    return {"events": len(result.trace), "parent_calls": parent_calls, "child_calls": n}


def execute(built: Built, mode: Mode) -> tuple[RunResult, float, float]:
    """Run the built parent once: (result, wall seconds, CPU seconds); only the run is timed.

    ``realtime`` times ``await parent.arun`` on a fresh ``asyncio.run`` loop (as the peer
    scripts time ``Runner.run``/``Agent.run``); the simulate modes time the whole public
    ``simulate(...)`` call, loop set-up and the wall-clock patch included.
    """
    if mode == "realtime":
        done: list[tuple[RunResult, float, float]] = []

        async def timed() -> None:  # returns None: asyncio.run may repr its main task's result
            c0, t0 = time.process_time(), time.perf_counter()
            res = await built.parent.arun(
                "Do the tasks.",
                max_model_calls=built.max_model_calls,
                max_handoffs=built.max_handoffs,
            )
            done.append((res, time.perf_counter() - t0, time.process_time() - c0))

        asyncio.run(timed())
        return done[0]
    c0, t0 = time.process_time(), time.perf_counter()
    wall_clock = mode == "simulate+wallclock"
    result = simulate(
        built.parent,
        "Do the tasks.",
        wall_clock=wall_clock,
        max_model_calls=built.max_model_calls,
        max_handoffs=built.max_handoffs,
    )
    return result, time.perf_counter() - t0, time.process_time() - c0


def run_once(
    mode: Mode, workload: Workload, n: int, model: str = "custom"
) -> tuple[float, float, dict[str, int]]:
    """One verified run on fresh agents: (wall seconds, CPU seconds, counts)."""
    built = build(workload, n, model)
    gc.collect()
    result, wall, cpu = execute(built, mode)
    return wall, cpu, verify(built, result, workload, n)
