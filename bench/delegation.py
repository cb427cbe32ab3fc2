#!/usr/bin/env python3
"""Delegation benchmark: µs per handoff, sequential (N) and parallel (K), ours and the peers'.

Each (workload, size, mode) runs in its own subprocess so its peak RSS is its own: one
untimed warm-up, then ``--repeats`` timed runs (median reported), then one untimed run
under tracemalloc. With ``--peers`` the peer frameworks (OpenAI Agents SDK, pydantic-ai,
from ``.handoff-venvs/peers``) run right after ours for every size, so each ratio is
measured in the same run. One JSON line per measurement on stdout; a table on stderr.

    python bench/delegation.py                          # ours, every mode and size
    python bench/delegation.py --setup-peers            # create the peer virtualenv
    python bench/delegation.py --peers --svg docs/benchmarks.svg > bench/out/delegation.jsonl
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
import tracemalloc
from collections.abc import Sequence
from importlib.metadata import version
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Record, emit, machine, median, peak_rss_mb, print_table, run_json_lines
from _peers import PEERS, peer_command, setup_peers
from _svg import Series, render_svg

SEQUENTIAL = (25, 50, 100, 200, 400)
PARALLEL = (10, 50, 200, 1000)
MODES = ("realtime", "simulate", "simulate+wallclock")


def _sizes(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split(",") if x.strip())


def worker(args: argparse.Namespace) -> Record:
    """Measure one (mode, workload, size) in this process and describe it."""
    import _workload as wl

    rss_after_import = peak_rss_mb()
    mode, workload, n = args.mode, args.workload, args.n
    first = None
    for _ in range(args.warmup):
        dt, _cpu, _ = wl.run_once(mode, workload, n, args.model)
        first = dt if first is None else first
    walls, cpus = [], []
    counts: dict[str, int] = {}
    for _ in range(args.repeats):
        dt, cpu, counts = wl.run_once(mode, workload, n, args.model)
        walls.append(dt)
        cpus.append(cpu)
    rss = peak_rss_mb()
    traced = None
    if args.tracemalloc:
        tracemalloc.start()
        wl.run_once(mode, workload, n, args.model)
        traced = round(tracemalloc.get_traced_memory()[1] / 2**20, 2)
        tracemalloc.stop()
    total = median(walls)
    return {
        "framework": "handoff-sim",
        "version": version("handoff-sim"),
        "workload": workload,
        "n": n,
        "mode": mode,
        "variant": f"model={args.model},events=recorded",
        "total_seconds": round(total, 6),
        "microseconds_per_handoff": round(total / n * 1e6, 2),
        "peak_rss_mb": rss,
        "python": machine()["python"],
        "repeats": args.repeats,
        "samples_seconds": [round(s, 6) for s in walls],
        "min_seconds": round(min(walls), 6),
        "cpu_seconds_median": round(median(cpus), 6),
        "cpu_microseconds_per_handoff": round(median(cpus) / n * 1e6, 2),
        "first_run_seconds": round(first, 6) if first is not None else None,
        "rss_after_import_mb": rss_after_import,
        "tracemalloc_peak_mb": traced,
        "events_per_run": counts.get("events"),
        "parent_model_calls": counts.get("parent_calls"),
        "child_invocations": counts.get("child_calls"),
        "loadavg_1m_at_end": machine()["loadavg_1m"],
    }


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

    Sequential N=200 against N=4,000 and parallel K=50 against K=10,000 (both flat in
    the size). Alternating makes the ratio robust to load that drifts over minutes on a
    shared machine (``measure`` runs each size in its own process). CPU time is the
    figure (``small_us``, ``large_us``, ``ratio``); wall time is recorded beside it.
    """
    import _workload as wl

    out: list[Record] = []
    pairs: tuple[tuple[wl.Workload, int, int], ...] = (
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


NEAR_FLOOR_US = 35.0  # CPU µs per handoff at N=200 sequential, full trace recorded
NEAR_FLOOR_PEER_RATIO = 150.0  # pydantic-ai's CPU per handoff over ours, same run
FLAT_RATIO = 1.2


def near_floor(rounds: int = 7, peers: bool = True) -> list[Record]:
    """The bars of a handoff near the floor, CPU time, ratios within this one run.

    Sequential N=200 against N=4,000 and parallel K=50 against K=10,000, alternating run
    by run in this process (``rounds`` each, after a warm-up; median), then pydantic-ai's
    N=200 in its own process right after (``rounds`` repeats; median): CPU µs per handoff
    at N=200 at most 35, at least 150x less than pydantic-ai, and each large size within
    1.2x of its small one. Wall time is reported next to CPU time.
    """
    import _workload as wl

    sizes: tuple[tuple[wl.Workload, int], ...] = (
        ("sequential", 200),
        ("sequential", 4_000),
        ("parallel", 50),
        ("parallel", 10_000),
    )
    cpu: dict[tuple[str, int], list[float]] = {size: [] for size in sizes}
    wall: dict[tuple[str, int], list[float]] = {size: [] for size in sizes}
    for workload, n in sizes:
        wl.run_once("realtime", workload, n)  # warm-up
    for _ in range(rounds):
        for workload, n in sizes:
            reps = max(1, 2_000 // n)  # small sizes: several runs per round, one sample
            runs = [wl.run_once("realtime", workload, n) for _ in range(reps)]
            wall[(workload, n)].append(sum(r[0] for r in runs) / reps / n * 1e6)
            cpu[(workload, n)].append(sum(r[1] for r in runs) / reps / n * 1e6)
    med = {k: median(v) for k, v in cpu.items()}
    med_wall = {k: median(v) for k, v in wall.items()}
    out: list[Record] = [
        {
            "benchmark": "near_floor",
            "workload": w,
            "n": n,
            "cpu_us_per_handoff": round(med[(w, n)], 2),
            "wall_us_per_handoff": round(med_wall[(w, n)], 2),
            "rounds": rounds,
            "samples_cpu_us": [round(x, 2) for x in cpu[(w, n)]],
        }
        for w, n in sizes
    ]
    ours = med[("sequential", 200)]
    out.append(
        _bar(
            f"CPU per handoff at N=200 sequential <= {NEAR_FLOOR_US:g} µs (full trace)",
            f"{ours:.1f} µs (wall {med_wall[('sequential', 200)]:.1f} µs)",
            ours <= NEAR_FLOOR_US,
        )
    )
    for (w, small), (_, large) in ((sizes[0], sizes[1]), (sizes[2], sizes[3])):
        ratio = med[(w, large)] / med[(w, small)]
        label = "N" if w == "sequential" else "K"
        out.append(
            _bar(
                f"{w} {label}={large:,} within {FLAT_RATIO}x of {label}={small} per handoff (CPU)",
                f"{med[(w, large)]:.1f} / {med[(w, small)]:.1f} µs = {ratio:.2f}x",
                ratio <= FLAT_RATIO,
            )
        )
    if peers:
        peer = run_json_lines(peer_command("pydantic-ai", "sequential", 200, rounds))[0]
        theirs = peer["cpu_microseconds_per_handoff"]
        out.append({"benchmark": "near_floor_peer", **peer})
        out.append(
            _bar(
                f"N=200 sequential >= {NEAR_FLOOR_PEER_RATIO:g}x less CPU per handoff "
                "than pydantic-ai",
                f"pydantic-ai {theirs:,.0f} µs / ours {ours:.1f} µs = {theirs / ours:.0f}x",
                theirs / ours >= NEAR_FLOOR_PEER_RATIO,
            )
        )
    return out


def _near_floor_report(records: list[Record]) -> None:
    """The near-floor records as JSON lines, and each figure and verdict on stderr."""
    for rec in records:
        emit(rec)
    for rec in records:
        if rec["benchmark"] == "near_floor":
            print(
                f"{rec['workload']} n={rec['n']}: CPU {rec['cpu_us_per_handoff']} µs/handoff, "
                f"wall {rec['wall_us_per_handoff']} µs/handoff",
                file=sys.stderr,
            )
        elif rec["benchmark"] == "near_floor_bar":
            verdict = "met" if rec["met"] else "NOT met"
            print(f"{rec['bar']}: {rec['measured']} -> {verdict}", file=sys.stderr)


def _bar(bar: str, measured: str, met: bool) -> Record:
    return {"benchmark": "near_floor_bar", "bar": bar, "measured": measured, "met": met}


def _ours(args: argparse.Namespace, workload: str, n: int, mode: str) -> Record:
    if args.in_process:  # quick checks only: peak RSS then covers every workload so far
        one = argparse.Namespace(**vars(args))
        one.mode, one.workload, one.n, one.tracemalloc = mode, workload, n, not args.no_tracemalloc
        return worker(one)
    cmd = [sys.executable, __file__, "--worker", "--mode", mode, "--workload", workload]
    cmd += ["--n", str(n), "--repeats", str(args.repeats), "--model", args.model]
    if not args.no_tracemalloc:
        cmd.append("--tracemalloc")
    return run_json_lines(cmd)[0]


def measure(args: argparse.Namespace) -> list[Record]:
    """Every size of every workload: ours in each mode, then each peer, interleaved."""
    records: list[Record] = []
    plan = [("sequential", n) for n in _sizes(args.sequential)]
    plan += [("parallel", k) for k in _sizes(args.parallel)]
    for _round in range(args.rounds):
        for workload, n in plan:
            batch = [_ours(args, workload, n, mode) for mode in args.modes.split(",")]
            if args.peers:
                for framework in PEERS:
                    # K=1,000 costs a peer seconds per run; 3 repeats keep the plan short
                    reps = min(args.repeats, 3) if n >= 1000 else args.repeats
                    rec = run_json_lines(peer_command(framework, workload, n, reps))[0]
                    rec["mode"] = "realtime"
                    batch.append(rec)
            for rec in batch:
                rec["round"] = _round + 1
                emit(rec)
            records.extend(batch)
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
    ap.add_argument("--in-process", action="store_true", help="no subprocess per workload")
    ap.add_argument("--flatness", action="store_true", help="small vs large size, interleaved")
    ap.add_argument(
        "--near-floor",
        action="store_true",
        help="only the near-floor bars: CPU per handoff at N=200 (and against pydantic-ai), "
        "N=4,000 and K=10,000 against N=200 and K=50",
    )
    # worker mode (one measurement in this process); used by the driver
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--mode", choices=MODES, default="realtime", help=argparse.SUPPRESS)
    ap.add_argument("--workload", choices=["sequential", "parallel"], help=argparse.SUPPRESS)
    ap.add_argument("--n", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--warmup", type=int, default=1, help=argparse.SUPPRESS)
    ap.add_argument("--tracemalloc", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if not __debug__:
        sys.exit("the delegation checks use assert: do not run with python -O")
    if args.worker:
        emit(worker(args))
        return
    if args.setup_peers:
        emit({"peer_setup": setup_peers()})
        if not args.peers:
            return
    if args.parallel_check:
        emit({"parallel_check": {"k": 50, "child_sleep_ms": 20, "wall_seconds": parallel_check()}})
    if args.flatness:
        for rec in flatness():
            emit(rec)
    if args.near_floor:  # these bars only: ours and pydantic-ai, one process each
        _near_floor_report(near_floor(max(args.repeats, 5)))
        return
    records = measure(args)
    _table(records)
    if args.svg:
        plot(records, args.svg)
        print(f"wrote {args.svg}", file=sys.stderr)


if __name__ == "__main__":
    main()
