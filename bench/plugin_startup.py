#!/usr/bin/env python3
"""Plugin start-up cost: what installing handoff-sim adds to every pytest run.

``pytest --collect-only -q`` in an empty temporary project, each run a fresh subprocess,
under three conditions taken in rotating order:

* ``installed``: as a user has it (the ``pytest11`` plugin and the ``hypothesis`` entry
  point of the package both load);
* ``no:handoff``: ``-p no:handoff`` (the plugin is off; the hypothesis hook still runs);
* ``not installed``: ``-p no:handoff`` and ``HYPOTHESIS_NO_PLUGINS=1``: nothing of the
  package loads, as if it were not installed;
* ``no:hypothesispytest`` and ``no:syrupy``: as installed, without hypothesis' or
  syrupy's own pytest plugin: what those two, which come with the dependencies, add.

The added cost is the median of the paired differences. Then ``python -X importtime``:
the modules an installed package adds to a pytest start-up (with their self times), and
the cumulative import time of ``pytest_handoff.plugin`` on its own. Last, the import of
``handoff_sim`` (its names load on first use), of ``from handoff_sim import Agent,
HandoffPolicy, simulate`` (what a user's first line loads: the runtime) and of
``handoff_sim.scenarios`` (which a scenario session loads) over a bare interpreter,
wall time, paired runs. Bytecode caches are warm: the environment's
``PYTHONDONTWRITEBYTECODE`` is dropped and every command runs once untimed first.

Bars: the plugin adds at most 20 ms to a pytest start-up; importing ``handoff_sim``
takes at most 150 ms over a bare interpreter (stated for ``import handoff_sim`` and,
separately, for the first names a user imports).

    python bench/plugin_startup.py [--runs 21]
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
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Record, emit, machine, median, print_table

PLUGIN = "pytest_handoff.plugin"
CONDITIONS = ("installed", "no:handoff", "not installed", "no:hypothesispytest", "no:syrupy")
PLUGIN_BAR_MS = 20.0
IMPORT_BAR_MS = 150.0
_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


def _env(condition: str) -> dict[str, str]:
    skip = ("PYTEST_", "HYPOTHESIS_", "PYTHONDONTWRITEBYTECODE")
    env = {k: v for k, v in os.environ.items() if not k.startswith(skip)}
    if condition == "not installed":
        env["HYPOTHESIS_NO_PLUGINS"] = "1"
    return env


def _pytest_cmd(condition: str, *python_flags: str) -> list[str]:
    cmd = [sys.executable, *python_flags, "-m", "pytest", "--collect-only", "-q"]
    if condition.startswith("no:"):
        return [*cmd, "-p", condition]
    return cmd + ([] if condition == "installed" else ["-p", "no:handoff"])


@contextmanager
def empty_project() -> Iterator[Path]:
    """A temporary directory with an empty ``pytest.ini``: nothing to collect."""
    with tempfile.TemporaryDirectory(prefix="handoff-startup-") as tmp:
        (Path(tmp) / "pytest.ini").write_text("[pytest]\n")
        yield Path(tmp)


def _run(project: Path, condition: str, *python_flags: str) -> tuple[float, str]:
    cmd = _pytest_cmd(condition, *python_flags)
    t0 = time.perf_counter()
    proc = subprocess.run(
        cmd, cwd=project, env=_env(condition), capture_output=True, text=True, check=False
    )
    elapsed = time.perf_counter() - t0
    if proc.returncode not in (0, 5):  # 5: no tests collected, expected in an empty project
        raise SystemExit(f"pytest failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return elapsed, proc.stderr


def collect_startup(runs: int, warmup: bool = True) -> Record:
    """Median wall time of ``pytest --collect-only -q`` per condition, and paired differences."""
    times: dict[str, list[float]] = {c: [] for c in CONDITIONS}
    with empty_project() as project:
        for condition in CONDITIONS if warmup else ():
            _run(project, condition)  # warm the .pyc files and the page cache
        for i in range(runs):
            turn = i % len(CONDITIONS)
            for condition in CONDITIONS[turn:] + CONDITIONS[:turn]:
                times[condition].append(_run(project, condition)[0])

    def diff(a: str, b: str) -> float:
        return round(median(x - y for x, y in zip(times[a], times[b], strict=True)) * 1000, 2)

    return {
        "benchmark": "plugin_startup",
        "measure": "pytest --collect-only -q (empty project)",
        "runs": runs,
        **{
            f"{c.replace(' ', '_').replace(':', '_')}_ms": round(median(times[c]) * 1000, 2)
            for c in CONDITIONS
        },
        "added_ms": diff("installed", "not installed"),
        "added_by_plugin_ms": diff("installed", "no:handoff"),
        "added_by_hypothesis_hook_ms": diff("no:handoff", "not installed"),
        "added_by_hypothesis_plugin_ms": diff("installed", "no:hypothesispytest"),
        "added_by_syrupy_plugin_ms": diff("installed", "no:syrupy"),
        "python": machine()["python"],
    }


def _imports(stderr: str) -> dict[str, tuple[int, int]]:
    """module -> (self µs, cumulative µs) from a ``-X importtime`` listing."""
    return {m[4]: (int(m[1]), int(m[2])) for m in map(_LINE.match, stderr.splitlines()) if m}


def _by_root(modules: dict[str, int]) -> dict[str, float]:
    roots: dict[str, int] = {}
    for name, us in modules.items():
        roots[name.split(".")[0]] = roots.get(name.split(".")[0], 0) + us
    top = sorted(roots.items(), key=lambda kv: -kv[1])[:8]
    return {k: round(v / 1000, 2) for k, v in top}


def startup_imports(runs: int) -> Record:
    """Modules an installed handoff-sim adds to a pytest start-up, and the plugin's import."""
    added_self, last_added = [], {}
    with empty_project() as project:
        for _ in range(runs):
            on = _imports(_run(project, "installed", "-X", "importtime")[1])
            off = _imports(_run(project, "not installed", "-X", "importtime")[1])
            last_added = {k: v[0] for k, v in on.items() if k not in off}
            added_self.append(sum(last_added.values()))
    plugin = []
    for _ in range(runs):
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", f"import pytest; import {PLUGIN}"],
            capture_output=True,
            text=True,
            check=True,
            env=_env("installed"),
        )
        listing = _imports(proc.stderr)
        plugin.append(listing.get(PLUGIN, (0, 0))[1] + listing.get("pytest_handoff", (0, 0))[1])
    return {
        "benchmark": "plugin_importtime",
        "measure": "python -X importtime -m pytest --collect-only -q: installed vs not installed",
        "runs": runs,
        "added_modules": len(last_added),
        "added_import_self_ms": round(median(added_self) / 1000, 2),
        "added_by_package_ms": _by_root(last_added),
        "plugin_import_after_pytest_ms": round(median(plugin) / 1000, 2),
        "python": machine()["python"],
    }


