#!/usr/bin/env python3
"""Wall-clock cost: default ``simulate()`` against ``simulate(wall_clock=False)``.

The bar: with about 600 modules loaded, the default (the wall clock follows virtual
time) costs at most 0.3 ms more per ``simulate()`` call than ``wall_clock=False``,
whatever the number of modules. Each setting runs in its own subprocess, after loading
the standard library and the dependencies up to ``--modules`` modules:

* ``~600 modules``: the stdlib and the dependencies, as a test session has them;
* ``+2000 plain modules``: 2,000 more generated modules that read no clock;
* ``+200 modules importing time by name``: 200 generated modules doing
  ``from time import time`` and ``from datetime import datetime`` (each is a place
  the patch must replace, so this one shows what the cost does scale with).

The workload is one handoff whose child answers after a virtual second, so the wall
clock is installed and removed once per call. Calls alternate between the two
settings, so drift hits both alike; each figure is the median of ``--repeats`` calls,
CPU time (``time.process_time``) next to wall time. The first wall-clock call of the
process is reported apart: it pays the one-time module scan. JSON lines on stdout, a
table on stderr.

    python bench/wall_clock.py [--repeats 301] [--modules 600]
"""

from __future__ import annotations

import argparse
import importlib
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Record, emit, machine, median, print_table, run_json_lines

BAR_MS = 0.3
SETTINGS = {
    "~600 modules": (0, False),
    "+2000 plain modules": (2000, False),
    "+200 modules importing time by name": (200, True),
}
# Module names, space-separated, loaded in this order until --modules is reached (the
# dependencies first, as in a test run).
_STDLIB = """
handoff_sim pydantic yaml hypothesis pytest freezegun syrupy email.mime.multipart http.client
http.server logging.handlers json sqlite3 urllib.request xml.dom.minidom xml.etree.ElementTree
unittest.mock argparse decimal fractions statistics csv zipfile tarfile pdb doctest difflib
multiprocessing.pool concurrent.futures ssl smtplib imaplib ftplib poplib calendar sched shelve
dbm uuid secrets hmac hashlib asyncio.subprocess wsgiref.simple_server xmlrpc.client
xmlrpc.server mailbox mimetypes pickletools shlex configparser gettext locale cProfile pstats
timeit trace tracemalloc ipaddress netrc plistlib html.parser cgitb turtle tkinter curses
lib2to3 pydoc_data sqlite3.dump ctypes.util distutils ensurepip venv zipapp compileall
py_compile filecmp fileinput glob shutil tempfile codeop code rlcompleter readline
"""


def load_modules(target: int) -> int:
    """Import stdlib and dependency modules until ``target`` are loaded; return the count."""
    for name in _STDLIB.split():
        if len(sys.modules) >= target:
            break
        try:
            importlib.import_module(name)
        except Exception:  # absent on this build (tkinter, curses...): skip it
            continue
    return len(sys.modules)


def generated_modules(count: int, read_clock: bool) -> int:
    """Import ``count`` generated modules (reading the clock by name or not)."""
    if not count:
        return 0
    folder = Path(tempfile.mkdtemp(prefix="handoff-wall-clock-"))
    body = "from datetime import datetime\nfrom time import time\n" if read_clock else "X = 1\n"
    for i in range(count):
        (folder / f"bench_generated_{i}.py").write_text(body)
    sys.path.insert(0, str(folder))
    for i in range(count):
        importlib.import_module(f"bench_generated_{i}")
    return count


def build() -> Any:
    """One parent, one handoff, a child that answers after a virtual second."""
    from handoff_sim import Agent, SubAgent
    from handoff_sim.testing import ScriptedModel

    call = {"id": "c1", "name": "delegate", "arguments": {"task": "t"}}
    child = Agent("child", ScriptedModel([{"text": "done", "latency": 1}]))
    return Agent(
        "parent",
        ScriptedModel([{"tool_calls": [call]}, {"text": "ok"}]),
        subagents=[SubAgent("child", "d", child, tool_name="delegate")],
    )


