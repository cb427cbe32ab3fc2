"""The performance bars, each with its figures of one run (CPU and instructions) and a verdict.

``report.py`` writes these rows as the bars table of ``docs/benchmarks.md``. Every row
comes from the JSON lines of one ``bench/run_all.sh`` run; a figure that run did not
measure reads "n/a" (a skipped benchmark, or a field the script does not write), and a
bar without its deciding figure gets no verdict. Every peer ratio is a median of
per-round ratios from interleaved runs; never a quotient of figures of separate runs.

Records read (``bench/out/<name>.jsonl``):

- ``delegation``: ``framework`` records (``cpu_microseconds_per_handoff``), ``peer_ratio``
  (``peer``, ``n``, ``cpu_ratio``, ``cpu_ratio_min``, ``cpu_ratio_max``, ``wall_ratio``),
  ``peer_pair`` and ``flatness`` records (bench/delegation.py);
- ``instructions``: ``framework``, ``workload``, ``n``, ``instructions_per_handoff``
  (bench/instructions.py);
- ``suite_scale``, one record per suite size (``files``): ``pytest_ms_per_scenario``,
  ``trivial_item_ms``, ``handoff_sim_run_ms_per_scenario`` (CPU net of start-up),
  ``flat_ratio``, ``flat_vs_files`` and ``flat_ratio_cli`` (on the largest suite),
  ``pytest_peak_rss_mb``, ``handoff_sim_run_peak_rss_mb``, ``pytest_wall_s``,
  ``pytest_n2_wall_s``, ``pytest_cpu_s``, ``pytest_n2_cpu_s`` (bench/suite_scale.py);
- ``adapters``: ``case == "overhead"`` rows, ``cpu_ratio`` and ``wall_ratio``
  (bench/adapters.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

Record = dict[str, Any]
Row = list[str]

NA = "n/a"
NOT_COUNTED = "–"  # instructions: callgrind is too slow for pytest suites and framework runs
TODAY_INSTRUCTIONS = 274_000  # per handoff, N=200, when the bars were restated
INSTRUCTION_FACTOR = 1.10
PEER_FACTORS = {"pydantic-ai": 100.0, "openai-agents": 180.0}
FLAT_RATIO = 1.2
SUITE_FACTOR = 1.15
SUITE_SCALE = 1.10
RSS_FACTOR = 1.5
XDIST_CPU = 1.25
ADAPTER_RATIO = 1.2
ADAPTER_FRAMEWORKS = ("openai-agents", "pydantic-ai", "langgraph")
SMALL_SUITE, LARGE_SUITE = 1_000, 10_000


def verdict(ok: bool | None) -> str:
    """How a bar's cell reads."""
    return NA if ok is None else ("**met**" if ok else "**NOT met**")


def instructions(ins: Sequence[Record], framework: str, workload: str, n: int) -> int | None:
    """Instructions per handoff of one counted workload, if it was counted."""
    for r in ins:
        if (r.get("framework"), r.get("workload"), r.get("n")) == (framework, workload, n):
            return int(r["instructions_per_handoff"])
    return None


def _cpu_us(d: Sequence[Record], framework: str, workload: str, n: int) -> float | None:
    for r in d:
        same = (r.get("framework"), r.get("workload"), r.get("n")) == (framework, workload, n)
        if (
            same
            and r.get("mode", "realtime") == "realtime"
            and r.get("cpu_microseconds_per_handoff")
        ):
            return float(r["cpu_microseconds_per_handoff"])
    return None


def _first(records: Sequence[Record], **match: Any) -> Record | None:
    return next((r for r in records if all(r.get(k) == v for k, v in match.items())), None)


def handoff_cost(d: Sequence[Record], ins: Sequence[Record]) -> Row:
    """N=200 sequential, full trace: instructions against today's, CPU beside."""
    limit = round(TODAY_INSTRUCTIONS * INSTRUCTION_FACTOR)
    bar = (
        f"per handoff, N=200 sequential, full trace: at most {INSTRUCTION_FACTOR:.2f}x "
        f"{TODAY_INSTRUCTIONS / 1000:.0f}k instructions (<= {limit / 1000:.1f}k)"
    )
    cpu = _cpu_us(d, "handoff-sim", "sequential", 200)
    count = instructions(ins, "handoff-sim", "sequential", 200)
    cpu_cell = f"{cpu:.1f} µs" if cpu is not None else NA
    ins_cell = (
        f"{count / 1000:.1f}k ({count / TODAY_INSTRUCTIONS:.2f}x)" if count is not None else NA
    )
    return [bar, cpu_cell, ins_cell, verdict(None if count is None else count <= limit)]


