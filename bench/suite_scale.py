#!/usr/bin/env python3
"""Suites scale out: a generated suite of many small scenario files, three bars.

The suite is ``--files`` copies (default 10,000) of the small single-scenario files
bundled under ``scenarios/`` (no matrix, no agent-definition folder), each with a unique
file and scenario name, written into a temporary directory in folders of 1,000. Every
command runs in a fresh subprocess from an empty temporary project (this repository's
pytest settings do not apply), and is timed as CPU (user + system of the process and
its children, from ``resource.getrusage(RUSAGE_CHILDREN)``) next to wall time; each
figure is the median of ``--repeats`` rounds, the commands of a round in rotating order,
after an untimed run that warms the bytecode caches (``PYTHONDONTWRITEBYTECODE`` is
dropped from the environment: users have the caches).

* collection: ``pytest --collect-only -q --handoff-scenarios DIR``, CPU per scenario;
  bar: at most 1 ms;
* one process: ``pytest --handoff-scenarios DIR`` against ``handoff-sim run -q DIR``,
  CPU ratio; bar: at most 1.5;
* xdist: ``pytest -n 2`` against ``pytest -n 0``, wall ratio (what workers buy);
  bar: below 1.

Beside them, pytest's own cost per item: the same files collected by a trivial plugin
as one empty test each (every installed plugin but ours), so a reader can tell what
pytest spends from what handoff-sim adds.

    python bench/suite_scale.py [--files 10000] [--repeats 3]

``--smoke`` (the test suite's check that every command runs) skips the warming round and
turns off hypothesis' and anyio's pytest plugins in every pytest command, a third of each
start-up; its figures are no measurement.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import REPO_ROOT, Record, emit, machine, median, print_table

BUNDLED = REPO_ROOT / "scenarios"
MAX_SOURCE_BYTES = 2_000
_NAME = re.compile(r"^scenario:[ \t]*(\S+)", re.MULTILINE)
_REAL_CLOCK = re.compile(r"^[ \t]*clock:[ \t]*real\b", re.MULTILINE)
_COLLECTED = re.compile(r"(\d+) tests? collected")
_SUMMARY = re.compile(r"(\d+) (passed|failed|errors?|skipped)")
_CLI_SUMMARY = re.compile(r"(\d+) passed, (\d+) failed")


def small_sources() -> list[Path]:
    """Bundled files with one scenario, no matrix, no agent-definition folder, no real
    clock, under 2 KB."""
    found = []
    for path in sorted(BUNDLED.rglob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        single = len(_NAME.findall(text)) == 1 and "\nscenarios:" not in text
        plain = "matrix:" not in text and "agent_types_dir" not in text
        # a real clock spends real time (sleeps that xdist overlaps): not a suite's cost
        plain = plain and _REAL_CLOCK.search(text) is None
        if single and plain and len(text.encode()) <= MAX_SOURCE_BYTES:
            found.append(path)
    return found


def generate(directory: Path, count: int) -> list[Path]:
    """Write ``count`` renamed copies of the small bundled files; return the sources used."""
    sources = small_sources()
    if not sources:
        raise SystemExit(f"suite_scale: no small single-scenario file under {BUNDLED}")
    texts = [(p.stem, p.read_text(encoding="utf-8")) for p in sources]
    for i in range(count):
        stem, text = texts[i % len(texts)]
        renamed = _NAME.sub(lambda m, i=i: f"scenario: {m[1]}-{i:05d}", text, count=1)
        folder = directory / f"part_{i // 1000:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{stem}_{i:05d}.yaml").write_text(renamed, encoding="utf-8")
    return sources


@dataclass
class Timing:
    """One command's wall and CPU seconds, and what it reported."""

    wall: float
    cpu: float
    items: int
    failed: int


def _env() -> dict[str, str]:
    """This environment, bytecode caches allowed (as users have them), no pytest settings."""
    skip = ("PYTEST_", "HYPOTHESIS_", "PYTHONDONTWRITEBYTECODE")
    return {k: v for k, v in os.environ.items() if not k.startswith(skip)}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(cmd: Sequence[str], cwd: Path, ok: Sequence[int]) -> tuple[float, float, str]:
    """Run ``cmd``; its wall and CPU seconds (children included) and its stdout."""
    cpu0, t0 = _children_cpu(), time.perf_counter()
    proc = subprocess.run(
        list(cmd), cwd=cwd, env=_env(), capture_output=True, text=True, check=False
    )
    wall, cpu = time.perf_counter() - t0, _children_cpu() - cpu0
    if proc.returncode not in ok:
        tail = (proc.stdout[-3000:], proc.stderr[-3000:])
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{tail[0]}\n{tail[1]}")
    return wall, cpu, proc.stdout + proc.stderr


SMOKE_ARGS = ("-p", "no:hypothesispytest", "-p", "no:anyio")
"""What ``--smoke`` adds to every pytest command: two plugins none of the commands uses."""


def _pytest(suite: Path, *extra: str) -> list[str]:
    base = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    return [*base, "--handoff-scenarios", str(suite), *extra]


