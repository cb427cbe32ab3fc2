"""The bench's bars and peer ratios, checked on records and fake workers (no timing, fast).

A peer ratio is a median of round-by-round ratios from interleaved runs; the report
states each restated bar with its CPU and instruction figures and a verdict, and says
"n/a" rather than divide figures of separate runs or guess at a missing field.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The bench/ modules, importable for this test only."""
    monkeypatch.syspath_prepend(str(BENCH))

    class Modules:
        def __getattr__(self, name: str) -> ModuleType:
            return importlib.import_module(name)

    return Modules()


class FakeWorker:
    """Answers runs from a fixed CPU cost and logs the order it was asked in."""

    def __init__(self, framework: str, cpu: float, log: list[str]) -> None:
        self.framework, self.mode, self.python = framework, "realtime", "python"
        self.cpu, self.log = cpu, log

    def ask(self, **request: Any) -> dict[str, Any]:
        self.log.append(self.framework)
        return {"wall": self.cpu * 2, "cpu": self.cpu, "events": None}

    def close(self) -> None:
        pass


def test_interleaved_rounds_ask_every_framework_once_a_round_in_rotating_order(
    bench: Any,
) -> None:
    log: list[str] = []
    workers = [FakeWorker(name, 1.0, log) for name in ("ours", "pyd", "oai")]
    samples = bench._interleave.interleave(workers, "sequential", 200, [3, 3, 3], warmup=1)
    assert log[:3] == ["ours", "pyd", "oai"]  # the warm-ups
    assert log[3:] == ["ours", "pyd", "oai", "pyd", "oai", "ours", "oai", "ours", "pyd"]
    assert [len(s.cpu) for s in samples] == [3, 3, 3]


def test_a_worker_with_fewer_repeats_sits_out_the_last_rounds(bench: Any) -> None:
    log: list[str] = []
    workers = [FakeWorker("ours", 1.0, log), FakeWorker("peer", 1.0, log)]
    samples = bench._interleave.interleave(workers, "parallel", 1000, [5, 3], warmup=0)
    assert [len(s.cpu) for s in samples] == [5, 3]
    assert log[-2:] == ["ours", "ours"]


def test_a_peer_ratio_is_the_median_of_the_rounds_ratios_not_a_ratio_of_medians(
    bench: Any,
) -> None:
    il = bench._interleave
    ours, peer = il.Sample(FakeWorker("ours", 0, [])), il.Sample(FakeWorker("peer", 0, []))
    # round by round 10x, 30x, 20x and 100x: median 25x; the medians' quotient is 150 / 10
    ours.cpu, peer.cpu = [10.0, 10.0, 10.0, 1.0], [100.0, 300.0, 200.0, 100.0]
    ours.wall, peer.wall = ours.cpu, peer.cpu
    got = il.ratios(ours, peer)
    assert got["cpu_ratio"] == 25.0  # median of 10, 30, 20, 100
    assert (got["cpu_ratio_min"], got["cpu_ratio_max"]) == (10.0, 100.0)
    assert got["rounds"] == 4


def test_a_peers_agent_construction_is_subtracted_from_its_counted_run(bench: Any) -> None:
    regions = [
        {"workload": "sequential", "n": 50, "run": 0, "region": "run", "instructions": 1_050_000},
        {"workload": "sequential", "n": 50, "run": 0, "region": "build", "instructions": 50_000},
    ]
    (rec,) = bench.instructions.per_handoff("pydantic-ai", regions, "2.62.0")
    assert rec["instructions_per_handoff"] == 20_000
    assert rec["build_instructions"] == 50_000


def _delegation(ours_us: float, peers: dict[str, float]) -> list[dict[str, Any]]:
    runs = [
        {
            "framework": name,
            "workload": "sequential",
            "n": 200,
            "mode": "realtime",
            "cpu_microseconds_per_handoff": us,
        }
        for name, us in {"handoff-sim": ours_us, **peers}.items()
    ]
    return runs


def _row(rows: list[list[str]], start: str) -> list[str]:
    (found,) = [r for r in rows if r[0].startswith(start)]
    return found


def test_peer_bars_read_na_without_an_interleaved_ratio_even_with_both_figures(
    bench: Any,
) -> None:
    d = _delegation(40.0, {"pydantic-ai": 8000.0, "openai-agents": 16000.0})
    rows = bench._report_bars.peer_bars(d, [])
    for row in rows:
        assert row[1] == "n/a"
        assert row[3] == "n/a"


