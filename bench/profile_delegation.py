#!/usr/bin/env python3
"""Profile one delegation workload with cProfile: where the µs per handoff go.

Profile before optimising. Prints the top functions by own time (and by cumulative
time with ``--sort cumulative``), scaled to µs per handoff, plus one JSON line.

    python bench/profile_delegation.py --workload sequential --n 200 --mode simulate
    python bench/profile_delegation.py --workload parallel --n 1000 --top 30
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import emit
from _workload import MODES, build, execute, run_once, verify


def _where(func: tuple[str, int, str]) -> str:
    path, line, name = func
    for marker in ("handoff_sim/", "bench/", "asyncio/", "pluggy/", "freezegun/", "json/"):
        if marker in path:
            return f"{marker}{path.split(marker, 1)[1]}:{line}({name})"
    if path.startswith("<"):  # code with no file: <frozen importlib._bootstrap> and the like
        return f"{path}({name})"
    return f"{Path(path).name}:{line}({name})" if line else name


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--workload", choices=["sequential", "parallel"], default="sequential")
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--mode", choices=MODES, default="simulate")
    ap.add_argument("--model", choices=["custom", "scripted"], default="custom")
    ap.add_argument("--sort", choices=["tottime", "cumulative"], default="tottime")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--runs", type=int, default=3, help="profiled runs (after one warm-up)")
    args = ap.parse_args(argv)
    run_once(args.mode, args.workload, args.n, args.model)
    profiler = cProfile.Profile()
    for _ in range(args.runs):
        built = build(args.workload, args.n, args.model)
        gc.collect()
        profiler.enable()
        result, _wall, _cpu = execute(built, args.mode)
        profiler.disable()
        verify(built, result, args.workload, args.n)
    stats = pstats.Stats(profiler)
    handoffs = args.n * args.runs
    raw = stats.stats  # type: ignore[attr-defined]
    index = 2 if args.sort == "tottime" else 3
    rows = sorted(raw.items(), key=lambda kv: -kv[1][index])[: args.top]
    total = sum(v[2] for v in raw.values())
    print(
        f"{args.workload} n={args.n} mode={args.mode}: {total / handoffs * 1e6:.0f} µs/handoff "
        f"under cProfile (the timed run only), sorted by {args.sort}",
        file=sys.stderr,
    )
    print(f"{'own µs/h':>9} {'cum µs/h':>9} {'calls/h':>8}  function", file=sys.stderr)
    top = []
    for func, (_cc, ncalls, tottime, cumtime, _callers) in rows:
        own, cum, calls = tottime / handoffs * 1e6, cumtime / handoffs * 1e6, ncalls / handoffs
        print(f"{own:9.1f} {cum:9.1f} {calls:8.2f}  {_where(func)}", file=sys.stderr)
        top.append(
            {
                "function": _where(func),
                "own_us_per_handoff": round(own, 2),
                "cum_us_per_handoff": round(cum, 2),
                "calls_per_handoff": round(calls, 2),
            }
        )
    emit(
        {
            "benchmark": "profile",
            "workload": args.workload,
            "n": args.n,
            "mode": args.mode,
            "sort": args.sort,
            "profiled_us_per_handoff": round(total / handoffs * 1e6, 1),
            "top": top,
        }
    )


if __name__ == "__main__":
    main()