def _counts(output: str, cli: bool) -> tuple[int, int]:
    if cli:
        match = _CLI_SUMMARY.search(output)
        passed, failed = (int(match[1]), int(match[2])) if match else (0, 0)
        return passed + failed, failed
    collected = _COLLECTED.search(output)
    if collected:
        return int(collected[1]), 0
    tail = output.strip().splitlines()[-1] if output.strip() else ""
    counts = {kind: int(n) for n, kind in _SUMMARY.findall(tail)}
    return sum(counts.values()), counts.get("failed", 0) + counts.get("error", 0)


FLOOR_PLUGIN = """\
import pytest


def _trivial(request):
    pass


class _File(pytest.File):
    def collect(self):
        yield pytest.Function.from_parent(self, name="trivial", callobj=_trivial)


def pytest_collect_file(file_path, parent):
    if file_path.suffix == ".yaml":
        return _File.from_parent(parent, path=file_path)
"""
"""pytest's own cost: one trivial test per file, with every installed plugin but ours."""


def _floor(suite: Path, *extra: str) -> list[str]:
    base = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:handoff"]
    return [*base, "-p", "_handoff_floor", str(suite), *extra]


def commands(
    suite: Path, empty: Path, xdist: bool, smoke: bool = False
) -> dict[str, tuple[list[str], bool]]:
    """Name -> (command, is the handoff-sim command)."""
    cli = [sys.executable, "-m", "handoff_sim", "run", "-q", str(suite)]
    off = SMOKE_ARGS if smoke else ()
    found = {
        "floor_empty": (_floor(empty, "--collect-only", *off), False),
        "floor_collect": (_floor(suite, "--collect-only", *off), False),
        "floor_run": (_floor(suite, *off), False),
        "collect_empty": (_pytest(empty, "--collect-only", *off), False),
        "collect": (_pytest(suite, "--collect-only", *off), False),
        "pytest": (_pytest(suite, *(["-n", "0"] if xdist else []), *off), False),
        "handoff_sim_run": (cli, True),
    }
    if xdist:
        found["pytest_n2"] = (_pytest(suite, "-n", "2", *off), False)
    return found


def measure(
    suite: Path, repeats: int, xdist: bool, warmup: bool = True, smoke: bool = False
) -> dict[str, list[Timing]]:
    """Every command ``repeats`` times, the order rotated each round."""
    with tempfile.TemporaryDirectory(prefix="handoff-scale-project-") as tmp:
        project = Path(tmp)
        (project / "pytest.ini").write_text("[pytest]\n")
        (project / "_handoff_floor.py").write_text(FLOOR_PLUGIN)  # found: cwd is on sys.path
        empty = project / "empty"
        empty.mkdir()
        cmds = commands(suite, empty, xdist, smoke)
        names = list(cmds)
        warm = project / "warm"
        generate(warm, 1)
        for cmd, _ in commands(warm, empty, xdist).values() if warmup else ():
            timed(cmd, project, (0, 5))  # fill the bytecode caches
        runs: dict[str, list[Timing]] = {n: [] for n in names}
        for r in range(repeats):
            for name in names[r % len(names) :] + names[: r % len(names)]:
                cmd, cli = cmds[name]
                ok = (0, 5) if name.endswith("_empty") else (0,)
                wall, cpu, out = timed(cmd, project, ok)
                items, failed = _counts(out, cli)
                runs[name].append(Timing(wall, cpu, items, failed))
                print(
                    f"  {name:16s} wall {wall:7.2f}s cpu {cpu:7.2f}s items {items}", file=sys.stderr
                )
    return runs


def _median(runs: list[Timing], what: str) -> float:
    return median(getattr(t, what) for t in runs)


def summarise(runs: dict[str, list[Timing]], files: int, repeats: int) -> Record:
    """The figures and the three bars of one run."""
    items = runs["collect"][-1].items
    collect_cpu, empty_cpu = _median(runs["collect"], "cpu"), _median(runs["collect_empty"], "cpu")
    rec: Record = {
        "benchmark": "suite_scale",
        "files": files,
        "items": items,
        "repeats": repeats,
        "failed": {n: t[-1].failed for n, t in runs.items()},
        **{f"{n}_wall_s": round(_median(t, "wall"), 3) for n, t in runs.items()},
        **{f"{n}_cpu_s": round(_median(t, "cpu"), 3) for n, t in runs.items()},
        "collect_cpu_ms_per_scenario": round(collect_cpu / items * 1000, 3),
        "collect_cpu_ms_per_scenario_net": round((collect_cpu - empty_cpu) / items * 1000, 3),
    }
    rec["pytest_vs_cli_cpu"] = round(
        _median(runs["pytest"], "cpu") / rec["handoff_sim_run_cpu_s"], 3
    )
    rec["pytest_vs_cli_wall"] = round(rec["pytest_wall_s"] / rec["handoff_sim_run_wall_s"], 3)
    floor_collect = rec["floor_collect_cpu_s"] - rec["floor_empty_cpu_s"]
    floor_run = rec["floor_run_cpu_s"] - rec["floor_collect_cpu_s"]
    rec["pytest_own_collect_ms_per_item"] = round(floor_collect / items * 1000, 3)
    rec["pytest_own_run_ms_per_item"] = round(floor_run / items * 1000, 3)
    own = floor_collect + floor_run  # what pytest itself spends on as many trivial items
    rec["pytest_vs_cli_cpu_without_pytest_own"] = round(
        (_median(runs["pytest"], "cpu") - own) / rec["handoff_sim_run_cpu_s"], 3
    )
    rec["bar_collection_met"] = rec["collect_cpu_ms_per_scenario"] <= 1.0
    rec["bar_one_process_met"] = rec["pytest_vs_cli_cpu"] <= 1.5
    if "pytest_n2" in runs:
        rec["n2_vs_n0_wall"] = round(rec["pytest_n2_wall_s"] / rec["pytest_wall_s"], 3)
        rec["n2_vs_n0_cpu"] = round(rec["pytest_n2_cpu_s"] / rec["pytest_cpu_s"], 3)
        rec["bar_xdist_met"] = rec["n2_vs_n0_wall"] < 1.0
    rec["python"] = machine()["python"]
    rec["nproc"] = machine()["nproc"]
    return rec


