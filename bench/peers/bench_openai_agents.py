#!/usr/bin/env python3
# ruff: noqa
# mypy: ignore-errors
# Peer-side workload: copied unchanged (except these header comments) from the peer
# measurements made for handoff-sim, whose figures set the bars in docs/benchmarks.md.
"""Offline sub-agent delegation benchmark for the OpenAI Agents SDK (`openai-agents`).

A parent agent, driven by a scripted in-process Model, delegates to a child agent
exposed through ``child.as_tool(...)``. The child's scripted Model answers at once
with a final text. Nothing touches the network: both models are minimal custom
``agents.models.interface.Model`` implementations (no OpenAI client is created).

Workloads
  sequential : the parent issues N delegation calls, one per turn, then finishes
               (N+1 parent model calls + N child model calls).
  parallel   : the parent issues K delegation calls in ONE model response, the SDK
               runs them as concurrent asyncio tasks, then the parent finishes
               (2 parent model calls + K child model calls).

Each timed run is checked: the child model must have been called exactly N (or K)
times and every tool output that reaches the parent must be the child's answer.

Usage
  "$PEERS_VENV"/bin/python bench_openai_agents.py --handoffs 200 --fanout 50
      [--workload sequential|parallel|both] [--repeats 5] [--warmup 1]
      [--tracing off|memory] [--model custom|scripted] [--no-parallel-check]

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
import agents  # noqa: E402
from agents import Agent, Runner, RunConfig, set_trace_processors, set_tracing_disabled  # noqa: E402
from agents.items import ModelResponse  # noqa: E402
from agents.models.interface import Model  # noqa: E402
from agents.tracing import TracingProcessor, response_span  # noqa: E402
from agents.usage import Usage  # noqa: E402
from agents.testing import assistant_message, function_call  # noqa: E402
IMPORT_SECONDS = time.perf_counter() - T_IMPORT0

try:
    from importlib.metadata import version as _pkg_version

    SDK_VERSION = _pkg_version("openai-agents")
except Exception:  # pragma: no cover
    SDK_VERSION = getattr(agents, "__version__", "unknown")

CHILD_TEXT = "child-done"
PARENT_TEXT = "parent-done"
TOOL_NAME = "delegate"


def _rss_now_mb() -> float:
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def _peak_rss_mb() -> float:
    # Linux reports ru_maxrss in KiB.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _usage() -> Usage:
    # Explicit, constant usage: a real provider reports it, so the framework only adds it up.
    return Usage(requests=1, input_tokens=10, output_tokens=5, total_tokens=15)


def _out_of(item) -> tuple[str | None, str | None, object]:
    """(type, call_id, output) of one input item, whether dict or pydantic object."""
    if isinstance(item, dict):
        return item.get("type"), item.get("call_id"), item.get("output")
    return getattr(item, "type", None), getattr(item, "call_id", None), getattr(item, "output", None)


def _output_text(out: object) -> str:
    if isinstance(out, str):
        return out
    # Structured tool outputs (list of content parts) – join their texts.
    if isinstance(out, list):
        parts = []
        for p in out:
            parts.append(p.get("text", "") if isinstance(p, dict) else getattr(p, "text", ""))
        return "".join(parts)
    return str(out)


class _Base(Model):
    async def stream_response(self, *a, **kw):  # pragma: no cover - not used
        raise NotImplementedError
        yield  # make it an async generator

    @staticmethod
    def _traced(tracing, input, output) -> ModelResponse:
        """Wrap the response in a `response` span the way the SDK's OpenAIResponsesModel does
        (a no-op span when tracing is disabled), so the tracing variant pays for one model span
        per model call like a real provider model would."""
        usage = _usage()
        with response_span(disabled=tracing.is_disabled()) as span:
            span.span_data.usage = {"requests": 1, "input_tokens": usage.input_tokens,
                                    "output_tokens": usage.output_tokens}
            if tracing.include_data():
                span.span_data.input = input  # by reference, as the real model does
        return ModelResponse(output=output, usage=usage, response_id=None)


class ChildModel(_Base):
    """Answers every request immediately with a final text."""

    def __init__(self, sleep_s: float = 0.0) -> None:
        self.calls = 0
        self.sleep_s = sleep_s
        self.inflight = 0
        self.max_inflight = 0

    async def get_response(self, system_instructions, input, model_settings, tools, output_schema,
                           handoffs, tracing, *, previous_response_id=None, conversation_id=None,
                           prompt=None, **_):
        self.calls += 1
        if self.sleep_s:
            self.inflight += 1
            self.max_inflight = max(self.max_inflight, self.inflight)
            await asyncio.sleep(self.sleep_s)
            self.inflight -= 1
        return self._traced(tracing, input, [assistant_message(CHILD_TEXT, item_id="msg_child")])


class ParentModel(_Base):
    """Scripted parent: emits delegation tool calls, checks that each result came back, then
    finishes. Its own work per call is O(1) or O(K) – it never scans the whole history."""

    def __init__(self, workload: str, n: int) -> None:
        self.workload = workload
        self.n = n
        self.calls = 0
        self.results_seen = 0

    def _check_tail(self, input, expected_ids: list[str]) -> None:
        assert isinstance(input, list), type(input)
        tail = input[-len(expected_ids):]
        for item, cid in zip(tail, expected_ids):
            typ, call_id, out = _out_of(item)
            assert typ == "function_call_output", (typ, item)
            assert call_id == cid, (call_id, cid)
            assert _output_text(out) == CHILD_TEXT, out
            self.results_seen += 1

    async def get_response(self, system_instructions, input, model_settings, tools, output_schema,
                           handoffs, tracing, *, previous_response_id=None, conversation_id=None,
                           prompt=None, **_):
        i = self.calls
        self.calls += 1
        if self.workload == "sequential":
            if i > 0:
                self._check_tail(input, [f"call_{i - 1}"])
            if i < self.n:
                out = [function_call(TOOL_NAME, {"input": f"task {i}"}, call_id=f"call_{i}")]
            else:
                out = [assistant_message(PARENT_TEXT, item_id="msg_parent")]
        else:  # parallel
            if i == 0:
                out = [function_call(TOOL_NAME, {"input": f"task {j}"}, call_id=f"call_{j}")
                       for j in range(self.n)]
            else:
                assert i == 1, i
                self._check_tail(input, [f"call_{j}" for j in range(self.n)])
                out = [assistant_message(PARENT_TEXT, item_id="msg_parent")]
        return self._traced(tracing, input, out)


class InMemoryTraceProcessor(TracingProcessor):
    """Keeps exported trace/span dicts in a list instead of sending them anywhere."""

    def __init__(self) -> None:
        self.items: list[dict] = []
        self.spans = 0
        self.traces = 0

    def on_trace_start(self, trace) -> None:
        pass

    def on_trace_end(self, trace) -> None:
        self.traces += 1
        d = trace.export()
        if d:
            self.items.append(d)

    def on_span_start(self, span) -> None:
        pass

    def on_span_end(self, span) -> None:
        self.spans += 1
        d = span.export()
        if d:
            self.items.append(d)

    def shutdown(self) -> None:
        pass

    def force_flush(self) -> None:
        pass


def build(workload: str, n: int, model_kind: str, child_sleep_s: float = 0.0):
    if model_kind == "scripted":
        return _build_scripted(workload, n)
    child_model = ChildModel(sleep_s=child_sleep_s)
    parent_model = ParentModel(workload, n)
    child = Agent(name="child", instructions="Answer the task.", model=child_model)
    parent = Agent(
        name="parent",
        instructions="Delegate tasks to the child.",
        model=parent_model,
        tools=[child.as_tool(tool_name=TOOL_NAME, tool_description="Delegate a task to the child agent.")],
    )
    return parent, parent_model, child_model


def _build_scripted(workload: str, n: int):
    """Variant using the SDK's own test double, agents.testing.ScriptedModel.
    Note: ScriptedModel deep-copies the full model input on every call (to record it), which
    makes the sequential workload O(N^2) in the *test double*, not in the runner."""
    from agents.testing import ScriptedModel

    class Counted:
        calls = 0

    if workload == "sequential":
        steps = [[function_call(TOOL_NAME, {"input": f"task {i}"}, call_id=f"call_{i}")] for i in range(n)]
    else:
        steps = [[function_call(TOOL_NAME, {"input": f"task {j}"}, call_id=f"call_{j}") for j in range(n)]]
    steps.append([assistant_message(PARENT_TEXT, item_id="msg_parent")])
    parent_model = ScriptedModel(steps)
    child_model = ScriptedModel([[assistant_message(CHILD_TEXT, item_id="msg_child")] for _ in range(n)])
    child = Agent(name="child", instructions="Answer the task.", model=child_model)
    parent = Agent(name="parent", instructions="Delegate tasks to the child.", model=parent_model,
                   tools=[child.as_tool(tool_name=TOOL_NAME, tool_description="Delegate a task.")])
    # Give both a `.calls` count compatible with the custom models.
    parent_model.calls_fn = lambda: len(parent_model.calls)  # type: ignore[attr-defined]
    child_model.calls_fn = lambda: len(child_model.calls)  # type: ignore[attr-defined]
    return parent, parent_model, child_model


def _calls(m) -> int:
    f = getattr(m, "calls_fn", None)
    return f() if f else m.calls


async def one_run(workload: str, n: int, model_kind: str, tracing_on: bool, child_sleep_s: float = 0.0):
    parent, parent_model, child_model = build(workload, n, model_kind, child_sleep_s)
    run_config = RunConfig(tracing_disabled=not tracing_on)
    c0 = time.process_time()
    t0 = time.perf_counter()
    result = await Runner.run(parent, "Do the tasks.", max_turns=n + 10, run_config=run_config)
    dt = time.perf_counter() - t0
    cpu = time.process_time() - c0
    # ---- verification: the delegations really happened ----
    assert result.final_output == PARENT_TEXT, result.final_output
    assert _calls(child_model) == n, (_calls(child_model), n)
    exp_parent = n + 1 if workload == "sequential" else 2
    assert _calls(parent_model) == exp_parent, (_calls(parent_model), exp_parent)
    if model_kind == "custom":
        assert parent_model.results_seen == n, (parent_model.results_seen, n)
    # Tool outputs recorded in the run result
    tool_outputs = [it for it in result.new_items if getattr(it, "type", "") == "tool_call_output_item"]
    assert len(tool_outputs) == n, (len(tool_outputs), n)
    assert all(_output_text(it.output) == CHILD_TEXT for it in tool_outputs)
    usage = result.context_wrapper.usage
    return dt, {
        "child_calls": _calls(child_model),
        "parent_calls": _calls(parent_model),
        "usage_requests": usage.requests,
        "cpu_seconds": cpu,
        "max_inflight_children": getattr(child_model, "max_inflight", None),
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
    ap.add_argument("--tracing", choices=["off", "memory"], default="off",
                    help="off: set_tracing_disabled(True); memory: tracing on, in-memory processor only")
    ap.add_argument("--model", choices=["custom", "scripted"], default="custom",
                    help="custom: minimal Model subclass; scripted: agents.testing.ScriptedModel")
    ap.add_argument("--no-parallel-check", action="store_true",
                    help="skip the extra (untimed) run that proves the parallel calls overlap")
    args = ap.parse_args()

    processor = None
    if args.tracing == "off":
        set_tracing_disabled(True)
    else:
        processor = InMemoryTraceProcessor()
        set_trace_processors([processor])  # replaces the default OpenAI backend exporter
        set_tracing_disabled(False)

    rss_after_import = _rss_now_mb()
    workloads = ["sequential", "parallel"] if args.workload == "both" else [args.workload]
    for wl in workloads:
        n = args.handoffs if wl == "sequential" else args.fanout
        first = None
        for w in range(args.warmup):
            dt, _ = asyncio.run(one_run(wl, n, args.model, processor is not None))
            if first is None:
                first = dt
        samples = []
        cpu_samples = []
        info = {}
        for _ in range(args.repeats):
            gc.collect()
            if processor is not None:
                processor.items.clear()
                spans_before = processor.spans
                traces_before = processor.traces
            dt, info = asyncio.run(one_run(wl, n, args.model, processor is not None))
            samples.append(dt)
            cpu_samples.append(info["cpu_seconds"])
        med = statistics.median(samples)
        rec = {
            "framework": "openai-agents",
            "version": SDK_VERSION,
            "workload": wl,
            "n": n,
            "total_seconds": round(med, 6),
            "microseconds_per_handoff": round(med / n * 1e6, 2),
            "peak_rss_mb": round(_peak_rss_mb(), 1),
            "python": platform.python_version(),
            "variant": f"tracing={args.tracing},model={args.model}",
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
        if processor is not None:
            rec["trace_spans_last_run"] = processor.spans - spans_before
            rec["traces_last_run"] = processor.traces - traces_before
        if wl == "parallel" and not args.no_parallel_check and args.model == "custom":
            # Untimed proof of overlap: each child model sleeps 20 ms. Serial execution would take
            # >= K*20 ms; concurrent execution takes ~20 ms plus overhead.
            dt, pinfo = asyncio.run(one_run(wl, n, "custom", processor is not None, child_sleep_s=0.02))
            rec["parallel_check"] = {
                "child_sleep_ms": 20,
                "wall_seconds": round(dt, 4),
                "serial_lower_bound_seconds": round(n * 0.02, 3),
                "max_inflight_children": pinfo["max_inflight_children"],
            }
        print(json.dumps(rec), flush=True)


if __name__ == "__main__":
    main()
