#!/usr/bin/env python3
# ruff: noqa
# mypy: ignore-errors
# Peer-side workload: copied unchanged (except these header comments) from the peer
# measurements made for handoff-sim, whose figures set the bars in docs/benchmarks.md.
"""Import-time measurement for the peer frameworks.

For each module: median wall time of R fresh `python -c "import MOD"` processes, the same for
`python -c "pass"` (interpreter start-up baseline), and the cumulative time that
`python -X importtime -c "import MOD"` reports for the top-level module (median of R runs).
Prints one JSON line per module. Run with the venv interpreter:

  "$PEERS_VENV"/bin/python measure_imports.py [--repeats 5] [MOD ...]
"""
import argparse
import json
import platform
import statistics
import subprocess
import sys
import time


def wall(cmd):
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def importtime_us(mod):
    p = subprocess.run([sys.executable, "-X", "importtime", "-c", f"import {mod}"],
                       check=True, capture_output=True, text=True)
    for line in p.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        parts = [x.strip() for x in line[len("import time:"):].split("|")]
        if len(parts) == 3 and parts[2] == mod:
            return int(parts[1])
    raise RuntimeError(f"no importtime line for {mod}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("modules", nargs="*", default=["agents", "pydantic_ai"])
    a = ap.parse_args()
    # one untimed run each to warm the page cache / make sure .pyc files exist
    wall([sys.executable, "-c", "pass"])
    for m in a.modules:
        wall([sys.executable, "-c", f"import {m}"])
    base = statistics.median(wall([sys.executable, "-c", "pass"]) for _ in range(a.repeats))
    for m in a.modules:
        walls = [wall([sys.executable, "-c", f"import {m}"]) for _ in range(a.repeats)]
        its = [importtime_us(m) for _ in range(a.repeats)]
        print(json.dumps({
            "module": m,
            "python": platform.python_version(),
            "repeats": a.repeats,
            "process_wall_seconds_median": round(statistics.median(walls), 4),
            "interpreter_startup_seconds_median": round(base, 4),
            "import_wall_seconds_net_median": round(statistics.median(walls) - base, 4),
            "x_importtime_cumulative_seconds_median": round(statistics.median(its) / 1e6, 4),
            "x_importtime_samples_us": its,
        }), flush=True)


if __name__ == "__main__":
    main()
