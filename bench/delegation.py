#!/usr/bin/env python3
"""Delegation benchmark: µs per handoff, sequential (N) and parallel (K), ours and the peers'.

For each (workload, size) one worker process per framework and mode (ours in each mode,
with ``--peers`` the OpenAI Agents SDK and pydantic-ai) is asked in turn for one
verified run, round after round (``bench/_interleave.py``): every figure of a size, and
so every ratio to a peer, comes from runs seconds apart under the same load, never from
separate runs. Each worker does one untimed warm-up, ``--repeats`` timed runs (median),
then one untimed run under tracemalloc (ours). One JSON line per measurement and per
peer ratio on stdout; a table on stderr.

    python bench/delegation.py                          # ours, every mode and size
    python bench/delegation.py --setup-peers            # create the peer virtualenv
    python bench/delegation.py --peers --svg docs/benchmarks.svg > bench/out/delegation.jsonl

The peers run on ``.handoff-venvs/peers`` when it exists, else on this interpreter when
it has them installed.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Record, emit, machine, median, print_table
from _interleave import LocalWorker, Sample, Worker, interleave, ratios, say
from _peers import PEER_VENV, PEERS, peer_interpreter, setup_peers
from _svg import Series, render_svg

SEQUENTIAL = (25, 50, 100, 200, 400)
PARALLEL = (10, 50, 200, 1000)
MODES = ("realtime", "simulate", "simulate+wallclock")
PEER_PAIRS = (("parallel", 1000, "openai-agents", 50),)
"""(workload, our size, peer, its size): a standing bar compares different sizes."""


def _sizes(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split(",") if x.strip())


def _workers(args: argparse.Namespace) -> list[Worker]:
    """Ours in each mode, then each peer (``--peers``) on the interpreter that has it."""
    modes = args.modes.split(",")
    workers: list[Worker] = [
        LocalWorker("handoff-sim", m)
        if args.in_process
        else Worker("handoff-sim", sys.executable, m)
        for m in modes
    ]
    for framework in PEERS if args.peers else ():
        python = peer_interpreter(framework)
        if python is None:
            say(f"{framework}: not installed here nor in {PEER_VENV}: skipped (--setup-peers)")
            continue
        workers.append(Worker(framework, python))
    return workers


def _record(s: Sample, workload: str, n: int, args: argparse.Namespace) -> Record:
    """One framework's figures at one size, in the schema of the report."""
    w = s.worker
    rss = w.ask(cmd="rss")
    traced = None
    if w.framework == "handoff-sim" and not args.no_tracemalloc:
        traced = w.ask(cmd="tracemalloc", workload=workload, n=n, mode=w.mode)["peak_mb"]
    total, cpu = median(s.wall), median(s.cpu)
    return {
        "framework": w.framework,
        "version": rss["version"],
        "interpreter": w.python,
        "workload": workload,
        "n": n,
        "mode": w.mode,
        "variant": f"model={args.model},events=recorded"
        if w.framework == "handoff-sim"
        else "default",
        "interleaved": True,
        "total_seconds": round(total, 6),
        "microseconds_per_handoff": round(total / n * 1e6, 2),
        "peak_rss_mb": rss["peak_rss_mb"],
        "repeats": len(s.wall),
        "samples_seconds": [round(x, 6) for x in s.wall],
        "cpu_samples_seconds": [round(x, 6) for x in s.cpu],
        "min_seconds": round(min(s.wall), 6),
        "cpu_seconds_median": round(cpu, 6),
        "cpu_microseconds_per_handoff": round(cpu / n * 1e6, 2),
        "first_run_seconds": round(s.first, 6) if s.first is not None else None,
        "tracemalloc_peak_mb": traced,
        "events_per_run": s.events,
        "child_invocations": n,
        "loadavg_1m_at_end": machine()["loadavg_1m"],
    }


def measure_size(args: argparse.Namespace, workload: str, n: int) -> list[Record]:
    """Ours (each mode) and the peers at one size, interleaved run by run; the ratios."""
    workers = _workers(args)
    # K=1,000 costs a peer seconds per run; 3 repeats keep the plan short
    repeats = [
        args.repeats if w.framework == "handoff-sim" or n < 1000 else min(args.repeats, 3)
        for w in workers
    ]
    try:
        samples = interleave(workers, workload, n, repeats)
        records = [_record(s, workload, n, args) for s in samples]
    finally:
        for w in workers:
            w.close()
    ours = next((s for s in samples if s.worker.framework == "handoff-sim"), None)
    for s in samples:
        if ours is not None and s.worker.framework != "handoff-sim":
            records.append(
                {
                    "benchmark": "peer_ratio",
                    "peer": s.worker.framework,
                    "ours_mode": ours.worker.mode,
                    "workload": workload,
                    "n": n,
                    **ratios(ours, s),
                }
            )
    return records


