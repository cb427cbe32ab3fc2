#!/usr/bin/env python3
"""Suites scale out: generated suites of many small scenario files, the four suite bars.

A suite is ``--files`` copies (default 10,000; several sizes may be given, measured in
the same rounds) of the small single-scenario files bundled under ``scenarios/`` (no
matrix, no agent-definition folder), each with a unique file and scenario name, written
into a temporary directory in folders of 1,000. Every command runs in a fresh subprocess
from an empty temporary project (this repository's pytest settings do not apply), and is
timed as CPU (user + system of the process and the children it waited for, from
``os.wait4``) next to wall time, with its peak resident set (the largest process of its
tree); each figure is the median of ``--repeats`` rounds, the commands of a round in
rotating order, after an untimed run that warms the bytecode caches
(``PYTHONDONTWRITEBYTECODE`` is dropped from the environment: users have the caches).

Per-scenario costs are net of start-up: each command also runs on an empty directory,
and ``(cpu - cpu on nothing) / scenarios`` is what one more scenario costs. The bars:

* per scenario: ``pytest --handoff-scenarios DIR`` at most 1.15x (a trivial pytest item +
  ``handoff-sim run -q DIR``), the trivial item being one empty test per file collected
  by a plugin of a dozen lines with every installed plugin but ours;
* flat: pytest's per-scenario cost on the largest suite within 1.10x of the smallest
  (when several ``--files`` are given);
* memory: pytest's peak RSS at most 1.5x the command's;
* xdist: ``pytest -n 2`` faster than ``-n 0`` (wall), with at most 1.25x its CPU.

Kept beside them (earlier bars): collection CPU per scenario (``--collect-only``) and
pytest / the command in total CPU.

    python bench/suite_scale.py [--files 1000 10000] [--repeats 3]

One JSON record per suite size, the largest first; it carries the flatness figures.
``--smoke`` (the test suite's check that every command runs) skips the warming round and
turns off hypothesis' and anyio's pytest plugins in every pytest command, a third of each
start-up; its figures are no measurement.
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
    """One command's wall and CPU seconds, its peak RSS, and what it reported."""

    wall: float
    cpu: float
    rss_mb: float
    items: int
    failed: int


def _env() -> dict[str, str]:
    """This environment, bytecode caches allowed (as users have them), no pytest settings."""
    skip = ("PYTEST_", "HYPOTHESIS_", "PYTHONDONTWRITEBYTECODE")
    return {k: v for k, v in os.environ.items() if not k.startswith(skip)}


def timed(cmd: Sequence[str], cwd: Path, ok: Sequence[int]) -> tuple[float, float, float, str]:
    """Run ``cmd``: its wall and CPU seconds, its tree's peak RSS in MB, and its output.

    ``os.wait4`` gives the usage of this one command (with the children it waited for,
    xdist's workers among them) and the largest resident set among them.
    """
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(list(cmd), cwd=cwd, env=_env(), stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if proc.returncode not in ok:
        raise SystemExit(
            f"failed ({proc.returncode}): {' '.join(cmd)}\n{stdout[-3000:]}\n{stderr[-3000:]}"
        )
    cpu = usage.ru_utime + usage.ru_stime
    return wall, cpu, usage.ru_maxrss / 1024, stdout + stderr


SMOKE_ARGS = ("-p", "no:hypothesispytest", "-p", "no:anyio")
"""What ``--smoke`` adds to every pytest command: two plugins none of the commands uses."""


UNRELATED_PLUGINS_OFF = ("-p", "no:langsmith_plugin")
"""Off in every pytest command, ours and the trivial one: langsmith's pytest plugin comes
with LangGraph's dependencies, has nothing to do with a suite, and costs every pytest
start-up some 28 MB and 0.4 s of CPU (no option when langsmith is not installed)."""


def _pytest(suite: Path, *extra: str) -> list[str]:
    base = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *UNRELATED_PLUGINS_OFF]
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
    base += UNRELATED_PLUGINS_OFF
    return [*base, "-p", "_handoff_floor", str(suite), *extra]


NOTHING = (0, 5)
"""Exit codes of a command given an empty directory (5: nothing collected / nothing found)."""


def empty_commands(empty: Path, xdist: bool, smoke: bool) -> dict[str, list[str]]:
    """Each command's start-up: the same command on a directory with no scenario."""
    off = SMOKE_ARGS if smoke else ()
    return {
        "floor_empty": _floor(empty, "--collect-only", *off),
        "collect_empty": _pytest(empty, "--collect-only", *off),
        "pytest_empty": _pytest(empty, *(["-n", "0"] if xdist else []), *off),
        "handoff_sim_run_empty": [sys.executable, "-m", "handoff_sim", "run", "-q", str(empty)],
    }


