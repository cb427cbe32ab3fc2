"""Smoke test of the benchmark scripts in bench/ (SPEC §11): each runs with tiny sizes.

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


def test_suite_scale_measures_the_three_bars() -> None:
    (record,) = run_script(
        "suite_scale.py", "--files", "2", "--repeats", "1", "--no-xdist", "--smoke"
    )
    assert record["benchmark"] == "suite_scale"
    assert record["items"] == 2
    assert set(record["failed"].values()) == {0}
    assert isinstance(record["bar_collection_met"], bool)
    assert isinstance(record["bar_one_process_met"], bool)


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


def test_report_states_each_issue_target_with_its_figure_and_verdict(
    delegation_records: list[dict[str, Any]], tmp_path: Path
) -> None:
    out, docs = tmp_path / "out", tmp_path / "docs"
    out.mkdir()
    docs.mkdir()
    suite = {
        "benchmark": "suite_scale",
        "items": 2,
        "collect_cpu_ms_per_scenario": 0.8,
        "collect_cpu_ms_per_scenario_net": 0.5,
        "pytest_own_collect_ms_per_item": 0.3,
        "pytest_vs_cli_cpu": 1.7,
        "pytest_vs_cli_wall": 1.6,
        "pytest_vs_cli_cpu_without_pytest_own": 1.1,
    }
    files = {
        "delegation": delegation_records,
        "suite_scale": [suite],
        "wall_clock": [
            {
                "benchmark": "wall_clock",
                "setting": "~600 modules",
                "modules_loaded": 612,
                "cpu_ms_overhead": 0.12,
                "wall_ms_overhead": 0.2,
            }
        ],
        "adapters": [
            {
                "case": "overhead",
                "framework": "pydantic-ai",
                "variant": "handoff-sim",
                "cpu_ratio": 1.25,
                "wall_ratio": 1.3,
                "cpu_ms_per_handoff": 5.5,
            }
        ],
    }
    for name, records in files.items():
        (out / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    run_script("report.py", "--out", str(out), "--docs", str(docs))
    text = (docs / "benchmarks.md").read_text()
    rows = {line.split(" | ")[0].lstrip("| "): line for line in text.splitlines()}

    def row(start: str) -> str:
        (found,) = [line for bar, line in rows.items() if bar.startswith(start)]
        return found

    assert "0.80 ms" in row("collection <= 1 ms")
    assert "**met**" in row("collection <= 1 ms")
    assert "1.70x CPU" in row("pytest --handoff-scenarios")
    assert "NOT met" in row("pytest --hand")
    assert row("pytest -n 2").endswith("| n/a |")  # measured without xdist: no verdict
    assert "+0.120 ms CPU" in row("default simulate()")
    assert "**met**" in row("default simulate")
    assert row("peak RSS growth").endswith("| n/a |")  # bench/memory.py did not run
    assert row("`import handoff_sim`").endswith("| n/a |")
    assert "1.25x CPU" in row("pydantic-ai run with handoff-sim")
    assert "NOT met" in row("pydantic-ai run with handoff-sim")
