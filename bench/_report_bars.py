"""The bars of the performance issues, each stated with its figure and met / not met.

``report.py`` adds these rows to the bars table of ``docs/benchmarks.md``. Every row
comes from the JSON lines of one ``bench/run_all.sh`` run; a benchmark that did not
run gives a row that says so ("n/a"), never a verdict. Each figure is CPU time next to
wall time where the benchmark records both, and each ratio is taken within one run.

Records read (``bench/out/<name>.jsonl``):

- ``suite_scale``: ``collect_cpu_ms_per_scenario``, ``pytest_vs_cli_cpu``,
  ``n2_vs_n0_wall`` (bench/suite_scale.py);
- ``wall_clock``: ``setting``, ``cpu_ms_overhead``, ``wall_ms_overhead`` (bench/wall_clock.py);
- ``import_time`` and ``plugin_startup`` (bench/plugin_startup.py);
- ``memory``: ``n`` and ``rss_growth_kib_per_handoff`` (bench/memory.py);
- ``adapters``: ``case == "overhead"`` rows, ``cpu_ratio`` and ``wall_ratio`` (bench/adapters.py);
- delegation records (``cpu_microseconds_per_handoff``) and ``flatness`` records
  (bench/delegation.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

Record = dict[str, Any]
Row = list[str]

COLLECT_MS = 1.0
ONE_PROCESS_RATIO = 1.5
WALL_CLOCK_MS = 0.3
HANDOFF_CPU_US = 35.0
PYDANTIC_AI_FACTOR = 150.0
FLAT_RATIO = 1.2
MEMORY_KIB = 2.0
IMPORT_MS = 150.0
PLUGIN_MS = 20.0
ADAPTER_RATIO = 1.2


def verdict(ok: bool | None) -> str:
    """How a bar's cell reads."""
    return "n/a" if ok is None else ("**met**" if ok else "**NOT met**")


def _missing(bar: str, script: str) -> Row:
    return [bar, f"not measured in this run (`{script}`)", "n/a"]


def _first(records: Sequence[Record], benchmark: str) -> Record | None:
    return next((r for r in records if r.get("benchmark") == benchmark), None)


def suite_scale_bars(ss: Sequence[Record]) -> list[Row]:
    """Collection per scenario, pytest in one process against the command, xdist."""
    bars = (
        f"collection <= {COLLECT_MS:g} ms CPU per scenario",
        f"pytest --handoff-scenarios in one process <= {ONE_PROCESS_RATIO:g}x "
        "handoff-sim run (CPU)",
        "pytest -n 2 faster than -n 0 (wall)",
    )
    r = _first(ss, "suite_scale")
    if r is None:
        return [_missing(b, "bench/suite_scale.py") for b in bars]
    files = f"{r['items']:,} scenarios"
    rows = [
        [
            bars[0],
            f"{r['collect_cpu_ms_per_scenario']:.2f} ms ({files}; "
            f"{r['collect_cpu_ms_per_scenario_net']:.2f} ms without start-up; pytest's own "
            f"{r['pytest_own_collect_ms_per_item']:.2f} ms per trivial item)",
            verdict(r["collect_cpu_ms_per_scenario"] <= COLLECT_MS),
        ],
        [
            bars[1],
            f"{r['pytest_vs_cli_cpu']:.2f}x CPU, {r['pytest_vs_cli_wall']:.2f}x wall "
            f"({r['pytest_vs_cli_cpu_without_pytest_own']:.2f}x without pytest's own "
            "per-item cost)",
            verdict(r["pytest_vs_cli_cpu"] <= ONE_PROCESS_RATIO),
        ],
    ]
    if "n2_vs_n0_wall" in r:
        rows.append(
            [
                bars[2],
                f"{r['pytest_n2_wall_s']:.2f} s / {r['pytest_wall_s']:.2f} s = "
                f"{r['n2_vs_n0_wall']:.2f}x wall ({r['n2_vs_n0_cpu']:.2f}x CPU)",
                verdict(r["n2_vs_n0_wall"] < 1.0),
            ]
        )
    else:
        rows.append(_missing(bars[2], "bench/suite_scale.py without --no-xdist"))
    return rows


def wall_clock_bars(wc: Sequence[Record]) -> list[Row]:
    """Default ``simulate()`` against ``wall_clock=False``, per module setting."""
    bar = f"default simulate() <= {WALL_CLOCK_MS:g} ms more than wall_clock=False"
    rows = [
        [
            f"{bar} ({r['setting']}, {r['modules_loaded']} modules loaded)",
            f"+{r['cpu_ms_overhead']:.3f} ms CPU, +{r['wall_ms_overhead']:.3f} ms wall",
            verdict(r["cpu_ms_overhead"] <= WALL_CLOCK_MS),
        ]
        for r in wc
        if r.get("benchmark") == "wall_clock"
    ]
    return rows or [_missing(bar, "bench/wall_clock.py")]


def _cpu_us(d: Sequence[Record], framework: str, workload: str, n: int) -> float | None:
    for r in d:
        same = (r.get("framework"), r.get("workload"), r.get("n")) == (framework, workload, n)
        cpu = r.get("cpu_microseconds_per_handoff")
        if same and r.get("mode", "realtime") == "realtime" and cpu:
            return float(cpu)
    return None


