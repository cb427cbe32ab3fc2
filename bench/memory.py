#!/usr/bin/env python3
"""Memory per handoff: peak RSS growth of N sequential handoffs, with every request recorded.

The workload is the sequential delegation of ``bench/delegation.py`` with the project's
own ``ScriptedModel`` on both sides, so every model request is kept (``model.requests``)
and the full trace is recorded. Each measurement runs in a fresh subprocess: the agents
and scripts are built first (not counted), then the run; the growth is the process's
peak RSS after the run (``getrusage``) minus its RSS just before it, and, in a separate
subprocess, the tracemalloc peak of the run. One agent run makes at most 10,000 model
calls, so past 9,999 handoffs the parent goes on in the same session over a second run.

    python bench/memory.py                      # N = 500, 4,000, 10,000; 5 processes each
    python bench/memory.py --sizes 500 --repeats 3
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import resource
import sys
import time
import tracemalloc
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Record, emit, median, print_table, run_json_lines

SIZES = (500, 4_000, 10_000)
BAR_BYTES_PER_HANDOFF = 2048  # peak RSS growth at N=10,000
CHUNK = 9_999  # handoffs per parent run: N+1 model calls must fit in max_steps=10,000
TOOL, CHILD_TEXT = "delegate", "child-done"


def _rss_now_kib() -> int:
    """Resident set size now (``VmRSS``), in KiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status")


def _build(n: int) -> tuple[Any, Any, Any, list[int]]:
    """Parent and child on ScriptedModels: N delegations in runs of at most CHUNK."""
    from handoff_sim import Agent, SubAgent
    from handoff_sim.testing import ScriptedModel

    chunks = [min(CHUNK, n - start) for start in range(0, n, CHUNK)]
    steps: list[dict[str, Any]] = []
    i = 0
    for size in chunks:
        for _ in range(size):
            call = {"id": f"call_{i}", "name": TOOL, "arguments": {"task": f"task {i}"}}
            steps.append({"tool_calls": [call]})
            i += 1
        steps.append({"text": "parent-done"})
    parent_model = ScriptedModel(steps)
    child_model = ScriptedModel([{"text": CHILD_TEXT}] * n)
    child = Agent("child", child_model)
    parent = Agent(
        "parent",
        parent_model,
        subagents=[SubAgent("child", "Delegate a task to the child.", child, tool_name=TOOL)],
        max_steps=min(CHUNK, n) + 1,
    )
    return parent, parent_model, child_model, chunks


async def _run(parent: Any, chunks: list[int]) -> list[Any]:
    results: list[Any] = []
    session = None
    for size in chunks:
        budget = {"max_model_calls": 2 * size + 2, "max_handoffs": size}
        result = await parent.arun("Do the tasks.", session=session, **budget)
        session = result.session_id
        results.append(result)
    return results


def worker(n: int, traced: bool) -> Record:
    """Build, then run N handoffs; what the run added to this process's memory."""
    parent, parent_model, child_model, chunks = _build(n)
    gc.collect()
    before_kib = _rss_now_kib()
    if traced:
        tracemalloc.start()
        traced_before = tracemalloc.get_traced_memory()[0]
    c0, t0 = time.process_time(), time.perf_counter()
    done: list[list[Any]] = []

    async def main() -> None:
        done.append(await _run(parent, chunks))

    asyncio.run(main())
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    record: Record = {"benchmark": "memory", "n": n, "runs": len(chunks)}
    if traced:
        record["tracemalloc_peak_bytes"] = tracemalloc.get_traced_memory()[1] - traced_before
        tracemalloc.stop()
    else:
        peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        record["rss_growth_bytes"] = (peak_kib - before_kib) * 1024
        record["cpu_us_per_handoff"] = round(cpu / n * 1e6, 2)
        record["wall_us_per_handoff"] = round(wall / n * 1e6, 2)
    results = done[0]
    handoffs = sum(len(r.trace.handoffs(status="completed")) for r in results)
    assert handoffs == n, (handoffs, n)
    assert len(child_model.requests) == n, len(child_model.requests)
    assert len(parent_model.requests) == n + len(chunks), len(parent_model.requests)
    last = parent_model.requests[-1]  # sees every run before it, then its own run so far
    assert len(last.messages) == 2 * n + 2 * len(chunks) - 1, len(last.messages)
    return record