def commands(suite: Path, xdist: bool, smoke: bool = False) -> dict[str, tuple[list[str], bool]]:
    """Name -> (command, is the handoff-sim command), for one suite."""
    cli = [sys.executable, "-m", "handoff_sim", "run", "-q", str(suite)]
    off = SMOKE_ARGS if smoke else ()
    found = {
        "floor_collect": (_floor(suite, "--collect-only", *off), False),
        "floor_run": (_floor(suite, *off), False),
        "collect": (_pytest(suite, "--collect-only", *off), False),
        "pytest": (_pytest(suite, *(["-n", "0"] if xdist else []), *off), False),
        "handoff_sim_run": (cli, True),
    }
    if xdist:
        found["pytest_n2"] = (_pytest(suite, "-n", "2", *off), False)
    return found


Runs = dict[str, list[Timing]]
"""Timings by command; a suite's commands are named ``FILES:name``, start-ups ``name``."""


def _plan(
    suites: dict[int, Path], empty: Path, xdist: bool, smoke: bool
) -> dict[str, tuple[list[str], bool, tuple[int, ...]]]:
    """Every command of a round: name -> (command, is the command line, exit codes)."""
    plan: dict[str, tuple[list[str], bool, tuple[int, ...]]] = {
        name: (cmd, False, NOTHING) for name, cmd in empty_commands(empty, xdist, smoke).items()
    }
    for files, suite in suites.items():
        for name, (cmd, cli) in commands(suite, xdist, smoke).items():
            plan[f"{files}:{name}"] = (cmd, cli, (0,))
    return plan


def measure(
    suites: dict[int, Path], repeats: int, xdist: bool, warmup: bool = True, smoke: bool = False
) -> Runs:
    """Every command of every suite ``repeats`` times, the order rotated each round."""
    with tempfile.TemporaryDirectory(prefix="handoff-scale-project-") as tmp:
        project = Path(tmp)
        (project / "pytest.ini").write_text("[pytest]\n")
        (project / "_handoff_floor.py").write_text(FLOOR_PLUGIN)  # found: cwd is on sys.path
        empty = project / "empty"
        empty.mkdir()
        plan = _plan(suites, empty, xdist, smoke)
        names = list(plan)
        warm = project / "warm"
        generate(warm, 1)
        for cmd, _, ok in _plan({1: warm}, empty, xdist, smoke).values() if warmup else ():
            timed(cmd, project, ok)  # fill the bytecode caches
        runs: Runs = {n: [] for n in names}
        for r in range(repeats):
            for name in names[r % len(names) :] + names[: r % len(names)]:
                cmd, cli, ok = plan[name]
                wall, cpu, rss, out = timed(cmd, project, ok)
                items, failed = _counts(out, cli) if ok == (0,) else (0, 0)
                runs[name].append(Timing(wall, cpu, rss, items, failed))
                print(
                    f"  {name:22s} wall {wall:7.2f}s cpu {cpu:7.2f}s rss {rss:6.1f}MB "
                    f"items {items}",
                    file=sys.stderr,
                )
    return runs


def _median(runs: list[Timing], what: str) -> float:
    return median(getattr(t, what) for t in runs)


PER_SCENARIO_RATIO = 1.15
FLAT_RATIO = 1.10
RSS_RATIO = 1.5
XDIST_CPU_RATIO = 1.25


def _suite_runs(runs: Runs, files: int) -> Runs:
    """One suite's commands under their plain names, with the start-ups."""
    own = {n.split(":", 1)[1]: t for n, t in runs.items() if n.startswith(f"{files}:")}
    return {**{n: t for n, t in runs.items() if ":" not in n}, **own}


def _net_ms(rec: Record, name: str, start_up: str, items: int) -> float:
    """What one more scenario costs a command: its CPU net of its start-up, per scenario."""
    return float(rec[f"{name}_cpu_s"] - rec[f"{start_up}_cpu_s"]) / items * 1000