def _instruction_ratio(ins: Sequence[Record], peer: str) -> str:
    """The peer's instructions per handoff over ours at the N the peer was counted at."""
    theirs = [r for r in ins if r.get("framework") == peer and r.get("workload") == "sequential"]
    for r in sorted(theirs, key=lambda r: -int(r["n"])):
        ours = instructions(ins, "handoff-sim", "sequential", int(r["n"]))
        if ours:
            count = int(r["instructions_per_handoff"])
            return f"{count / 1e6:.1f}M / {ours / 1000:.1f}k = {count / ours:.0f}x (N={r['n']})"
    return NA


def peer_bars(d: Sequence[Record], ins: Sequence[Record]) -> list[Row]:
    """At least 100x / 180x less CPU than each peer at N=200, interleaved; instructions beside."""
    rows = []
    for peer, factor in PEER_FACTORS.items():
        bar = (
            f"per handoff, N=200 sequential: at least {factor:g}x less CPU than {peer}, "
            "interleaved in one run"
        )
        r = _first(d, benchmark="peer_ratio", peer=peer, workload="sequential", n=200)
        ins_cell = _instruction_ratio(ins, peer)
        if r is None:
            rows.append([bar, NA, ins_cell, NA])
            continue
        theirs = _cpu_us(d, peer, "sequential", 200)
        ours = _cpu_us(d, "handoff-sim", "sequential", 200)
        each = f" ({theirs:,.0f} / {ours:.1f} µs)" if theirs and ours else ""
        run = _first(d, framework=peer, workload="sequential", n=200)
        load = (
            f"; load {run['loadavg_1m_at_end']:.1f}" if run and "loadavg_1m_at_end" in run else ""
        )
        cpu_cell = (
            f"{r['cpu_ratio']:.0f}x, rounds {r['cpu_ratio_min']:.0f}–{r['cpu_ratio_max']:.0f}x"
            f"{each}; wall {r['wall_ratio']:.0f}x{load}"
        )
        rows.append([bar, cpu_cell, ins_cell, verdict(r["cpu_ratio"] >= factor)])
    return rows


def flatness_bars(flat: Sequence[Record], ins: Sequence[Record]) -> list[Row]:
    """N=4,000 within 1.2x of N=200 and K=10,000 of K=50, alternating in one process."""
    rows = []
    for workload, small, large in (("sequential", 200, 4000), ("parallel", 50, 10_000)):
        n = "N" if workload == "sequential" else "K"
        bar = f"{workload} {n}={large:,} within {FLAT_RATIO:g}x of {n}={small} per handoff"
        a = instructions(ins, "handoff-sim", workload, small)
        b = instructions(ins, "handoff-sim", workload, large)
        counted = f"{b / 1000:.1f}k / {a / 1000:.1f}k = {b / a:.2f}x" if a and b else NA
        found = [
            r
            for r in flat
            if (r.get("workload"), r.get("small_n"), r.get("large_n")) == (workload, small, large)
        ]
        for r in found:
            mode = r.get("mode", "realtime")
            rows.append(
                [
                    f"{bar} ({mode})",
                    f"{r['large_us']:.1f} / {r['small_us']:.1f} µs = {r['ratio']:.2f}x",
                    counted if mode == "realtime" else "–",
                    verdict(r["ratio"] <= FLAT_RATIO),
                ]
            )
        if not found:
            rows.append([bar, NA, counted, NA])
    return rows


def _suite(ss: Sequence[Record], files: int) -> Record | None:
    found = [r for r in ss if r.get("benchmark") == "suite_scale" and r.get("files") == files]
    return found[-1] if found else None


def _num(r: Record | None, *keys: str) -> list[float] | None:
    """The fields as floats, or None when the record or any field is missing."""
    if r is None or any(not isinstance(r.get(k), int | float) for k in keys):
        return None
    return [float(r[k]) for k in keys]


def _sizes(ss: Sequence[Record]) -> list[int]:
    """The suite sizes the bars name, and any other size this run measured."""
    measured = {int(r["files"]) for r in ss if r.get("benchmark") == "suite_scale"}
    return sorted(measured | {SMALL_SUITE, LARGE_SUITE})