def measure(sizes: Sequence[int], repeats: int) -> list[Record]:
    """For each N: ``repeats`` RSS processes and ``repeats`` tracemalloc processes."""
    out: list[Record] = []
    for n in sizes:
        rss, traced, cpu, wall = [], [], [], []
        for _ in range(repeats):
            for flag in ([], ["--tracemalloc"]):
                cmd = [sys.executable, __file__, "--worker", "--n", str(n), *flag]
                rec = run_json_lines(cmd)[0]
                if flag:
                    traced.append(rec["tracemalloc_peak_bytes"])
                else:
                    rss.append(rec["rss_growth_bytes"])
                    cpu.append(rec["cpu_us_per_handoff"])
                    wall.append(rec["wall_us_per_handoff"])
        per = median(rss) / n
        out.append(
            {
                "benchmark": "memory",
                "n": n,
                "repeats": repeats,
                "rss_growth_mb": round(median(rss) / 2**20, 2),
                "rss_bytes_per_handoff": round(per),
                "rss_growth_kib_per_handoff": round(per / 1024, 3),
                "tracemalloc_peak_mb": round(median(traced) / 2**20, 2),
                "tracemalloc_bytes_per_handoff": round(median(traced) / n),
                "cpu_us_per_handoff": median(cpu),
                "wall_us_per_handoff": median(wall),
                "samples_rss_bytes": rss,
            }
        )
    return out


def bars(records: Sequence[Record]) -> list[Record]:
    """The bar at the largest N, and the growth per handoff there against the smallest N."""
    if not records:
        return []
    small, large = records[0], records[-1]
    per = large["rss_bytes_per_handoff"]
    flat = large["tracemalloc_bytes_per_handoff"] / max(small["tracemalloc_bytes_per_handoff"], 1)
    return [
        {
            "benchmark": "memory_bar",
            "bar": f"peak RSS growth <= 2 KiB per handoff at N={large['n']:,}",
            "measured": f"{per:,} bytes per handoff ({large['rss_growth_mb']} MB)",
            "met": per <= BAR_BYTES_PER_HANDOFF,
        },
        {
            "benchmark": "memory_bar",
            "bar": f"memory linear: traced bytes per handoff at N={large['n']:,} "
            f"within 1.2x of N={small['n']:,}",
            "measured": f"{large['tracemalloc_bytes_per_handoff']:,} / "
            f"{small['tracemalloc_bytes_per_handoff']:,} bytes = {flat:.2f}x",
            "met": flat <= 1.2,
        },
    ]


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)), help="N values")
    ap.add_argument("--repeats", type=int, default=5, help="processes per N and kind")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--n", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--tracemalloc", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if not __debug__:
        sys.exit("the memory checks use assert: do not run with python -O")
    if args.worker:
        emit(worker(args.n, args.tracemalloc))
        return
    records = measure([int(x) for x in args.sizes.split(",") if x.strip()], args.repeats)
    for rec in records:
        emit(rec)
    verdicts = bars(records)
    for rec in verdicts:
        emit(rec)
    print_table(
        records,
        [
            ("N", "n"),
            ("RSS growth MB", "rss_growth_mb"),
            ("RSS bytes/handoff", "rss_bytes_per_handoff"),
            ("traced MB", "tracemalloc_peak_mb"),
            ("traced bytes/handoff", "tracemalloc_bytes_per_handoff"),
            ("CPU µs/handoff", "cpu_us_per_handoff"),
            ("wall µs/handoff", "wall_us_per_handoff"),
        ],
        title="memory of N sequential handoffs, every request recorded (median)",
    )
    for rec in verdicts:
        print(
            f"{rec['bar']}: {rec['measured']} -> {'met' if rec['met'] else 'NOT met'}",
            file=sys.stderr,
        )


if __name__ == "__main__":
    main()