def test_restated_bars_carry_cpu_and_instructions_and_their_verdicts(bench: Any) -> None:
    rb = bench._report_bars
    d = _delegation(40.0, {"pydantic-ai": 4400.0, "openai-agents": 6000.0})
    d += [
        {
            "benchmark": "peer_ratio",
            "peer": peer,
            "workload": "sequential",
            "n": 200,
            "cpu_ratio": ratio,
            "cpu_ratio_min": ratio - 5,
            "cpu_ratio_max": ratio + 5,
            "wall_ratio": ratio,
        }
        for peer, ratio in (("pydantic-ai", 110.0), ("openai-agents", 150.0))
    ]
    ins = [
        {
            "framework": "handoff-sim",
            "workload": "sequential",
            "n": 200,
            "instructions_per_handoff": 280_000,
        },
        {
            "framework": "handoff-sim",
            "workload": "sequential",
            "n": 50,
            "instructions_per_handoff": 290_000,
        },
        {
            "framework": "pydantic-ai",
            "workload": "sequential",
            "n": 50,
            "instructions_per_handoff": 23_200_000,
        },
    ]
    suite = {
        "benchmark": "suite_scale",
        "pytest_ms_per_scenario": 6.0,
        "trivial_item_ms": 2.0,
        "handoff_sim_run_ms_per_scenario": 3.0,
        "pytest_cpu_s": 6.0,
        "pytest_wall_s": 6.5,
        "pytest_n2_wall_s": 5.0,
        "pytest_n2_cpu_s": 7.0,
    }
    ss = [{**suite, "files": 1000}]  # no 10,000-file suite, no peak RSS fields
    ad = [
        {
            "case": "overhead",
            "framework": "langgraph",
            "variant": "handoff-sim",
            "cpu_ratio": 1.3,
            "wall_ratio": 1.3,
            "cpu_ms_per_handoff": 2.0,
        }
    ]
    rows = rb.restated_bars(d=d, ins=ins, flat=[], ss=ss, ad=ad)
    cost = _row(rows, "per handoff, N=200 sequential, full trace")
    assert cost[1:] == ["40.0 µs", "280.0k (1.02x)", "**met**"]
    pyd = _row(rows, "per handoff, N=200 sequential: at least 100x less CPU than pydantic-ai")
    assert pyd[1].startswith("110x, rounds 105–115x")
    assert pyd[2] == "23.2M / 290.0k = 80x (N=50)"
    assert pyd[3] == "**met**"
    oai = _row(rows, "per handoff, N=200 sequential: at least 180x less CPU than openai-agents")
    assert (oai[2], oai[3]) == ("n/a", "**NOT met**")
    per = _row(rows, "suite of 1,000 files: pytest CPU per scenario")
    assert per[1] == "6.00 / (2.00 + 3.00) ms = 1.20x"
    assert per[3] == "**NOT met**"
    assert _row(rows, "suite of 10,000 files: pytest CPU")[3] == "n/a"
    assert _row(rows, "per-scenario cost at 10,000")[3] == "n/a"
    assert _row(rows, "suite of 1,000 files: pytest peak RSS")[1:] == ["n/a", "–", "n/a"]
    xdist = _row(rows, "suite of 1,000 files: pytest -n 2")
    assert xdist[1] == "wall 5.0 / 6.5 s = 0.77x; CPU 1.17x"
    assert xdist[3] == "**met**"
    assert _row(rows, "langgraph run with handoff-sim (handoff-sim)")[3] == "**NOT met**"
    assert _row(rows, "pydantic-ai run with handoff-sim")[1:] == ["n/a", "–", "n/a"]


def test_the_suite_flatness_bar_compares_the_largest_suite_with_the_smallest(
    bench: Any,
) -> None:
    ss = [
        {
            "benchmark": "suite_scale",
            "files": 10_000,
            "pytest_ms_per_scenario": 3.2,
            "flat_ratio": 1.067,
            "flat_vs_files": 1000,
            "flat_ratio_cli": 1.01,
            "pytest_peak_rss_mb": 120.0,
            "handoff_sim_run_peak_rss_mb": 60.0,
        },
        {"benchmark": "suite_scale", "files": 1000, "pytest_ms_per_scenario": 3.0},
    ]
    rows = bench._report_bars.suite_bars(ss)
    row = _row(rows, "per-scenario cost at 10,000 files within 1.1x of 1,000")
    assert row[1] == "3.20 / 3.00 ms = 1.07x (the command: 1.01x)"
    assert row[3] == "**met**"
    rss = _row(rows, "suite of 10,000 files: pytest peak RSS")
    assert (rss[1], rss[3]) == ("120 / 60 MB = 2.00x", "**NOT met**")
