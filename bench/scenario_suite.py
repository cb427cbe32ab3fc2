#!/usr/bin/env python3
"""Scenario-suite throughput: items per second of ``pytest --handoff-scenarios``.

Runs pytest in a fresh subprocess from an empty temporary project (so this repo's own
pytest settings do not apply) on (a) the bundled ``scenarios/`` directory, if it holds
any scenario file, and (b) ``--files`` generated scenario files (sequential, parallel
and timeout-and-retry delegations, with expectations), each without and with
``-n 2`` (pytest-xdist). Items per second = scenario items / wall time of the whole
pytest process; pytest's own session time is reported too. Median of ``--repeats``.
Tolerates a missing plugin or scenario package with a clear message.

    python bench/scenario_suite.py [--files 1000] [--repeats 3]

``--smoke`` (the test suite's check that the benchmark runs) turns off hypothesis' and
anyio's pytest plugins, a third of each pytest start-up; its figures are no measurement.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import REPO_ROOT, Record, emit, machine, median, print_table

_SUMMARY = re.compile(r"(\d+) (passed|failed|error|errors|skipped|xfailed|xpassed)")
_SECONDS = re.compile(r" in ([\d.]+)s")

_SEQUENTIAL = """\
scenario: gen-{i:04d}-sequential
description: two handoffs, one per turn of the manager
tags: [generated]
seed: {i}
agents:
  manager:
    model:
      script:
        - tool_calls: [{{id: a{i}, name: delegate_worker, arguments: {{task: first {i}}}}}]
        - tool_calls: [{{id: b{i}, name: delegate_worker, arguments: {{task: second {i}}}}}]
        - text: done {i}
    subagents: [{{agent: worker, tool_name: delegate_worker}}]
  worker:
    model:
      script: [{{text: ok, latency: 2s}}, {{text: ok, latency: 3s}}]
run: [go]
expect:
  output: done {i}
  handoffs:
    - {{tool: delegate_worker, status: completed, attempts: 1, depth: 1}}
    - {{tool: delegate_worker, status: completed, attempts: 1, depth: 1}}
"""

_PARALLEL = """\
scenario: gen-{i:04d}-parallel
description: three handoffs in one turn
tags: [generated]
seed: {i}
agents:
  manager:
    parallel_tool_calls: true
    model:
      script:
        - tool_calls:
            - {{id: p1, name: delegate_worker, arguments: {{task: one}}}}
            - {{id: p2, name: delegate_worker, arguments: {{task: two}}}}
            - {{id: p3, name: delegate_worker, arguments: {{task: three}}}}
        - text: merged {i}
    subagents: [{{agent: worker, tool_name: delegate_worker}}]
  worker:
    model:
      script: [{{text: r1, latency: 1s}}, {{text: r2, latency: 1s}}, {{text: r3, latency: 1s}}]
run: [go]
expect:
  output: merged {i}
  handoffs:
    - {{tool: delegate_worker, status: completed}}
    - {{tool: delegate_worker, status: completed}}
    - {{tool: delegate_worker, status: completed}}
"""

_TIMEOUT = """\
scenario: gen-{i:04d}-timeout
description: every attempt times out; the manager is told and answers
tags: [generated]
seed: {i}
agents:
  manager:
    model:
      script:
        - tool_calls: [{{id: t{i}, name: delegate_worker, arguments: {{task: slow}}}}]
        - text: gave up {i}
    subagents: [{{agent: worker, tool_name: delegate_worker}}]
    policy: {{timeout: 30s, max_retries: 2, on_error: report_to_model}}
  worker:
    model:
      script:
        - {{text: late, latency: 1h}}
        - {{text: late, latency: 1h}}
        - {{text: late, latency: 1h}}
run: [go]
expect:
  output: gave up {i}
  handoffs:
    - {{tool: delegate_worker, status: failed, reason: timeout, attempts: 3}}
"""

TEMPLATES = (_SEQUENTIAL, _PARALLEL, _TIMEOUT)


def generate(directory: Path, count: int) -> Path:
    """Write ``count`` scenario files (the three shapes in turn) into ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        (directory / f"gen_{i:04d}.yaml").write_text(TEMPLATES[i % 3].format(i=i))
    return directory