def handoff_bars(d: Sequence[Record], flat: Sequence[Record]) -> list[Row]:
    """A handoff near the floor: CPU at N=200, against pydantic-ai, flat in N and K."""
    ours = _cpu_us(d, "handoff-sim", "sequential", 200)
    pyd = _cpu_us(d, "pydantic-ai", "sequential", 200)
    bar = f"<= {HANDOFF_CPU_US:g} µs CPU per handoff, N=200 sequential, full trace"
    rows = [
        [bar, f"{ours:.1f} µs", verdict(ours <= HANDOFF_CPU_US)]
        if ours is not None
        else _missing(bar, "bench/delegation.py")
    ]
    bar = f">= {PYDANTIC_AI_FACTOR:g}x less CPU per handoff than pydantic-ai, N=200"
    if ours is not None and pyd is not None:
        rows.append(
            [
                bar,
                f"pydantic-ai {pyd:.0f} µs / ours {ours:.1f} µs = {pyd / ours:.0f}x",
                verdict(pyd / ours >= PYDANTIC_AI_FACTOR),
            ]
        )
    else:
        rows.append(_missing(bar, "bench/delegation.py --peers"))
    for workload, small, large in (("sequential", 200, 4000), ("parallel", 50, 10_000)):
        n = "N" if workload == "sequential" else "K"
        bar = f"{workload} {n}={large:,} within {FLAT_RATIO:g}x of {n}={small} per handoff"
        found = [
            r
            for r in flat
            if (r.get("workload"), r.get("small_n"), r.get("large_n")) == (workload, small, large)
        ]
        rows += [
            [
                f"{bar} ({r.get('mode', 'realtime')})",
                f"{r['large_us']:.1f} / {r['small_us']:.1f} µs = {r['ratio']:.2f}x",
                verdict(r["ratio"] <= FLAT_RATIO),
            ]
            for r in found
        ] or [_missing(bar, f"bench/delegation.py --flatness with {n}={small},{large:,}")]
    return rows


def memory_bars(mem: Sequence[Record]) -> list[Row]:
    """Peak RSS growth per handoff at N=10,000 (and the smaller sizes beside it)."""
    bar = f"peak RSS growth <= {MEMORY_KIB:g} KiB per handoff at N=10,000"
    found = [r for r in mem if r.get("benchmark") == "memory" and "n" in r]
    at = {r["n"]: r for r in found}
    if 10_000 not in at or "rss_growth_kib_per_handoff" not in at[10_000]:
        return [_missing(bar, "bench/memory.py")]
    others = ", ".join(
        f"N={n:,}: {at[n]['rss_growth_kib_per_handoff']:.2f}"
        for n in sorted(at)
        if n != 10_000 and "rss_growth_kib_per_handoff" in at[n]
    )
    kib = at[10_000]["rss_growth_kib_per_handoff"]
    return [
        [bar, f"{kib:.2f} KiB" + (f" ({others})" if others else ""), verdict(kib <= MEMORY_KIB)]
    ]


def startup_bars(ps: Sequence[Record]) -> list[Row]:
    """Import time over a bare interpreter; what the plugin adds to pytest start-up."""
    rows: list[Row] = []
    imports = _first(ps, "import_time")
    for key, what in (
        ("handoff_sim_ms", "import handoff_sim"),
        ("core_names_ms", "from handoff_sim import Agent, HandoffPolicy, simulate"),
    ):
        bar = f"`{what}` <= {IMPORT_MS:g} ms wall over a bare interpreter (warm caches)"
        if imports is None or key not in imports:
            rows.append(_missing(bar, "bench/plugin_startup.py"))
        else:
            ms = imports[key]
            floor = imports.get("dependencies_ms")
            beside = (
                f" (asyncio and pydantic with one model class take {floor:.1f} ms alone)"
                if key == "core_names_ms" and floor is not None
                else ""
            )
            rows.append([bar, f"{ms:.1f} ms{beside}", verdict(ms <= IMPORT_MS)])
    startup = _first(ps, "plugin_startup")
    bar = f"the plugin adds <= {PLUGIN_MS:g} ms to pytest start-up"
    if startup is None or "added_by_plugin_ms" not in startup:
        rows.append(_missing(bar, "bench/plugin_startup.py"))
    else:
        ms = startup["added_by_plugin_ms"]
        rows.append(
            [
                bar,
                f"{ms:.1f} ms (beside it, from the dependencies: hypothesis' own pytest plugin "
                f"{startup['added_by_hypothesis_plugin_ms']:.1f} ms, syrupy's "
                f"{startup['added_by_syrupy_plugin_ms']:.1f} ms)",
                verdict(ms <= PLUGIN_MS),
            ]
        )
    return rows


def adapter_bars(ad: Sequence[Record]) -> list[Row]:
    """A framework run under capture() and virtual time against the run alone."""
    rows = [
        [
            f"{r['framework']} run with handoff-sim ({r['variant']}) within "
            f"{ADAPTER_RATIO:g}x of the framework alone, per handoff",
            f"{r['cpu_ratio']:.2f}x CPU, {r['wall_ratio']:.2f}x wall "
            f"({r['cpu_ms_per_handoff']:.2f} ms CPU per handoff)",
            verdict(r["cpu_ratio"] <= ADAPTER_RATIO),
        ]
        for r in ad
        if r.get("case") == "overhead" and r.get("variant") != "framework"
    ]
    return rows or [_missing("framework adapters within 1.2x", "bench/adapters.py")]


def issue_bars(
    *,
    d: Sequence[Record],
    flat: Sequence[Record],
    ss: Sequence[Record],
    wc: Sequence[Record],
    mem: Sequence[Record],
    ps: Sequence[Record],
    ad: Sequence[Record],
) -> list[Row]:
    """Every bar of the performance issues, in the order the issues state them."""
    return [
        *suite_scale_bars(ss),
        *wall_clock_bars(wc),
        *handoff_bars(d, flat),
        *memory_bars(mem),
        *startup_bars(ps),
        *adapter_bars(ad),
    ]
