#!/usr/bin/env python3
"""Render docs/benchmarks.md and docs/benchmarks.svg from the JSON lines in bench/out/.

It reads what ``bench/run_all.sh`` wrote (delegation, instructions, virtual_time,
plugin_startup, fuzz_throughput, scenario_suite, suite_scale, adapters), checks the
performance bars on the figures of that one run (the restated bars come from
``_report_bars.py``; a figure that did not run is "n/a", never a verdict), and writes
the tables, the exact commands, the machine, how long the run took and the plot.

    python bench/report.py [--out bench/out] [--docs docs]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import REPO_ROOT, Record, load_jsonl, machine
from _peers import PEERS
from _report_bars import NA, instructions, restated_bars, verdict
from delegation import MODES, plot, summary_rows

PLUGIN_MODULE = "pytest_handoff.plugin"
PEER_KINDS = ("peer_ratio", "peer_pair")


def _fmt(value: Any, digits: int = 0) -> str:
    if value is None or (isinstance(value, float) and value != value):
        return "–"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    return str(value)


def _table(head: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += [
        "| " + " | ".join(_fmt(c) if not isinstance(c, str) else c for c in r) + " |" for r in rows
    ]
    return out


def standing_bars(
    d: Sequence[Record], flat: Sequence[Record], ins: Sequence[Record]
) -> list[list[str]]:
    """The product's standing delegation bars: flat from N=25 to N=400; K=1,000 in one turn
    against openai-agents at K=50 (interleaved)."""
    rows: list[list[str]] = []
    for r in flat:
        if (r["workload"], r["small_n"], r["large_n"]) == ("sequential", 25, 400):
            rows.append(
                [
                    f"per-handoff cost flat in N: N=400 within 1.25x of N=25 ({r['mode']})",
                    f"{r['large_us']:.1f} / {r['small_us']:.1f} µs = {r['ratio']:.2f}x",
                    "–",
                    verdict(r["ratio"] <= 1.25),
                ]
            )
    bar = "K=1,000 handoffs in one turn: at least 10x less per handoff than openai-agents at K=50"
    pair = next((r for r in d if r.get("benchmark") == "peer_pair"), None)
    ours = instructions(ins, "handoff-sim", "parallel", 1000)
    theirs = instructions(ins, "openai-agents", "parallel", 50)
    counted = (
        f"{theirs / 1e6:.1f}M / {ours / 1000:.1f}k = {theirs / ours:.0f}x"
        if ours and theirs
        else NA
    )
    if pair is None:
        rows.append([bar, NA, counted, NA])
    else:
        rows.append(
            [
                bar,
                f"{pair['peer_cpu_us']:,.0f} / {pair['ours_cpu_us']:.1f} µs = "
                f"{pair['cpu_ratio']:.0f}x (rounds {pair['cpu_ratio_min']:.0f}–"
                f"{pair['cpu_ratio_max']:.0f}x)",
                counted,
                verdict(pair["cpu_ratio"] >= 10),
            ]
        )
    return rows


def other_bars(vt: Sequence[Record], ps: Sequence[Record]) -> list[list[str]]:
    """The virtual-time and plugin start-up bars."""
    rows: list[list[str]] = []
    for r in vt:
        if r.get("scenario") in ("timeout-30s-x3", "scenario-file-30s-x3"):
            if r["scenario"] == "scenario-file-30s-x3":
                clock = "scenario file through run_scenario"
            elif r["wall_clock"]:
                clock = "simulate() with its wall clock (default)"
            else:
                clock = "simulate(wall_clock=False)"
            rows.append(
                [
                    f"30 s timeout × 3 attempts under 5 ms wall ({clock})",
                    f"{r['wall_ms_median']:.2f} ms wall, median "
                    f"(first run {r['wall_ms_first_run']:.1f} ms)",
                    "–",
                    verdict(r["wall_ms_median"] < 5),
                ]
            )
    for r in ps:
        if r.get("benchmark") == "plugin_startup" and "added_ms" in r:
            rows.append(
                [
                    "installing the plugin adds < 100 ms to pytest start-up",
                    f"{r['added_ms']:.1f} ms wall (plugin alone {r['added_by_plugin_ms']:.1f} ms)",
                    "–",
                    verdict(r["added_ms"] < 100),
                ]
            )
        elif r.get("status") == "skipped":
            rows.append(["plugin adds < 100 ms to pytest start-up", r["reason"], NA, NA])
    for r in ps:
        if r.get("benchmark") == "fuzz_throughput":
            rows += _fuzz_rows(r)
    return rows


def _fuzz_rows(r: Record) -> list[list[str]]:
    """The fuzzing bars: generated cases of ``handoff-sim fuzz``, runs of fixed trees."""
    rows: list[list[str]] = []
    generated = r.get("generated")
    if generated:
        rows.append(
            [
                "handoff-sim fuzz: >= 300 generated cases per second on one core "
                "(default tree shape, CPU time)",
                f"{generated['cases_per_second_cpu']:.0f} cases/s CPU "
                f"({generated['cases_per_second_wall']:.0f} wall)",
                "–",
                verdict(generated["meets_target"]),
            ]
        )
    if r.get("shapes"):
        pair = r["shapes"]["pair"]
        rows.append(
            [
                "fuzzing: >= 500 adversarial runs per second on one core, no violation",
                f"{r['runs_per_second']:.0f} runs/s, {pair['violations']} violations "
                f"({r['shapes']['tree']['runs_per_second']:.0f} runs/s for a 3-level tree)",
                "–",
                verdict(r["meets_target"] and pair["violations"] == 0),
            ]
        )
    return rows


def delegation_section(d: Sequence[Record]) -> list[str]:
    """The side-by-side table and every measurement."""
    head = [
        "workload",
        "N/K",
        *[f"ours {m} µs" for m in MODES],
        *[f"{p} µs" for p in PEERS],
        *[f"{p} / ours (realtime)" for p in PEERS],
    ]
    rows = [
        [
            r["workload"],
            str(r["n"]),
            *[r[m] for m in MODES],
            *[r[p] for p in PEERS],
            *[
                f"{r[f'{p} / ours']:.1f}x" if r[f"{p} / ours"] == r[f"{p} / ours"] else "–"
                for p in PEERS
            ],
        ]
        for r in summary_rows(d)
    ]
    out = [
        "### CPU µs per handoff, side by side (medians of interleaved runs)",
        "",
        *_table(head, rows),
        "",
    ]
    head2 = [
        "framework",
        "mode",
        "workload",
        "N/K",
        "median total s",
        "µs / handoff",
        "CPU µs / handoff",
        "first run s",
        "peak RSS MB",
        "tracemalloc peak MB",
        "events / run",
    ]
    rows2 = [
        [
            r["framework"],
            r.get("mode", "realtime"),
            r["workload"],
            str(r["n"]),
            f"{r['total_seconds']:.4f}",
            r["microseconds_per_handoff"],
            r.get("cpu_microseconds_per_handoff"),
            f"{r.get('first_run_seconds') or 0:.4f}",
            f"{r['peak_rss_mb']:.1f}",
            r.get("tracemalloc_peak_mb") and f"{r['tracemalloc_peak_mb']:.2f}",
            r.get("events_per_run"),
        ]
        for r in d
        if "framework" in r
    ]
    out += [
        "### Every measurement",
        "",
        *_table(head2, [[c if c is not None else "–" for c in row] for row in rows2]),
        "",
    ]
    return out


def other_sections(vt: Sequence[Record], ps: Sequence[Record], ss: Sequence[Record]) -> list[str]:
    """Virtual time, plugin start-up and scenario-suite tables."""
    out = ["## Virtual-time cost", ""]
    out += _table(
        [
            "scenario",
            "virtual wall clock",
            "virtual s",
            "wall ms (median)",
            "wall ms (min)",
            "first run ms",
            "events",
        ],
        [
            [
                r["scenario"],
                str(r["wall_clock"]),
                _fmt(r["virtual_seconds"]),
                f"{r['wall_ms_median']:.3f}",
                f"{r['wall_ms_min']:.3f}",
                f"{r['wall_ms_first_run']:.1f}",
                str(r["events"]),
            ]
            for r in vt
        ],
    )
    out += ["", "## Plugin start-up", ""]
    for r in ps:
        if r.get("status") == "skipped":
            out.append(f"Not measured: {r['reason']}.")
        elif r["benchmark"] == "plugin_startup":
            out += _table(
                ["`pytest --collect-only -q`, empty project", "ms (median)"],
                [
                    [
                        "installed (plugin and hypothesis entry point load)",
                        f"{r['installed_ms']:.1f}",
                    ],
                    ["`-p no:handoff`", f"{r['no_handoff_ms']:.1f}"],
                    [
                        "`-p no:handoff`, `HYPOTHESIS_NO_PLUGINS=1` (as if not installed)",
                        f"{r['not_installed_ms']:.1f}",
                    ],
                    [
                        f"**added by installing** (median of {r['runs']} paired differences)",
                        f"**{r['added_ms']:.1f}**",
                    ],
                    ["of which the pytest plugin", f"{r['added_by_plugin_ms']:.1f}"],
                    [
                        "of which the hypothesis entry point",
                        f"{r['added_by_hypothesis_hook_ms']:.1f}",
                    ],
                ],
            )
        elif r["benchmark"] == "plugin_importtime":
            out += [
                "",
                f"`{r['measure']}`: an installed handoff-sim adds {r['added_modules']} modules "
                f"to a pytest start-up, **{r['added_import_self_ms']:.1f} ms** of import time "
                f"(self times, by package: `{json.dumps(r['added_by_package_ms'])}`). "
                f"`import {PLUGIN_MODULE}` on its own, after pytest: "
                f"{r['plugin_import_after_pytest_ms']:.1f} ms.",
            ]
    out += ["", "## Scenario suite throughput", ""]
    if any(r.get("status") == "skipped" for r in ss) or not ss:
        miss: list[str] = next(
            (list(r.get("missing") or []) for r in ss if r.get("status") == "skipped"), []
        )
        why = f"not importable yet: {', '.join(miss)}" if miss else "not run"
        out.append(f"Not measured: {why}.")
    else:
        out += _table(
            [
                "suite",
                "workers",
                "items",
                "outcomes",
                "wall s",
                "items / s",
                "items / s in session",
            ],
            [
                [
                    r["suite"],
                    str(r["workers"]),
                    str(r["items"]),
                    ", ".join(f"{v} {k}" for k, v in r["outcomes"].items()),
                    f"{r['wall_seconds']:.2f}",
                    _fmt(r["items_per_second"]),
                    _fmt(r["items_per_second_in_session"]),
                ]
                for r in ss
            ],
        )
    return [*out, ""]


def ratio_section(everything: Sequence[Record], ins: Sequence[Record]) -> list[str]:
    """Every peer ratio of the run (interleaved, round by round) and every instruction count."""
    rows = [
        [
            r["peer"],
            r["workload"],
            str(r["n"]),
            f"{r['cpu_ratio']:.0f}x",
            f"{r['cpu_ratio_min']:.0f}–{r['cpu_ratio_max']:.0f}x",
            f"{r['wall_ratio']:.0f}x",
            str(r["rounds"]),
        ]
        for r in everything
        if r.get("benchmark") == "peer_ratio"
    ]
    out = ["### Peer ratios, interleaved (peer CPU over ours, median of the rounds)", ""]
    if rows:
        head = ["peer", "workload", "N/K", "CPU ratio", "rounds' range", "wall ratio", "rounds"]
        out += _table(head, rows)
    else:
        out.append("Not measured in this run (the peers did not run).")
    out += ["", "### Instructions per handoff (callgrind)", ""]
    counted = [
        [
            r["framework"],
            r["workload"],
            str(r["n"]),
            str(r["runs"]),
            f"{r['instructions_per_handoff']:,}",
        ]
        for r in ins
        if "instructions_per_handoff" in r
    ]
    if counted:
        out += _table(["framework", "workload", "N/K", "counted runs", "instructions"], counted)
    else:
        out.append("Not counted in this run (valgrind skipped or missing).")
    return [*out, ""]


def _duration(out: Path) -> str:
    """How long run_all.sh took, step by step (bench/out/durations.json)."""
    path = out / "durations.json"
    if not path.exists():
        return "not recorded (the benchmarks were run one at a time)"
    steps: dict[str, float | None] = json.loads(path.read_text())
    total = steps.pop("total", None) or sum(s for s in steps.values() if s is not None)
    each = ", ".join(
        f"{name} {'skipped' if s is None else f'{s / 60:.1f} min'}" for name, s in steps.items()
    )
    return f"{total / 60:.1f} min ({each})"


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--out", type=Path, default=REPO_ROOT / "bench" / "out")
    ap.add_argument("--docs", type=Path, default=REPO_ROOT / "docs")
    args = ap.parse_args(argv)
    everything = load_jsonl(args.out / "delegation.jsonl")
    d = [r for r in everything if "framework" in r or r.get("benchmark") in PEER_KINDS]
    flat = [r for r in everything if r.get("benchmark") == "flatness"]
    ins = load_jsonl(args.out / "instructions.jsonl")
    vt = load_jsonl(args.out / "virtual_time.jsonl")
    ps = load_jsonl(args.out / "plugin_startup.jsonl")
    fz = load_jsonl(args.out / "fuzz_throughput.jsonl")
    ss = load_jsonl(args.out / "scenario_suite.jsonl")
    restated = restated_bars(
        d=d,
        ins=ins,
        flat=flat,
        ss=load_jsonl(args.out / "suite_scale.jsonl"),
        ad=load_jsonl(args.out / "adapters.jsonl"),
    )
    standing = standing_bars(d, flat, ins) + other_bars(vt, ps + fz)
    env = (
        json.loads((args.out / "machine.json").read_text())
        if (args.out / "machine.json").exists()
        else machine()
    )
    runs = [r for r in d if "framework" in r]
    template = (Path(__file__).parent / "benchmarks_template.md").read_text()
    plot(runs, args.docs / "benchmarks.svg")
    head = ["bar", "CPU (this run)", "instructions (callgrind)", "verdict"]
    text = template.format(
        machine=f"{env['nproc']} CPUs ({env['cpu']}), {env['system']}, CPython {env['python']}; "
        f"1-minute load average at the start: {env['loadavg_1m']:.2f}",
        date=env.get("date", "unknown"),
        duration=_duration(args.out),
        peers=env.get("peers", "openai-agents 0.24.0, pydantic-ai 2.62.0"),
        bars="\n".join(_table(head, restated)),
        standing="\n".join(_table(head, standing)),
        ratios="\n".join(ratio_section(everything, ins)),
        delegation="\n".join(delegation_section(runs)),
        others="\n".join(other_sections(vt, ps, ss)),
    )
    (args.docs / "benchmarks.md").write_text(text)
    print(
        f"wrote {args.docs / 'benchmarks.md'} and {args.docs / 'benchmarks.svg'}", file=sys.stderr
    )


if __name__ == "__main__":
    main()