def peer_pairs(
    args: argparse.Namespace, pairs: Sequence[tuple[str, int, str, int]]
) -> list[Record]:
    """Ours at one size against a peer at another, interleaved (the parallel bar: K=1,000
    against openai-agents at K=50): one worker each, rounds alternating between them."""
    out: list[Record] = []
    for workload, ours_n, peer, peer_n in pairs:
        python = peer_interpreter(peer)
        if python is None:
            continue
        a, b = Worker("handoff-sim", sys.executable), Worker(peer, python)
        try:
            sa, sb = Sample(a), Sample(b)
            for w, n in ((a, ours_n), (b, peer_n)):
                w.ask(cmd="run", workload=workload, n=n)  # warm-up
            for r in range(args.repeats):
                for s, n in ((sa, ours_n), (sb, peer_n))[:: 1 if r % 2 == 0 else -1]:
                    got = s.worker.ask(cmd="run", workload=workload, n=n)
                    s.wall.append(got["wall"] / n)
                    s.cpu.append(got["cpu"] / n)
        finally:
            a.close()
            b.close()
        rec: Record = {"benchmark": "peer_pair", "peer": peer, "workload": workload}
        rec |= {"ours_n": ours_n, "peer_n": peer_n, **ratios(sa, sb)}
        rec["ours_cpu_us"] = round(median(sa.cpu) * 1e6, 2)
        rec["peer_cpu_us"] = round(median(sb.cpu) * 1e6, 2)
        out.append(rec)
    return out


def parallel_check(k: int = 50) -> float:
    """Untimed proof that K handoffs overlap: each child sleeps 20 ms of real time."""
    from _workload import ParentModel

    from handoff_sim import Agent, ModelRequest, ModelResponse, SubAgent
    from handoff_sim.testing import FunctionModel

    async def slow(request: ModelRequest) -> ModelResponse:
        await asyncio.sleep(0.02)
        return ModelResponse(text="child-done")

    child = Agent("child", FunctionModel(slow))
    parent = Agent(
        "parent",
        ParentModel("parallel", k),
        subagents=[SubAgent("child", "d", child, tool_name="delegate")],
        parallel_tool_calls=True,
    )
    t0 = time.perf_counter()
    parent.run("go")
    return time.perf_counter() - t0


def flatness(rounds: int = 15) -> list[Record]:
    """CPU µs/handoff of a small and a large size alternating run by run in one process.

    Sequential N=25 against N=400 and N=200 against N=4,000, parallel K=50 against
    K=10,000 (each flat in the size), in every mode. Alternating makes the ratio robust
    to load that drifts over minutes on a shared machine. CPU time is the figure
    (``small_us``, ``large_us``, ``ratio``); wall time is recorded beside it.
    """
    import _workload as wl

    out: list[Record] = []
    pairs: tuple[tuple[wl.Workload, int, int], ...] = (
        ("sequential", 25, 400),
        ("sequential", 200, 4_000),
        ("parallel", 50, 10_000),
    )
    for workload, small, large in pairs:
        for mode in wl.MODES:
            cpu: dict[int, list[float]] = {small: [], large: []}
            wall: dict[int, list[float]] = {small: [], large: []}
            for n in (small, large):
                wl.run_once(mode, workload, n)  # warm-up
            for _ in range(rounds):
                for n in (small, large):
                    dt, dcpu, _counts = wl.run_once(mode, workload, n)
                    wall[n].append(dt / n * 1e6)
                    cpu[n].append(dcpu / n * 1e6)
            a, b = median(cpu[small]), median(cpu[large])
            out.append(
                {
                    "benchmark": "flatness",
                    "mode": mode,
                    "workload": workload,
                    "small_n": small,
                    "large_n": large,
                    "small_us": round(a, 2),
                    "large_us": round(b, 2),
                    "ratio": round(b / a, 3),
                    "small_wall_us": round(median(wall[small]), 2),
                    "large_wall_us": round(median(wall[large]), 2),
                    "clock": "cpu",
                    "rounds": rounds,
                }
            )
    return out


def measure(args: argparse.Namespace) -> list[Record]:
    """Every size of every workload: ours in each mode and each peer, interleaved per size."""
    records: list[Record] = []
    plan = [("sequential", n) for n in _sizes(args.sequential)]
    plan += [("parallel", k) for k in _sizes(args.parallel)]
    for _round in range(args.rounds):
        for workload, n in plan:
            say(f"+ {workload} n={n}")
            batch = measure_size(args, workload, n)
            for rec in batch:
                rec["round"] = _round + 1
                emit(rec)
            records.extend(r for r in batch if "framework" in r)
    return records


def _us(records: Sequence[Record], framework: str, workload: str, n: int, mode: str) -> float:
    """CPU µs per handoff (wall where a record has none): a loaded machine moves it less."""
    found = [
        r.get("cpu_microseconds_per_handoff") or r["microseconds_per_handoff"]
        for r in records
        if r["framework"] == framework
        and r["workload"] == workload
        and r["n"] == n
        and r.get("mode", "realtime") == mode
    ]
    return median(found) if found else float("nan")