def report(rec: Record) -> None:
    """The figures as a table and one met / not met line per bar, on stderr."""
    rows = [
        {"what": f"pytest --collect-only ({rec['items']} scenarios)", "key": "collect"},
        {"what": "pytest --collect-only (no scenario: start-up)", "key": "collect_empty"},
        {"what": "pytest --handoff-scenarios (one process)", "key": "pytest"},
        {"what": "handoff-sim run -q", "key": "handoff_sim_run"},
    ]
    if "pytest_n2_wall_s" in rec:
        rows.append({"what": "pytest --handoff-scenarios -n 2", "key": "pytest_n2"})
    rows += [
        {"what": "pytest, a trivial test per file: --collect-only", "key": "floor_collect"},
        {"what": "  ... run", "key": "floor_run"},
        {"what": "  ... no file", "key": "floor_empty"},
    ]
    print_table(
        rows,
        [
            ("command", "what"),
            ("wall s", lambda r: f"{rec[r['key'] + '_wall_s']:.2f}"),
            ("CPU s", lambda r: f"{rec[r['key'] + '_cpu_s']:.2f}"),
        ],
        title=f"suite of {rec['files']} files (median of {rec['repeats']})",
    )

    def line(met: bool, text: str) -> None:
        print(f"{'met    ' if met else 'NOT met'}  {text}", file=sys.stderr)

    print(file=sys.stderr)
    per = rec["collect_cpu_ms_per_scenario"]
    net = rec["collect_cpu_ms_per_scenario_net"]
    line(
        rec["bar_collection_met"],
        f"collection {per:.3f} ms CPU per scenario ({net:.3f} without start-up); bar <= 1 ms",
    )
    line(
        rec["bar_one_process_met"],
        f"pytest / handoff-sim run = {rec['pytest_vs_cli_cpu']:.2f} "
        f"CPU ({rec['pytest_vs_cli_wall']:.2f} wall); bar <= 1.5",
    )
    if "bar_xdist_met" in rec:
        line(
            rec["bar_xdist_met"],
            f"-n 2 / -n 0 = {rec['n2_vs_n0_wall']:.2f} wall "
            f"({rec['n2_vs_n0_cpu']:.2f} CPU); bar < 1",
        )
    else:
        print("n/a      -n 2 / -n 0: pytest-xdist is not installed", file=sys.stderr)
    print(
        f"\npytest's own cost per item (a trivial test per file, the same plugins): "
        f"collect {rec['pytest_own_collect_ms_per_item']:.3f} ms, "
        f"run {rec['pytest_own_run_ms_per_item']:.3f} ms CPU; pytest / handoff-sim run "
        f"without it: {rec['pytest_vs_cli_cpu_without_pytest_own']:.2f}",
        file=sys.stderr,
    )


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--files", type=int, default=10_000, help="generated scenario files")
    ap.add_argument("--repeats", type=int, default=3, help="rounds of every command (median)")
    ap.add_argument("--no-xdist", action="store_true", help="skip the -n 2 runs")
    ap.add_argument(
        "--no-warmup", action="store_true", help="skip the untimed warming round (smoke tests)"
    )
    ap.add_argument(
        "--smoke",
        action="store_true",
        help="no warming round, two unused pytest plugins off: checks the commands, no figure",
    )
    args = ap.parse_args(argv)
    xdist = not args.no_xdist and importlib.util.find_spec("xdist") is not None
    with tempfile.TemporaryDirectory(prefix="handoff-scale-") as tmp:
        suite = Path(tmp) / "suite"
        sources = generate(suite, args.files)
        print(f"suite_scale: {args.files} files from {len(sources)} bundled ones", file=sys.stderr)
        rec = summarise(
            measure(suite, args.repeats, xdist, not (args.no_warmup or args.smoke), args.smoke),
            args.files,
            args.repeats,
        )
    emit(rec)
    report(rec)


if __name__ == "__main__":
    main()
