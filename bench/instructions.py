#!/usr/bin/env python3
"""Instructions per handoff under callgrind: ours and the peers, a figure load cannot move.

Each framework runs in its own ``valgrind --tool=callgrind`` process
(``bench/_serve_runs.py --callgrind``): one warm-up run, then each counted run inside a
region that callgrind collects and dumps on its own, so imports, agent construction
(subtracted for a peer, whose run builds its agents) and checks are not counted. Ours:
the timed call of ``bench/_workload.py`` (``asyncio.run`` of ``parent.arun``). A figure
is the median over the counted runs, divided by N (or K). The peers cost 40-90 million
instructions a handoff, about a second of callgrind each, so they run at a smaller N
(``--peer-n``, default 50; ours is counted at that N too, so the ratio compares equal
sizes). Processes run ``--jobs`` at a time: the counts do not depend on load.

    python bench/instructions.py [--peer-n 50] [--jobs 2] [--no-peers] [--no-flatness]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Record, emit, median, print_table
from _peers import peer_interpreter

SERVE = Path(__file__).resolve().parent / "_serve_runs.py"
VALGRIND = (
    "--tool=callgrind",
    "--collect-atstart=no",
    "--toggle-collect=_operator_call",
    "--dump-after=_operator_call",
)


def plan(peer_n: int, peers: bool, flatness: bool) -> dict[str, list[str]]:
    """Framework -> the ``workload:n:runs`` it is counted on."""
    ours = ["sequential:200:3"]
    if peer_n != 200:
        ours.append(f"sequential:{peer_n}:3")
    if flatness:
        ours += ["sequential:4000:1", "parallel:50:3", "parallel:10000:1", "parallel:1000:1"]
    found = {"handoff-sim": ours}
    if peers:
        found["pydantic-ai"] = [f"sequential:{peer_n}:1"]
        found["openai-agents"] = [f"sequential:{peer_n}:1", "parallel:50:1"]
    return found


def _summary(path: Path) -> int:
    for line in path.read_text().splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    raise SystemExit(f"no instruction total in {path}")


def count(framework: str, specs: Sequence[str], python: Path) -> list[Record]:
    """One callgrind process: the instructions of every region, matched to its label."""
    with tempfile.TemporaryDirectory(prefix="handoff-callgrind-") as tmp:
        out = Path(tmp) / "cg.out"
        cmd = ["valgrind", *VALGRIND, f"--callgrind-out-file={out}", str(python), str(SERVE)]
        proc = subprocess.run(
            [*cmd, framework, "--callgrind", *specs], capture_output=True, text=True, check=False
        )
        if proc.returncode != 0:
            sys.stderr.write(proc.stderr[-4000:])
            raise SystemExit(f"callgrind of {framework} failed ({proc.returncode})")
        labels: list[Record] = json.loads(proc.stdout.strip().splitlines()[-1])["regions"]
        dumps = sorted(Path(tmp).glob("cg.out.*"), key=lambda p: int(p.suffix[1:]))
        if len(dumps) != len(labels):
            raise SystemExit(
                f"{framework}: {len(dumps)} callgrind dumps for {len(labels)} regions "
                "(something else called operator.call)"
            )
        for label, dump in zip(labels, dumps, strict=True):
            label["instructions"] = _summary(dump)
    return labels


def per_handoff(framework: str, regions: Sequence[Record], version: str) -> list[Record]:
    """Median instructions of a counted run (a peer's build subtracted), per handoff."""
    out = []
    for workload, n in dict.fromkeys((r["workload"], r["n"]) for r in regions):
        mine = [r for r in regions if (r["workload"], r["n"]) == (workload, n)]
        runs = [r["instructions"] for r in mine if r["region"] == "run"]
        build = [r["instructions"] for r in mine if r["region"] == "build"]
        net = [run - (build[i] if build else 0) for i, run in enumerate(runs)]
        out.append(
            {
                "benchmark": "instructions",
                "framework": framework,
                "version": version,
                "workload": workload,
                "n": n,
                "runs": len(runs),
                "instructions_per_handoff": round(median(net) / n),
                "instructions_per_run": net,
                "build_instructions": build[0] if build else None,
                "tool": "callgrind",
            }
        )
    return out


def _version(framework: str, python: Path) -> str:
    dist = {"pydantic-ai": "pydantic-ai-slim"}.get(framework, framework)
    code = f"from importlib.metadata import version; print(version({dist!r}))"
    proc = subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=False)
    return proc.stdout.strip() or "unknown"


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--peer-n", type=int, default=50, help="N of the peers' sequential run")
    ap.add_argument("--jobs", type=int, default=2, help="callgrind processes at a time")
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--no-flatness", action="store_true", help="no N=4,000 / K=10,000 counts")
    args = ap.parse_args(argv)
    if shutil.which("valgrind") is None:
        emit({"benchmark": "instructions", "status": "skipped", "reason": "valgrind not found"})
        return
    jobs = []
    for framework, specs in plan(args.peer_n, not args.no_peers, not args.no_flatness).items():
        python = Path(sys.executable) if framework == "handoff-sim" else peer_interpreter(framework)
        if python is None:
            print(f"{framework}: not installed, not counted", file=sys.stderr)
            continue
        jobs.append((framework, specs, python))
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        done = pool.map(lambda job: (job, count(*job)), jobs)
        records = [
            rec
            for (framework, _specs, python), regions in done
            for rec in per_handoff(framework, regions, _version(framework, python))
        ]
    for rec in records:
        emit(rec)
    print_table(
        records,
        [
            ("framework", "framework"),
            ("workload", "workload"),
            ("n", "n"),
            ("runs", "runs"),
            ("instructions / handoff", lambda r: f"{r['instructions_per_handoff']:,}"),
        ],
        title="callgrind: instructions per handoff (median of the counted runs)",
    )


if __name__ == "__main__":
    main()
