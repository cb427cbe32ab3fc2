"""Smoke test of the benchmark scripts in bench/: each runs with tiny sizes.

No peers and no timed assertions: the bars are measured by the scripts, never by tests.
These check that every script runs, verifies its workload and prints well-formed output.
"""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

# Every test here runs a benchmark script in a subprocess.
pytestmark = pytest.mark.slow
BENCH = Path(__file__).resolve().parents[2] / "bench"


def run_script(name: str, *args: str, cwd: Path | None = None) -> list[dict[str, Any]]:
    proc = subprocess.run(
        [sys.executable, str(BENCH / name), *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return [json.loads(x) for x in proc.stdout.splitlines() if x.startswith("{")]


@pytest.fixture(scope="module")
def delegation_records() -> list[dict[str, Any]]:
    return run_script(
        "delegation.py",
        "--sequential",
        "3",
        "--parallel",
        "4",
        "--repeats",
        "1",
        "--no-tracemalloc",
        "--in-process",
    )


def test_delegation_measures_every_mode_and_workload(
    delegation_records: list[dict[str, Any]],
) -> None:
    seen = {(r["workload"], r["n"], r["mode"]) for r in delegation_records}
    modes = ("realtime", "simulate", "simulate+wallclock")
    assert seen == {(w, n, m) for w, n in (("sequential", 3), ("parallel", 4)) for m in modes}
    for r in delegation_records:
        assert r["framework"] == "handoff-sim"
        assert r["microseconds_per_handoff"] > 0
        assert r["peak_rss_mb"] > 0
        assert r["child_invocations"] == r["n"]
        # sequential: run, 2 model events per parent turn, 6 handoff/tool events + child run
        assert r["events_per_run"] > 6 * r["n"]


@pytest.fixture(scope="module")
def virtual_time_records() -> list[dict[str, Any]]:
    return run_script("virtual_time.py", "--repeats", "1", "--in-process")


def test_report_writes_markdown_and_a_wellformed_svg(
    delegation_records: list[dict[str, Any]],
    virtual_time_records: list[dict[str, Any]],
    tmp_path: Path,
) -> None:
    out, docs = tmp_path / "out", tmp_path / "docs"
    out.mkdir()
    docs.mkdir()
    lines = "\n".join(json.dumps(r) for r in delegation_records)
    (out / "delegation.jsonl").write_text(lines + "\n")
    (out / "virtual_time.jsonl").write_text(
        "\n".join(json.dumps(r) for r in virtual_time_records) + "\n"
    )
    run_script("report.py", "--out", str(out), "--docs", str(docs))
    text = (docs / "benchmarks.md").read_text()
    assert "## The performance bars, checked on this run" in text
    assert "| sequential | 3 |" in text
    root = ET.parse(docs / "benchmarks.svg").getroot()
    assert root.tag.endswith("svg")
    assert any(el.tag.endswith("polyline") for el in root.iter())


def test_virtual_time_reports_every_scenario_in_each_clock_mode(
    virtual_time_records: list[dict[str, Any]],
) -> None:
    got = {(r["scenario"], r["wall_clock"]): r for r in virtual_time_records}
    simulated = {(s, c) for s in ("timeout-30s-x3", "ten-hours") for c in (False, True)}
    assert set(got) == simulated | {("scenario-file-30s-x3", False)}
    assert got[("timeout-30s-x3", False)]["virtual_seconds"] == 90.0
    assert got[("ten-hours", True)]["virtual_seconds"] == 36_000.0
    assert got[("scenario-file-30s-x3", False)]["virtual_seconds"] == 90.0


def test_profile_prints_the_top_costs() -> None:
    (record,) = run_script("profile_delegation.py", "--n", "3", "--runs", "1", "--top", "5")
    assert record["benchmark"] == "profile"
    assert len(record["top"]) == 5


def test_plugin_startup_measures_or_says_why_not(tmp_path: Path) -> None:
    records = run_script(
        "plugin_startup.py",
        *("--runs", "1", "--import-runs", "0", "--import-time-runs", "1", "--no-warmup"),
    )
    if records[0].get("status") == "skipped":
        assert "pytest_handoff.plugin" in records[0]["reason"]
    else:
        record, package = records
        assert record["benchmark"] == "plugin_startup"
        assert record["installed_ms"] > 0
        assert record["not_installed_ms"] > 0
        assert record["no_syrupy_ms"] > 0
        assert package["benchmark"] == "import_time"
        assert package["bare_ms"] > 0
        assert {"handoff_sim_ms", "core_names_ms", "handoff_sim_scenarios_ms"} <= set(package)
    out, docs = tmp_path / "out", tmp_path / "docs"
    out.mkdir()
    docs.mkdir()
    (out / "plugin_startup.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    run_script("report.py", "--out", str(out), "--docs", str(docs))  # reads every kind
    assert "## Plugin start-up" in (docs / "benchmarks.md").read_text()


def test_suite_scale_measures_the_suite_bars() -> None:
    larger, smaller = run_script(
        "suite_scale.py", "--files", "1", "2", "--repeats", "1", "--no-xdist", "--smoke"
    )
    assert (larger["files"], smaller["files"]) == (2, 1)  # the largest first
    for record, items in ((larger, 2), (smaller, 1)):
        assert record["benchmark"] == "suite_scale"
        assert record["items"] == items
        assert set(record["failed"].values()) == {0}
        assert record["pytest_peak_rss_mb"] > 0
        assert record["handoff_sim_run_peak_rss_mb"] > 0
        for bar in ("per_scenario", "rss", "collection", "one_process"):
            assert isinstance(record[f"bar_{bar}_met"], bool)
    assert larger["flat_vs_files"] == 1
    assert isinstance(larger["bar_flat_met"], bool)
    assert "bar_flat_met" not in smaller


def test_scenario_suite_measures_or_says_why_not() -> None:
    records = run_script(
        "scenario_suite.py",
        *("--files", "3", "--repeats", "1", "--no-xdist", "--no-bundled", "--smoke"),
    )
    if records[0].get("status") == "skipped":
        assert records[0]["missing"]
    else:
        generated = [r for r in records if r["suite"].endswith("generated files")]
        assert generated[0]["items"] == 3
        assert generated[0]["outcomes"] == {"passed": 3}


def test_delegation_workers_in_their_own_processes_give_interleaved_records() -> None:
    records = run_script(
        *("delegation.py", "--sequential", "3", "--parallel", "", "--repeats", "2"),
        *("--modes", "realtime,simulate", "--no-tracemalloc"),
    )
    assert {(r["mode"], r["interleaved"]) for r in records} == {
        ("realtime", True),
        ("simulate", True),
    }
    for r in records:
        assert r["repeats"] == 2
        assert len(r["cpu_samples_seconds"]) == 2
        assert r["events_per_run"] > 6 * r["n"]


def test_report_writes_the_restated_bars_with_cpu_instructions_and_a_verdict(
    delegation_records: list[dict[str, Any]], tmp_path: Path
) -> None:
    out, docs = tmp_path / "out", tmp_path / "docs"
    out.mkdir()
    docs.mkdir()
    counted = {
        "benchmark": "instructions",
        "framework": "handoff-sim",
        "workload": "sequential",
        "n": 200,
        "runs": 3,
        "instructions_per_handoff": 310_000,
    }
    files = {"delegation": delegation_records, "instructions": [counted]}
    for name, records in files.items():
        (out / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    durations = {"delegation": 120, "instructions": 300, "adapters": None}
    (out / "durations.json").write_text(json.dumps(durations))
    run_script("report.py", "--out", str(out), "--docs", str(docs))
    text = (docs / "benchmarks.md").read_text()
    assert "took 7.0 min (delegation 2.0 min, instructions 5.0 min, adapters skipped)" in text
    assert "Earlier versions of this page printed peer ratios from separate runs" in text
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    (cost,) = [r for r in rows if r.startswith("| per handoff, N=200 sequential, full trace")]
    assert cost.endswith("| 310.0k (1.13x) | **NOT met** |")
    peers = [r for r in rows if "less CPU than" in r]
    assert len(peers) == 2
    assert all(r.endswith("| n/a | n/a | n/a |") for r in peers)  # no peers ran
    assert not any("35 µs" in r or "150x" in r or "KiB" in r for r in rows)  # old bars gone
