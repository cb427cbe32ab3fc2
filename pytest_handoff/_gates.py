"""``assert_gates``: hold a simulated run to the same gates CI holds recorded traces to."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from handoff_sim import GateReport, Gates, Trace, check_gates

__all__ = ["assert_gates"]


def _trace_of(run: object) -> Trace:
    """A trace, or the ``trace`` of a run result (``RunResult``, ``SimulatedRun``...)."""
    if isinstance(run, Trace):
        return run
    found = getattr(run, "trace", None)
    if isinstance(found, Trace):
        return found
    raise TypeError(f"assert_gates needs a Trace or a run result with .trace, not {run!r}")


def assert_gates(
    run: object,
    gates: Gates | str | Path | Mapping[str, Any] | None = None,
    /,
    **thresholds: Any,
) -> GateReport:
    """Check ``run``'s trace against ``gates`` (a :class:`~handoff_sim.Gates`, a gate file
    or a mapping of its form) and the keyword ``thresholds`` (``p95="30s"``,
    ``max_depth=3``, ``forbidden_tools={"billing": ["delete_account"]}``).

    Returns the report when every gate holds; raises
    :class:`~handoff_sim.GateFailedError` (an ``AssertionError``) listing each failed
    gate with what broke it otherwise. A bad gate is a ``GateSpecError``.
    """
    __tracebackhide__ = True
    report = check_gates(_trace_of(run), gates, **thresholds)
    report.raise_on_failure()
    return report
