#!/usr/bin/env python3
# ruff: noqa
# mypy: ignore-errors
# Peer-side workload: copied unchanged (except these header comments) from the peer
# measurements made for handoff-sim, whose figures set the bars in docs/benchmarks.md.
"""Offline sub-agent delegation benchmark for pydantic-ai.

A parent agent, driven by a scripted ``FunctionModel`` (async function, so no worker
thread is used), delegates to a child agent through a tool -- the "agent delegation"
pattern from the pydantic-ai docs:

    @parent.tool
    async def delegate(ctx: RunContext[None], task: str) -> str:
        r = await child.run(task, usage=ctx.usage, usage_limits=NO_LIMITS)  # usage is shared
        return r.output

The child runs on its own ``FunctionModel`` (or ``TestModel`` with --child-model test)
and answers at once with a final text. Nothing touches the network.

Workloads
  sequential : the parent issues N delegation calls, one per turn, then finishes
               (N+1 parent model calls + N child model calls).
  parallel   : the parent issues K delegation calls in ONE model response; pydantic-ai runs
               function tools of one response as concurrent asyncio tasks by default
               (2 parent model calls + K child model calls).

Each timed run is checked: the child agent must have run exactly N (or K) times and every
tool return that reaches the parent model must be the child's answer.

Usage
  "$PEERS_VENV"/bin/python bench_pydantic_ai.py --handoffs 200 --fanout 50
      [--workload sequential|parallel|both] [--repeats 5] [--warmup 1]
      [--instrument off|memory] [--child-model function|test] [--no-parallel-check]

Prints one JSON line per workload (median of --repeats timed runs).
"""
from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import platform
import resource
import statistics
import sys
import time

T_IMPORT0 = time.perf_counter()
import pydantic_ai  # noqa: E402
from pydantic_ai import Agent, RunContext  # noqa: E402
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart  # noqa: E402
from pydantic_ai.models.function import AgentInfo, FunctionModel  # noqa: E402
from pydantic_ai.models.test import TestModel  # noqa: E402
from pydantic_ai.usage import RequestUsage, UsageLimits  # noqa: E402
IMPORT_SECONDS = time.perf_counter() - T_IMPORT0

try:
    from importlib.metadata import version as _pkg_version

    PAI_VERSION = _pkg_version("pydantic-ai")
except Exception:  # pragma: no cover
    PAI_VERSION = getattr(pydantic_ai, "__version__", "unknown")

CHILD_TEXT = "child-done"
PARENT_TEXT = "parent-done"
TOOL_NAME = "delegate"


def _rss_now_mb() -> float:
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def _usage() -> RequestUsage:
    # Explicit usage, as a real provider would report: otherwise FunctionModel estimates tokens by
    # walking the whole message history on every call (an O(history) cost of the test double).
    return RequestUsage(input_tokens=10, output_tokens=5)


class ChildState:
    def __init__(self, sleep_s: float = 0.0) -> None:
        self.model_calls = 0
        self.tool_invocations = 0
        self.sleep_s = sleep_s
        self.inflight = 0
        self.max_inflight = 0

    async def fn(self, messages, info: AgentInfo) -> ModelResponse:
        self.model_calls += 1
        if self.sleep_s:
            self.inflight += 1
            self.max_inflight = max(self.max_inflight, self.inflight)
            await asyncio.sleep(self.sleep_s)
            self.inflight -= 1
        return ModelResponse(parts=[TextPart(CHILD_TEXT)], usage=_usage())


class ParentState:
    """Scripted parent; O(1)/O(K) work per call (looks only at the last request)."""

    def __init__(self, workload: str, n: int) -> None:
        self.workload = workload
        self.n = n
        self.calls = 0
        self.results_seen = 0

    def _check_returns(self, messages, expected_ids: list[str]) -> None:
        last = messages[-1]
        assert isinstance(last, ModelRequest), type(last)
        returns = [p for p in last.parts if isinstance(p, ToolReturnPart)]
        assert [p.tool_call_id for p in returns] == expected_ids or \
            sorted(p.tool_call_id for p in returns) == sorted(expected_ids), [p.tool_call_id for p in returns]
        for p in returns:
            assert p.tool_name == TOOL_NAME and p.content == CHILD_TEXT, p
            self.results_seen += 1

    async def fn(self, messages, info: AgentInfo) -> ModelResponse:
        i = self.calls
        self.calls += 1
        if self.workload == "sequential":
            if i > 0:
                self._check_returns(messages, [f"call_{i - 1}"])
            if i < self.n:
                parts = [ToolCallPart(TOOL_NAME, {"task": f"task {i}"}, tool_call_id=f"call_{i}")]
            else:
                parts = [TextPart(PARENT_TEXT)]
        else:
            if i == 0:
                parts = [ToolCallPart(TOOL_NAME, {"task": f"task {j}"}, tool_call_id=f"call_{j}")
                         for j in range(self.n)]
            else:
                assert i == 1, i
                self._check_returns(messages, [f"call_{j}" for j in range(self.n)])
                parts = [TextPart(PARENT_TEXT)]
        return ModelResponse(parts=parts, usage=_usage())


NO_LIMITS = UsageLimits(request_limit=None, tool_calls_limit=None)


