"""Helpers shared by the benchmark scripts: machine facts, statistics, subprocesses, tables.

The scripts print one JSON line per measurement on stdout and a short table on
stderr, so ``script > out.jsonl`` keeps the raw data and the terminal shows the table.
"""

from __future__ import annotations

import json
import os
import platform
import resource
import statistics
import subprocess
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "BENCH_DIR",
    "REPO_ROOT",
    "Record",
    "emit",
    "load_jsonl",
    "machine",
    "median",
    "peak_rss_mb",
    "print_table",
    "run_json_lines",
]

Record = dict[str, Any]

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent


def machine() -> Record:
    """nproc, CPU model, Python version and load: what a reader needs to compare figures."""
    cpu = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "system": f"{platform.system()} {platform.release()}",
        "loadavg_1m": os.getloadavg()[0],
    }


def peak_rss_mb() -> float:
    """This process's resident-set high-water mark (Linux reports KiB)."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def median(values: Iterable[float]) -> float:
    """The median of ``values``."""
    return float(statistics.median(list(values)))


def emit(record: Mapping[str, Any]) -> None:
    """Print one measurement as a JSON line on stdout."""
    print(json.dumps(record, sort_keys=False), flush=True)


def run_json_lines(cmd: Sequence[str], *, cwd: Path | None = None) -> list[Record]:
    """Run ``cmd`` and return the JSON lines it printed; fail loudly with its stderr."""
    proc = subprocess.run(list(cmd), capture_output=True, text=True, cwd=cwd, check=False)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        raise SystemExit(f"benchmark subprocess failed ({proc.returncode}): {' '.join(cmd)}")
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


def load_jsonl(path: Path) -> list[Record]:
    """Every JSON line of ``path`` (missing file: none)."""
    if not path.exists():
        return []
    return [json.loads(x) for x in path.read_text().splitlines() if x.startswith("{")]


def _cell(value: Any) -> str:
    if isinstance(value, float) and value != value:
        return ""
    if isinstance(value, float):
        return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"
    return "" if value is None else str(value)


def _numeric(value: Any) -> bool:
    if isinstance(value, int | float) or value is None:
        return True
    return str(value).replace(",", "").rstrip("x").lstrip("-").replace(".", "", 1).isdigit()


def print_table(
    rows: Sequence[Mapping[str, Any]],
    columns: Sequence[tuple[str, str | Callable[[Mapping[str, Any]], Any]]],
    *,
    title: str = "",
    stream: Any = None,
) -> None:
    """A plain aligned text table of ``rows``; a column is (header, key or function)."""
    out = stream or sys.stderr
    raw = [[col(r) if callable(col) else r.get(col) for _, col in columns] for r in rows]
    cells = [[_cell(v) for v in row] for row in raw]
    left = [not all(_numeric(row[i]) for row in raw) for i in range(len(columns))]
    heads = [h for h, _ in columns]
    widths = [max([len(h), *(len(c[i]) for c in cells)]) for i, h in enumerate(heads)]
    if title:
        print(f"\n{title}", file=out)
    print("  ".join(h.ljust(w) for h, w in zip(heads, widths, strict=True)), file=out)
    print("  ".join("-" * w for w in widths), file=out)
    for c in cells:
        line = [v.ljust(w) if lj else v.rjust(w) for v, w, lj in zip(c, widths, left, strict=True)]
        print("  ".join(line), file=out)
    out.flush()