def summary_rows(records: Sequence[Record]) -> list[Record]:
    """One row per (workload, size): our µs/handoff per mode, the peers', the ratios."""
    rows = []
    keys = sorted(
        {(r["workload"], r["n"]) for r in records}, key=lambda k: (k[0] != "sequential", k[1])
    )
    for workload, n in keys:
        row: Record = {"workload": workload, "n": n}
        for mode in MODES:
            row[mode] = _us(records, "handoff-sim", workload, n, mode)
        for framework in PEERS:
            row[framework] = _us(records, framework, workload, n, "realtime")
            row[f"{framework} / ours"] = row[framework] / row["realtime"]
        rows.append(row)
    return rows


def plot(records: Sequence[Record], path: Path) -> None:
    """docs/benchmarks.svg: µs per handoff against N and K, ours (each mode) and the peers'."""
    style = {
        ("handoff-sim", "realtime"): ("handoff-sim arun (real time)", "#1b7837", False),
        ("handoff-sim", "simulate"): ("handoff-sim simulate()", "#5aae61", True),
        ("handoff-sim", "simulate+wallclock"): (
            "handoff-sim simulate(wall_clock)",
            "#a6dba0",
            True,
        ),
        ("openai-agents", "realtime"): ("OpenAI Agents SDK 0.24.0", "#d6604d", False),
        ("pydantic-ai", "realtime"): ("pydantic-ai 2.62.0", "#4393c3", False),
    }
    panels: dict[str, tuple[str, list[Series]]] = {}
    for workload, title, xlabel in (
        ("sequential", "Sequential: N handoffs, one per turn", "N (log)"),
        ("parallel", "Parallel: K handoffs in one turn", "K (log)"),
    ):
        series: list[Series] = []
        for (framework, mode), (label, colour, dashed) in style.items():
            sizes = sorted({r["n"] for r in records if r["workload"] == workload})
            pts = [(n, _us(records, framework, workload, n, mode)) for n in sizes]
            series.append((label, colour, dashed, [(n, y) for n, y in pts if y == y]))
        panels[title] = (xlabel, series)
    info = machine()
    caption = f"median of 5 runs; {info['nproc']} CPUs, {info['cpu']}, CPython {info['python']}"
    path.write_text(render_svg(panels, caption))


def _table(records: Sequence[Record]) -> None:
    def ratio(key: str) -> Any:
        return lambda r: f"{r[key]:.1f}x" if r[key] == r[key] else ""

    cols: list[tuple[str, Any]] = [("workload", "workload"), ("n", "n")]
    cols += [(f"ours {m} µs", m) for m in MODES]
    cols += [(f"{f} µs", f) for f in PEERS]
    cols += [(f"{f}/ours", ratio(f"{f} / ours")) for f in PEERS]
    print_table(summary_rows(records), cols, title="µs per handoff (median of repeats)")


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sequential", default=",".join(map(str, SEQUENTIAL)), help="N sizes")
    ap.add_argument("--parallel", default=",".join(map(str, PARALLEL)), help="K sizes")
    ap.add_argument("--modes", default=",".join(MODES), help="realtime,simulate,...")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=1, help="repeat the whole interleaved plan")
    ap.add_argument("--model", choices=["custom", "scripted"], default="custom")
    ap.add_argument("--peers", action="store_true", help="also run the peer frameworks")
    ap.add_argument("--setup-peers", action="store_true", help="create .handoff-venvs/peers")
    ap.add_argument("--svg", type=Path, help="write the µs/handoff plot here")
    ap.add_argument("--no-tracemalloc", action="store_true")
    ap.add_argument("--parallel-check", action="store_true", help="prove K=50 overlaps")
    ap.add_argument("--in-process", action="store_true", help="ours in this process (quick checks)")
    ap.add_argument("--flatness", action="store_true", help="small vs large size, interleaved")
    ap.add_argument(
        "--peer-pairs",
        action="store_true",
        help="with --peers: ours at K=1,000 against openai-agents at K=50 in one turn, interleaved",
    )
    args = ap.parse_args(argv)
    if not __debug__:
        sys.exit("the delegation checks use assert: do not run with python -O")
    if args.setup_peers:
        emit({"peer_setup": setup_peers()})
        if not args.peers:
            return
    if args.parallel_check:
        emit({"parallel_check": {"k": 50, "child_sleep_ms": 20, "wall_seconds": parallel_check()}})
    if args.flatness:
        for rec in flatness():
            emit(rec)
    if args.peer_pairs and args.peers:
        for rec in peer_pairs(args, PEER_PAIRS):
            emit(rec)
    records = measure(args)
    _table(records)
    if args.svg:
        plot(records, args.svg)
        print(f"wrote {args.svg}", file=sys.stderr)


if __name__ == "__main__":
    main()