IMPORTS = {
    "bare": "pass",
    "handoff_sim": "import handoff_sim",
    "core_names": "from handoff_sim import Agent, HandoffPolicy, simulate",
    "handoff_sim.scenarios": "import handoff_sim.scenarios",
    # What those names cannot go below: asyncio, and pydantic with one model class built.
    "dependencies": (
        "import asyncio\nfrom pydantic import BaseModel\nclass M(BaseModel):\n    x: int = 0"
    ),
}


def import_time(runs: int, warmup: bool = True) -> Record:
    """Wall time of importing the package over a bare interpreter: medians of paired runs."""
    times: dict[str, list[float]] = {name: [] for name in IMPORTS}
    env = _env("installed")

    def once(code: str) -> float:
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], env=env, check=True)
        return time.perf_counter() - t0

    for code in IMPORTS.values() if warmup else ():
        once(code)  # warm the bytecode caches
    for i in range(runs):
        names = list(IMPORTS)
        turn = i % len(names)
        for name in names[turn:] + names[:turn]:
            times[name].append(once(IMPORTS[name]))

    def over_bare(name: str) -> float:
        pairs = zip(times[name], times["bare"], strict=True)
        return round(median(x - y for x, y in pairs) * 1000, 2)

    return {
        "benchmark": "import_time",
        "measure": "python -c 'import ...' minus python -c 'pass', wall, warm bytecode caches",
        "runs": runs,
        "bare_ms": round(median(times["bare"]) * 1000, 2),
        "handoff_sim_ms": over_bare("handoff_sim"),
        "core_names_ms": over_bare("core_names"),
        "handoff_sim_scenarios_ms": over_bare("handoff_sim.scenarios"),
        "dependencies_ms": over_bare("dependencies"),
        "python": machine()["python"],
    }