def suite_bars(ss: Sequence[Record]) -> list[Row]:
    """The four suite bars, at each suite size (bench/suite_scale.py's own figures)."""
    rows: list[Row] = []
    for files in _sizes(ss):
        r = _suite(ss, files)
        bar = (
            f"suite of {files:,} files: pytest CPU per scenario at most {SUITE_FACTOR:g}x "
            "(a trivial pytest item + handoff-sim run's per-scenario cost)"
        )
        got = _num(
            r, "pytest_ms_per_scenario", "trivial_item_ms", "handoff_sim_run_ms_per_scenario"
        )
        if got is None:
            rows.append([bar, NA, NOT_COUNTED, NA])
        else:
            ratio = got[0] / (got[1] + got[2])
            cell = f"{got[0]:.2f} / ({got[1]:.2f} + {got[2]:.2f}) ms = {ratio:.2f}x"
            rows.append([bar, cell, NOT_COUNTED, verdict(ratio <= SUITE_FACTOR)])
    rows.append(_flat_suite(ss))
    for files in _sizes(ss):
        rows += _rss_and_xdist(_suite(ss, files), files)
    return rows


def _flat_suite(ss: Sequence[Record]) -> Row:
    """pytest's per-scenario cost on the largest suite against the smallest, one run."""
    r = next((r for r in ss if isinstance(r.get("flat_ratio"), int | float)), None)
    large, small = (r["files"], r["flat_vs_files"]) if r else (LARGE_SUITE, SMALL_SUITE)
    bar = (
        f"per-scenario cost at {large:,} files within {SUITE_SCALE:g}x of {small:,} "
        "(pytest, start-up out)"
    )
    if r is None:
        return [bar, NA, NOT_COUNTED, NA]
    small_ms = _num(_suite(ss, small), "pytest_ms_per_scenario")
    each = f"{r['pytest_ms_per_scenario']:.2f} / {small_ms[0]:.2f} ms = " if small_ms else ""
    cli = r.get("flat_ratio_cli")
    beside = f" (the command: {cli:.2f}x)" if isinstance(cli, int | float) else ""
    cell = f"{each}{r['flat_ratio']:.2f}x{beside}"
    return [bar, cell, NOT_COUNTED, verdict(r["flat_ratio"] <= SUITE_SCALE)]


def _rss_and_xdist(r: Record | None, files: int) -> list[Row]:
    rows: list[Row] = []
    bar = f"suite of {files:,} files: pytest peak RSS at most {RSS_FACTOR:g}x the command's"
    rss = _num(r, "pytest_peak_rss_mb", "handoff_sim_run_peak_rss_mb")
    if rss is None:
        rows.append([bar, NA, NOT_COUNTED, NA])
    else:
        ratio = rss[0] / rss[1]
        cell = f"{rss[0]:.0f} / {rss[1]:.0f} MB = {ratio:.2f}x"
        rows.append([bar, cell, NOT_COUNTED, verdict(ratio <= RSS_FACTOR)])
    bar = (
        f"suite of {files:,} files: pytest -n 2 faster than -n 0 in wall, "
        f"at most {XDIST_CPU:g}x its CPU"
    )
    x = _num(r, "pytest_n2_wall_s", "pytest_wall_s", "pytest_n2_cpu_s", "pytest_cpu_s")
    if x is None:
        rows.append([bar, NA, NOT_COUNTED, NA])
    else:
        wall, cpu = x[0] / x[1], x[2] / x[3]
        cell = f"wall {x[0]:.1f} / {x[1]:.1f} s = {wall:.2f}x; CPU {cpu:.2f}x"
        rows.append([bar, cell, NOT_COUNTED, verdict(wall < 1.0 and cpu <= XDIST_CPU)])
    return rows


def adapter_bars(ad: Sequence[Record]) -> list[Row]:
    """A framework run under capture() and virtual time against the framework alone."""
    rows: list[Row] = []
    for framework in ADAPTER_FRAMEWORKS:
        found = [
            r
            for r in ad
            if r.get("case") == "overhead"
            and r.get("variant") != "framework"
            and str(r.get("framework", "")).startswith(framework)
        ]
        rows += [
            [
                f"{r['framework']} run with handoff-sim ({r['variant']}) within "
                f"{ADAPTER_RATIO:g}x of the framework alone, per handoff",
                f"{r['cpu_ratio']:.2f}x ({r['cpu_ms_per_handoff']:.2f} ms per handoff); "
                f"wall {r['wall_ratio']:.2f}x",
                NOT_COUNTED,
                verdict(r["cpu_ratio"] <= ADAPTER_RATIO),
            ]
            for r in found
        ] or [[f"{framework} run with handoff-sim within {ADAPTER_RATIO:g}x", NA, NOT_COUNTED, NA]]
    return rows


def restated_bars(
    *,
    d: Sequence[Record],
    ins: Sequence[Record],
    flat: Sequence[Record],
    ss: Sequence[Record],
    ad: Sequence[Record],
) -> list[Row]:
    """Every restated bar, in the order they were restated."""
    return [
        handoff_cost(d, ins),
        *peer_bars(d, ins),
        *flatness_bars(flat, ins),
        *suite_bars(ss),
        *adapter_bars(ad),
    ]
