"""Gate results as a table for the terminal: every value escaped, offenders under their row."""

from __future__ import annotations

from collections.abc import Sequence

from handoff_sim._gates._evaluate import GateReport
from handoff_sim._terminal import escape_value

__all__ = ["render_gates"]

_HEAD = ("gate", "limit", "observed", "result")


def render_gates(report: GateReport) -> str:
    """One row per gate (``PASS``/``FAIL``), each failure's offenders indented below it."""
    rows = [
        (
            escape_value(r.gate),
            escape_value(r.limit),
            escape_value(r.observed),
            "PASS" if r.passed else "FAIL",
        )
        for r in report.results
    ]
    if not rows:
        return "  (no gate given)\n"
    widths = [max(len(row[i]) for row in [_HEAD, *rows]) for i in range(3)]
    lines = [_line(_HEAD, widths), _line((*tuple("-" * w for w in widths), "------"), widths)]
    for row, result in zip(rows, report.results, strict=True):
        lines.append(_line(row, widths))
        lines.extend(f"      {escape_value(o)}" for o in result.offenders)
    return "\n".join(lines) + "\n"


def _line(cells: Sequence[str], widths: Sequence[int]) -> str:
    padded = [cell.ljust(width) for cell, width in zip(cells, widths, strict=False)]
    return "  " + "  ".join([*padded, *cells[len(widths) :]]).rstrip()
