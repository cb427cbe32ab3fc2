"""The gate options of ``handoff-sim check``: ``--gate KEY=VALUE``, ``--gates FILE`` and
``--junitxml PATH``; each trace's gate results printed as a table and written as JUnit XML."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from handoff_sim._terminal import escape_value

if TYPE_CHECKING:
    from handoff_sim._gates import GateReport, Gates
    from handoff_sim.trace import ImportedTrace

__all__ = ["GATE_KEYS", "add_gate_arguments", "check_trace_gates", "chosen_gates"]

GATE_KEYS = (
    "p50, p95, p99, max_latency (handoff latency), max_attempts, max_handoffs, "
    "max_depth, max_loops (0 unless set), forbidden=AGENT:TOOL[,TOOL], "
    "max_handoff_error_rate, max_tool_error_rate, or any dotted path of a gate file "
    "(handoff_latency.per_tool.TOOL.p95=10s)"
)


def add_gate_arguments(parser: argparse.ArgumentParser) -> None:
    """``--gate``, ``--gates`` and ``--junitxml``."""
    parser.add_argument(
        "--gate",
        dest="gate",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a threshold every trace must hold to, like p95=30s, max_depth=3, "
        f"forbidden=billing:delete_account; repeatable, over --gates. KEY: {GATE_KEYS}",
    )
    parser.add_argument(
        "--gates", metavar="FILE", help="a YAML gate file (the same keys, nested; docs/otel.md)"
    )
    parser.add_argument(
        "--junitxml",
        metavar="PATH",
        help="also write the gate results as JUnit XML, one testcase per gate and trace",
    )


def chosen_gates(args: argparse.Namespace, err: TextIO) -> tuple[Gates | None, bool]:
    """The gates the options ask for (``None``: no gate), and whether they could be read."""
    from handoff_sim._gates import GateSpecError, load_gates, parse_gate_options

    if not (args.gate or args.gates or args.junitxml):
        return None, True
    if args.junitxml is not None and not _separate(args, err):
        return None, False
    try:
        base = load_gates(args.gates) if args.gates is not None else None
        return parse_gate_options(args.gate, base), True
    except GateSpecError as exc:
        print(f"handoff-sim check: {exc}" if "\n" not in str(exc) else str(exc), file=err)
        return None, False


def _same(one: str, other: str) -> bool:
    try:
        return os.path.samefile(one, other)
    except OSError:
        return Path(one).resolve() == Path(other).resolve()


def _separate(args: argparse.Namespace, err: TextIO) -> bool:
    """``--junitxml`` may not name an input: the trace, the gate file or ``--expect``."""
    inputs = [("the trace", args.trace), ("--gates", args.gates), ("--expect", args.expect)]
    for what, path in inputs:
        if path is not None and _same(args.junitxml, path):
            print(
                f"handoff-sim check: --junitxml {escape_value(args.junitxml)} is {what} "
                f"{escape_value(path)}: refusing to overwrite an input; write it elsewhere",
                file=err,
            )
            return False
    return True


def check_trace_gates(
    traces: Sequence[ImportedTrace],
    gates: Gates,
    args: argparse.Namespace,
    out: TextIO,
    err: TextIO,
) -> bool | None:
    """Print each trace's gate table (``-q``: the failing ones) and a summary; write the
    JUnit file. Whether every trace held every gate; ``None`` when the file cannot be written."""
    from handoff_sim._gates import check_gates, render_gates, write_junit

    reports: list[GateReport] = []
    for trace in traces:
        label = f"{trace.source}::{trace.label}"
        report = _labelled(check_gates(trace, gates), label)
        reports.append(report)
        if report.passed and args.quiet:
            continue
        verdict = "PASS" if report.passed else "FAIL"
        count = f"{len(report.failures)} of {len(report.results)} gate(s) failed"
        print(f"{verdict} gates {escape_value(label)}: {count}", file=out)
        print(render_gates(report).rstrip("\n"), file=out)
    failed = sum(not r.passed for r in reports)
    print(f"== gates: {len(reports) - failed} passed, {failed} failed ==", file=out)
    if args.junitxml is not None:
        try:
            write_junit(reports, args.junitxml)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            where = escape_value(args.junitxml)
            print(f"handoff-sim check: cannot write --junitxml {where}: {reason}", file=err)
            return None
    return not failed


def _labelled(report: GateReport, label: str) -> GateReport:
    from dataclasses import replace

    return replace(report, label=label)