def summarise(runs: Runs, files: int, repeats: int) -> Record:
    """The figures and the bars of one suite size (flatness is added by :func:`flatness`)."""
    runs = _suite_runs(runs, files)
    items = runs["collect"][-1].items
    rec: Record = {
        "benchmark": "suite_scale",
        "files": files,
        "items": items,
        "repeats": repeats,
        "failed": {n: t[-1].failed for n, t in runs.items()},
        **{f"{n}_wall_s": round(_median(t, "wall"), 3) for n, t in runs.items()},
        **{f"{n}_cpu_s": round(_median(t, "cpu"), 3) for n, t in runs.items()},
        **{f"{n}_peak_rss_mb": round(_median(t, "rss_mb"), 1) for n, t in runs.items()},
    }
    _earlier_figures(rec, items)
    pytest_ms = _net_ms(rec, "pytest", "pytest_empty", items)
    cli_ms = _net_ms(rec, "handoff_sim_run", "handoff_sim_run_empty", items)
    trivial_ms = _net_ms(rec, "floor_run", "floor_empty", items)
    rec["pytest_ms_per_scenario"] = round(pytest_ms, 4)
    rec["handoff_sim_run_ms_per_scenario"] = round(cli_ms, 4)
    rec["trivial_item_ms"] = round(trivial_ms, 4)
    rec["pytest_vs_trivial_item_plus_cli"] = _ratio(pytest_ms, trivial_ms + cli_ms)
    rec["trivial_item_plus_cli_vs_cli"] = _ratio(trivial_ms + cli_ms, cli_ms)
    rec["pytest_ms_vs_cli_ms"] = _ratio(pytest_ms, cli_ms)
    rec["bar_per_scenario_met"] = _at_most(
        rec["pytest_vs_trivial_item_plus_cli"], PER_SCENARIO_RATIO
    )
    rec["rss_vs_cli"] = _ratio(rec["pytest_peak_rss_mb"], rec["handoff_sim_run_peak_rss_mb"])
    rec["bar_rss_met"] = _at_most(rec["rss_vs_cli"], RSS_RATIO)
    if "pytest_n2" in runs:
        rec["n2_vs_n0_wall"] = _ratio(rec["pytest_n2_wall_s"], rec["pytest_wall_s"])
        rec["n2_vs_n0_cpu"] = _ratio(rec["pytest_n2_cpu_s"], rec["pytest_cpu_s"])
        rec["bar_xdist_met"] = _below(rec["n2_vs_n0_wall"], 1.0) and _at_most(
            rec["n2_vs_n0_cpu"], XDIST_CPU_RATIO
        )
    rec["python"] = machine()["python"]
    rec["nproc"] = machine()["nproc"]
    return rec


def _earlier_figures(rec: Record, items: int) -> None:
    """The figures of the earlier bars (collection per scenario, total CPU ratios)."""
    collect_cpu, empty_cpu = rec["collect_cpu_s"], rec["collect_empty_cpu_s"]
    rec["collect_cpu_ms_per_scenario"] = round(collect_cpu / items * 1000, 3)
    rec["collect_cpu_ms_per_scenario_net"] = round((collect_cpu - empty_cpu) / items * 1000, 3)
    rec["pytest_vs_cli_cpu"] = round(rec["pytest_cpu_s"] / rec["handoff_sim_run_cpu_s"], 3)
    rec["pytest_vs_cli_wall"] = round(rec["pytest_wall_s"] / rec["handoff_sim_run_wall_s"], 3)
    floor_collect = rec["floor_collect_cpu_s"] - rec["floor_empty_cpu_s"]
    floor_run = rec["floor_run_cpu_s"] - rec["floor_collect_cpu_s"]
    rec["pytest_own_collect_ms_per_item"] = round(floor_collect / items * 1000, 3)
    rec["pytest_own_run_ms_per_item"] = round(floor_run / items * 1000, 3)
    own = floor_collect + floor_run  # what pytest itself spends on as many trivial items
    rec["pytest_vs_cli_cpu_without_pytest_own"] = round(
        (rec["pytest_cpu_s"] - own) / rec["handoff_sim_run_cpu_s"], 3
    )
    rec["bar_collection_met"] = rec["collect_cpu_ms_per_scenario"] <= 1.0
    rec["bar_one_process_met"] = rec["pytest_vs_cli_cpu"] <= 1.5


def flatness(records: list[Record]) -> None:
    """The largest suite's per-scenario cost against the smallest's, on the largest record."""
    if len(records) < 2:
        return
    small, large = records[-1], records[0]
    ratio = _ratio(large["pytest_ms_per_scenario"], small["pytest_ms_per_scenario"])
    large["flat_vs_files"] = small["files"]
    large["flat_ratio"] = ratio
    large["flat_ratio_cli"] = _ratio(
        large["handoff_sim_run_ms_per_scenario"], small["handoff_sim_run_ms_per_scenario"]
    )
    large["bar_flat_met"] = _at_most(ratio, FLAT_RATIO)