def missing_parts() -> list[str]:
    """What this benchmark needs that is not importable yet."""
    need = ["handoff_sim.scenarios", "pytest_handoff.plugin"]
    missing = []
    for name in need:
        try:
            found = importlib.util.find_spec(name) is not None
        except ModuleNotFoundError:
            found = False
        if not found:
            missing.append(name)
    return missing


SMOKE_ARGS = ("-p", "no:hypothesispytest", "-p", "no:anyio")
"""What ``--smoke`` adds to every pytest command: two plugins the scenario items do not use."""


def _pytest(
    directory: Path, workers: int, project: Path, smoke: bool = False
) -> tuple[float, dict[str, int], float]:
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    cmd += ["--handoff-scenarios", str(directory)]
    cmd += ["-n", str(workers)] if workers else []
    cmd += SMOKE_ARGS if smoke else ()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=project, capture_output=True, text=True, env=env, check=False)
    wall = time.perf_counter() - t0
    tail = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    counts = {kind: int(n) for n, kind in _SUMMARY.findall(tail)}
    if proc.returncode not in (0, 1) or not counts:
        raise SystemExit(
            f"pytest failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr}"
        )
    session = _SECONDS.search(tail)
    return wall, counts, float(session.group(1)) if session else float("nan")


def measure(label: str, directory: Path, workers: int, repeats: int, smoke: bool = False) -> Record:
    """Median over ``repeats`` pytest runs of one suite."""
    with tempfile.TemporaryDirectory(prefix="handoff-suite-") as tmp:
        project = Path(tmp)
        (project / "pytest.ini").write_text("[pytest]\n")
        runs = [_pytest(directory, workers, project, smoke) for _ in range(repeats)]
    counts = runs[-1][1]
    items = sum(counts.values())
    wall = median(r[0] for r in runs)
    session = median(r[2] for r in runs)
    return {
        "benchmark": "scenario_suite",
        "suite": label,
        "workers": workers or 1,
        "xdist": bool(workers),
        "items": items,
        "outcomes": counts,
        "wall_seconds": round(wall, 3),
        "pytest_session_seconds": round(session, 3),
        "items_per_second": round(items / wall, 1),
        "items_per_second_in_session": round(items / session, 1) if session else None,
        "repeats": repeats,
        "python": machine()["python"],
    }


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--files", type=int, default=1000, help="generated scenario files")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-xdist", action="store_true", help="skip the -n 2 runs")
    ap.add_argument("--no-bundled", action="store_true", help="only the generated files")
    ap.add_argument(
        "--smoke", action="store_true", help="two unused pytest plugins off: no figure, a check"
    )
    args = ap.parse_args(argv)
    missing = missing_parts()
    if missing:
        emit({"benchmark": "scenario_suite", "status": "skipped", "missing": missing})
        print(
            f"scenario_suite: not importable yet: {', '.join(missing)}; nothing to measure.",
            file=sys.stderr,
        )
        return
    xdist = not args.no_xdist and importlib.util.find_spec("xdist") is not None
    if not xdist and not args.no_xdist:
        print("scenario_suite: pytest-xdist is not installed; skipping -n 2", file=sys.stderr)
    suites: list[tuple[str, Path]] = []
    bundled = REPO_ROOT / "scenarios"
    if args.no_bundled:
        pass
    elif any(bundled.rglob("*.y*ml")):
        suites.append(("bundled scenarios/", bundled))
    else:
        print(f"scenario_suite: no scenario files in {bundled}; skipping it", file=sys.stderr)
    rows = []
    with tempfile.TemporaryDirectory(prefix="handoff-generated-") as tmp:
        suites.append((f"{args.files} generated files", generate(Path(tmp) / "gen", args.files)))
        for label, directory in suites:
            for workers in (0, 2) if xdist else (0,):
                rec = measure(label, directory, workers, args.repeats, args.smoke)
                emit(rec)
                rows.append(rec)
    print_table(
        rows,
        [
            ("suite", "suite"),
            ("workers", "workers"),
            ("items", "items"),
            ("outcomes", lambda r: ", ".join(f"{v} {k}" for k, v in r["outcomes"].items())),
            ("wall s", lambda r: f"{r['wall_seconds']:.2f}"),
            ("items/s", "items_per_second"),
            ("items/s in session", "items_per_second_in_session"),
        ],
        title="scenario suite throughput (whole pytest process)",
    )


if __name__ == "__main__":
    main()