def verdicts(startup: Record, imports: Record | None) -> None:
    """One met / not met line per bar, on stderr."""

    def line(met: bool, text: str) -> None:
        print(f"{'met    ' if met else 'NOT met'}  {text}", file=sys.stderr)

    plugin = startup["added_by_plugin_ms"]
    line(plugin <= PLUGIN_BAR_MS, f"the plugin adds {plugin:.1f} ms to pytest; bar <= 20 ms")
    hypothesis, syrupy = (
        startup["added_by_hypothesis_plugin_ms"],
        startup["added_by_syrupy_plugin_ms"],
    )
    print(
        f"         (hypothesis' own pytest plugin adds {hypothesis:.1f} ms, syrupy's {syrupy:.1f})",
        file=sys.stderr,
    )
    if imports is not None:
        ms = imports["handoff_sim_ms"]
        line(
            ms <= IMPORT_BAR_MS,
            f"import handoff_sim {ms:.1f} ms over a bare interpreter; bar <= 150 ms",
        )
        core = imports["core_names_ms"]
        line(
            core <= IMPORT_BAR_MS,
            f"from handoff_sim import Agent, HandoffPolicy, simulate {core:.1f} ms over a bare "
            "interpreter; the same bar, as a user first touches the package",
        )
        print(
            f"         (asyncio and pydantic with one model class, alone: "
            f"{imports['dependencies_ms']:.1f} ms)",
            file=sys.stderr,
        )


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--runs", type=int, default=21, help="rounds of the conditions")
    ap.add_argument("--import-runs", type=int, default=5, help="0: skip -X importtime")
    ap.add_argument("--no-warmup", action="store_true", help="skip the untimed first runs")
    ap.add_argument("--import-time-runs", type=int, default=21, help="0: skip import handoff_sim")
    args = ap.parse_args(argv)
    if (
        importlib.util.find_spec("pytest_handoff") is None
        or importlib.util.find_spec(PLUGIN) is None
    ):
        emit({"benchmark": "plugin_startup", "status": "skipped", "reason": f"{PLUGIN} not found"})
        print(
            f"plugin_startup: {PLUGIN} is not importable yet; nothing to measure.", file=sys.stderr
        )
        return
    startup = collect_startup(args.runs, warmup=not args.no_warmup)
    emit(startup)
    package = (
        import_time(args.import_time_runs, warmup=not args.no_warmup)
        if args.import_time_runs > 0
        else None
    )
    if package is not None:
        emit(package)
    if args.import_runs < 1:
        verdicts(startup, package)
        return
    imports = startup_imports(args.import_runs)
    emit(imports)
    rows = [
        {"what": "pytest --collect-only -q, installed", "ms": startup["installed_ms"]},
        {"what": "  ... -p no:handoff", "ms": startup["no_handoff_ms"]},
        {"what": "  ... -p no:handoff, HYPOTHESIS_NO_PLUGINS=1", "ms": startup["not_installed_ms"]},
        {"what": "added by installing (median of pairs)", "ms": startup["added_ms"]},
        {"what": "  of which the pytest plugin", "ms": startup["added_by_plugin_ms"]},
        {
            "what": "  of which the hypothesis entry point",
            "ms": startup["added_by_hypothesis_hook_ms"],
        },
        {"what": "hypothesis' own pytest plugin", "ms": startup["added_by_hypothesis_plugin_ms"]},
        {"what": "syrupy's own pytest plugin", "ms": startup["added_by_syrupy_plugin_ms"]},
        {"what": "self import time of the modules it adds", "ms": imports["added_import_self_ms"]},
        {"what": f"import {PLUGIN} after pytest", "ms": imports["plugin_import_after_pytest_ms"]},
    ]
    print_table(
        rows,
        [("measurement", "what"), ("ms", lambda r: f"{r['ms']:.1f}")],
        title="plugin start-up cost",
    )
    print(f"modules added, by package (self ms): {imports['added_by_package_ms']}", file=sys.stderr)
    if package is not None:
        print(
            f"import handoff_sim: {package['handoff_sim_ms']:.1f} ms, "
            f"from handoff_sim import Agent, HandoffPolicy, simulate: "
            f"{package['core_names_ms']:.1f} ms, handoff_sim.scenarios: "
            f"{package['handoff_sim_scenarios_ms']:.1f} ms over a bare interpreter "
            f"({package['bare_ms']:.1f} ms)",
            file=sys.stderr,
        )
    verdicts(startup, package)


if __name__ == "__main__":
    main()