def _timed(wall_clock: bool) -> tuple[float, float]:
    from handoff_sim import simulate

    parent = build()
    cpu, wall = time.process_time(), time.perf_counter()
    result = simulate(parent, "go", wall_clock=wall_clock)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    assert result.output == "ok", result
    assert result.elapsed_ms == 1000.0, result
    return cpu * 1000, wall * 1000


def worker(setting: str, repeats: int, modules: int) -> Record:
    """Measure one setting in this process."""
    extra, read_clock = SETTINGS[setting]
    load_modules(modules)
    generated_modules(extra, read_clock)
    loaded = len(sys.modules)
    _timed(False)  # warm the runtime itself before the first wall-clock call
    first_cpu, first_wall = _timed(True)
    times: dict[bool, list[tuple[float, float]]] = {False: [], True: []}
    for i in range(repeats):
        for wall_clock in (False, True) if i % 2 else (True, False):
            times[wall_clock].append(_timed(wall_clock))
    off_cpu, on_cpu = (median(c for c, _ in times[k]) for k in (False, True))
    off_wall, on_wall = (median(w for _, w in times[k]) for k in (False, True))
    return {
        "benchmark": "wall_clock",
        "setting": setting,
        "modules_loaded": loaded,
        "repeats": repeats,
        "cpu_ms_median_no_wall_clock": round(off_cpu, 4),
        "cpu_ms_median_default": round(on_cpu, 4),
        "cpu_ms_overhead": round(on_cpu - off_cpu, 4),
        "cpu_ratio": round(on_cpu / off_cpu, 3),
        "wall_ms_median_no_wall_clock": round(off_wall, 4),
        "wall_ms_median_default": round(on_wall, 4),
        "wall_ms_overhead": round(on_wall - off_wall, 4),
        "first_wall_clock_call_cpu_ms": round(first_cpu, 3),
        "first_wall_clock_call_wall_ms": round(first_wall, 3),
        "bar_ms": BAR_MS,
        "met": on_cpu - off_cpu <= BAR_MS,
        "python": machine()["python"],
    }


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--repeats", type=int, default=301, help="calls per setting (median of them)")
    ap.add_argument("--modules", type=int, default=600, help="modules loaded before timing")
    ap.add_argument(
        "--settings", default=",".join(SETTINGS), help="comma-separated subset of the settings"
    )
    ap.add_argument("--worker", choices=SETTINGS, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.repeats < 5:
        ap.error("--repeats must be at least 5 (figures are medians)")
    if args.worker:
        emit(worker(args.worker, args.repeats, args.modules))
        return
    rows = []
    for setting in args.settings.split(","):
        cmd = [sys.executable, __file__, "--worker", setting]
        cmd += ["--repeats", str(args.repeats), "--modules", str(args.modules)]
        record = run_json_lines(cmd)[0]
        emit(record)
        rows.append(record)
    print_table(
        rows,
        [
            ("setting", "setting"),
            ("modules", "modules_loaded"),
            ("CPU ms off", lambda r: f"{r['cpu_ms_median_no_wall_clock']:.3f}"),
            ("CPU ms on", lambda r: f"{r['cpu_ms_median_default']:.3f}"),
            ("CPU +ms", lambda r: f"{r['cpu_ms_overhead']:+.3f}"),
            ("ratio", lambda r: f"{r['cpu_ratio']:.2f}x"),
            ("wall +ms", lambda r: f"{r['wall_ms_overhead']:+.3f}"),
            ("first call ms", lambda r: f"{r['first_wall_clock_call_wall_ms']:.1f}"),
            (f"<= {BAR_MS} ms", lambda r: "met" if r["met"] else "NOT MET"),
        ],
        title="wall clock: default simulate() vs wall_clock=False (median per call)",
    )


if __name__ == "__main__":
    main()