def _ratio(part: float, whole: float) -> float | None:
    """``part / whole``, or None when ``whole`` is no positive cost (a suite too small to
    rise above its start-up noise): a bar that cannot be measured is not met."""
    return round(part / whole, 3) if whole > 0 else None


def _x(ratio: float | None) -> str:
    return "n/a" if ratio is None else f"{ratio:.2f}"


def _at_most(ratio: float | None, bar: float) -> bool:
    return ratio is not None and ratio <= bar


def _below(ratio: float | None, bar: float) -> bool:
    return ratio is not None and ratio < bar


def _line(met: bool, text: str) -> None:
    print(f"{'met    ' if met else 'NOT met'}  {text}", file=sys.stderr)


def report(rec: Record) -> None:
    """The figures as a table and one met / not met line per bar, on stderr."""
    rows = [
        {"what": f"pytest --collect-only ({rec['items']} scenarios)", "key": "collect"},
        {"what": "pytest --handoff-scenarios (one process)", "key": "pytest"},
        {"what": "  ... no scenario (start-up)", "key": "pytest_empty"},
        {"what": "handoff-sim run -q", "key": "handoff_sim_run"},
        {"what": "  ... no scenario (start-up)", "key": "handoff_sim_run_empty"},
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
            ("peak RSS MB", lambda r: f"{rec[r['key'] + '_peak_rss_mb']:.1f}"),
        ],
        title=f"suite of {rec['files']} files (median of {rec['repeats']})",
    )
    print(file=sys.stderr)
    _line(
        rec["bar_per_scenario_met"],
        f"per scenario: pytest {rec['pytest_ms_per_scenario']:.3f} ms CPU / (trivial item "
        f"{rec['trivial_item_ms']:.3f} + handoff-sim run "
        f"{rec['handoff_sim_run_ms_per_scenario']:.3f} ms) = "
        f"{_x(rec['pytest_vs_trivial_item_plus_cli'])}x (trivial item + command: "
        f"{_x(rec['trivial_item_plus_cli_vs_cli'])}x the command; pytest "
        f"{_x(rec['pytest_ms_vs_cli_ms'])}x); bar <= {PER_SCENARIO_RATIO}",
    )
    if "bar_flat_met" in rec:
        _line(
            rec["bar_flat_met"],
            f"flat: per scenario at {rec['files']} files / at {rec['flat_vs_files']} = "
            f"{_x(rec['flat_ratio'])}x (the command: {_x(rec['flat_ratio_cli'])}x); "
            f"bar <= {FLAT_RATIO}",
        )
    _line(
        rec["bar_rss_met"],
        f"memory: pytest peak RSS {rec['pytest_peak_rss_mb']:.1f} MB / handoff-sim run "
        f"{rec['handoff_sim_run_peak_rss_mb']:.1f} MB = {_x(rec['rss_vs_cli'])}x; "
        f"bar <= {RSS_RATIO}",
    )
    if "bar_xdist_met" in rec:
        _line(
            rec["bar_xdist_met"],
            f"xdist: -n 2 / -n 0 = {_x(rec['n2_vs_n0_wall'])} wall, {_x(rec['n2_vs_n0_cpu'])} "
            f"CPU; bar < 1 wall and <= {XDIST_CPU_RATIO} CPU",
        )
    else:
        print("n/a      -n 2 / -n 0: pytest-xdist is not installed", file=sys.stderr)
    print(
        f"\nearlier bars: collection {rec['collect_cpu_ms_per_scenario']:.3f} ms CPU per "
        f"scenario ({rec['collect_cpu_ms_per_scenario_net']:.3f} without start-up); pytest / "
        f"handoff-sim run = {rec['pytest_vs_cli_cpu']:.2f} CPU in total "
        f"({rec['pytest_vs_cli_wall']:.2f} wall)",
        file=sys.stderr,
    )


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument(
        "--files",
        type=int,
        nargs="+",
        default=[10_000],
        help="generated scenario files; several sizes are measured in the same rounds",
    )
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
    sizes = sorted(set(args.files), reverse=True)
    with tempfile.TemporaryDirectory(prefix="handoff-scale-") as tmp:
        suites = {files: Path(tmp) / f"suite_{files}" for files in sizes}
        for files, suite in suites.items():
            sources = generate(suite, files)
            print(f"suite_scale: {files} files from {len(sources)} bundled ones", file=sys.stderr)
        warmup = not (args.no_warmup or args.smoke)
        runs = measure(suites, args.repeats, xdist, warmup, args.smoke)
        records = [summarise(runs, files, args.repeats) for files in sizes]
    flatness(records)
    for rec in records:
        emit(rec)
    for rec in records:
        report(rec)


if __name__ == "__main__":
    main()