def build(workload: str, n: int, child_model_kind: str, child_sleep_s: float = 0.0):
    cs = ChildState(sleep_s=child_sleep_s)
    ps = ParentState(workload, n)
    if child_model_kind == "test":
        child_model = TestModel(custom_output_text=CHILD_TEXT, call_tools=[])
    else:
        child_model = FunctionModel(cs.fn, model_name="child-fn")
    child = Agent(child_model, name="child", instructions="Answer the task.")
    parent = Agent(FunctionModel(ps.fn, model_name="parent-fn"), name="parent",
                   instructions="Delegate tasks to the child.")

    @parent.tool
    async def delegate(ctx: RunContext[None], task: str) -> str:
        """Delegate a task to the child agent."""
        cs.tool_invocations += 1
        # The child's run shares the parent's RunUsage, so the default request_limit=50 would trip
        # on the accumulated count; lift it like the parent's.
        r = await child.run(task, usage=ctx.usage, usage_limits=NO_LIMITS)
        return r.output

    return parent, ps, cs


async def one_run(workload: str, n: int, child_model_kind: str, child_sleep_s: float = 0.0):
    parent, ps, cs = build(workload, n, child_model_kind, child_sleep_s)
    c0 = time.process_time()
    t0 = time.perf_counter()
    result = await parent.run("Do the tasks.", usage_limits=NO_LIMITS)
    dt = time.perf_counter() - t0
    cpu = time.process_time() - c0
    # ---- verification: the delegations really happened ----
    assert result.output == PARENT_TEXT, result.output
    assert cs.tool_invocations == n, (cs.tool_invocations, n)
    if child_model_kind == "function":
        assert cs.model_calls == n, (cs.model_calls, n)
    exp_parent = n + 1 if workload == "sequential" else 2
    assert ps.calls == exp_parent, (ps.calls, exp_parent)
    assert ps.results_seen == n, (ps.results_seen, n)
    usage = result.usage() if callable(result.usage) else result.usage
    return dt, {
        "child_calls": cs.tool_invocations,
        "parent_calls": ps.calls,
        "usage_requests": usage.requests,
        "cpu_seconds": cpu,
        "max_inflight_children": cs.max_inflight,
    }


def main() -> None:
    if not __debug__:
        sys.exit("the delegation checks use assert: do not run with python -O")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--handoffs", type=int, default=200, help="N for the sequential workload")
    ap.add_argument("--fanout", type=int, default=50, help="K for the parallel workload")
    ap.add_argument("--workload", choices=["sequential", "parallel", "both"], default="both")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1, help="untimed runs before the timed ones")
    ap.add_argument("--instrument", choices=["off", "memory"], default="off",
                    help="off: Agent.instrument_all(False); memory: OpenTelemetry spans to an "
                         "InMemorySpanExporter via SimpleSpanProcessor (no network)")
    ap.add_argument("--child-model", choices=["function", "test"], default="function")
    ap.add_argument("--no-parallel-check", action="store_true")
    args = ap.parse_args()

    exporter = None
    if args.instrument == "off":
        Agent.instrument_all(False)
    else:
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
        from pydantic_ai.models.instrumented import InstrumentationSettings

        exporter = InMemorySpanExporter()
        tp = TracerProvider()
        tp.add_span_processor(SimpleSpanProcessor(exporter))
        Agent.instrument_all(InstrumentationSettings(tracer_provider=tp))

    rss_after_import = _rss_now_mb()
    workloads = ["sequential", "parallel"] if args.workload == "both" else [args.workload]
    for wl in workloads:
        n = args.handoffs if wl == "sequential" else args.fanout
        first = None
        for _ in range(args.warmup):
            dt, _info = asyncio.run(one_run(wl, n, args.child_model))
            if first is None:
                first = dt
        samples = []
        cpu_samples = []
        info = {}
        spans_last = None
        for _ in range(args.repeats):
            if exporter is not None:
                exporter.clear()
            gc.collect()
            dt, info = asyncio.run(one_run(wl, n, args.child_model))
            samples.append(dt)
            cpu_samples.append(info["cpu_seconds"])
            if exporter is not None:
                spans_last = len(exporter.get_finished_spans())
        med = statistics.median(samples)
        rec = {
            "framework": "pydantic-ai",
            "version": PAI_VERSION,
            "workload": wl,
            "n": n,
            "total_seconds": round(med, 6),
            "microseconds_per_handoff": round(med / n * 1e6, 2),
            "peak_rss_mb": round(_peak_rss_mb(), 1),
            "python": platform.python_version(),
            "variant": f"instrument={args.instrument},child_model={args.child_model}",
            "repeats": args.repeats,
            "samples_seconds": [round(s, 6) for s in samples],
            "min_seconds": round(min(samples), 6),
            # process CPU time of the same runs: robust to other processes competing for the CPU
            "cpu_seconds_median": round(statistics.median(cpu_samples), 6),
            "cpu_microseconds_per_handoff": round(statistics.median(cpu_samples) / n * 1e6, 2),
            "loadavg_1m_at_end": float(open("/proc/loadavg").read().split()[0]),
            "first_run_seconds": round(first, 6) if first is not None else None,
            "rss_after_import_mb": round(rss_after_import, 1),
            "import_seconds_in_process": round(IMPORT_SECONDS, 4),
            "child_invocations": info["child_calls"],
            "parent_model_calls": info["parent_calls"],
            "model_calls_total": info["child_calls"] + info["parent_calls"],
            "usage_requests": info["usage_requests"],
        }
        if spans_last is not None:
            rec["otel_spans_last_run"] = spans_last
        if exporter is not None:
            exporter.clear()
        if wl == "parallel" and not args.no_parallel_check and args.child_model == "function":
            dt, pinfo = asyncio.run(one_run(wl, n, "function", child_sleep_s=0.02))
            rec["parallel_check"] = {
                "child_sleep_ms": 20,
                "wall_seconds": round(dt, 4),
                "serial_lower_bound_seconds": round(n * 0.02, 3),
                "max_inflight_children": pinfo["max_inflight_children"],
            }
        print(json.dumps(rec), flush=True)


if __name__ == "__main__":
    main()
