"""Check a trace against :class:`Gates`: one :class:`GateResult` per gate, in a fixed order.

Percentiles are nearest-rank (the value at rank ``ceil(p/100 * n)`` of the sorted
latencies), so every reported value is one a handoff really took.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from handoff_sim._durations import written
from handoff_sim._gates._metrics import FAILED_HANDOFF, Handoff, Metrics, measure
from handoff_sim._gates._spec import Gates, Thresholds
from handoff_sim.trace import Trace

__all__ = ["GateReport", "GateResult", "check_gates", "percentile"]

_SHOWN = 10
"""How many offenders a failure names before it counts the rest."""


@dataclass(frozen=True, slots=True)
class GateResult:
    """One gate: its name (the gate file's path to it), the limit, what the trace showed."""

    gate: str
    passed: bool
    limit: str
    observed: str
    offenders: tuple[str, ...] = ()
    """What broke the gate (a handoff, a call, a loop), at most the first ten, then a count."""
    seconds: float = 0.0
    """How long the check of this gate took (wall time)."""

    def headline(self) -> str:
        """``gate: observed, limit LIMIT``."""
        return f"{self.gate}: {self.observed}, limit {self.limit}"

    def message(self) -> str:
        """The headline and the offenders, one line."""
        if not self.offenders:
            return self.headline()
        return f"{self.headline()}: {'; '.join(self.offenders)}"


@dataclass(frozen=True, slots=True)
class GateReport:
    """Every gate's result for one trace."""

    results: tuple[GateResult, ...]
    label: str = "trace"

    @property
    def passed(self) -> bool:
        """Whether every gate held."""
        return all(r.passed for r in self.results)

    @property
    def failures(self) -> tuple[GateResult, ...]:
        """The gates that did not hold."""
        return tuple(r for r in self.results if not r.passed)

    def failure_message(self) -> str:
        """A line counting the failed gates, then each one's headline and offenders."""
        failed = self.failures
        lines = [f"{self.label}: {len(failed)} of {len(self.results)} gate(s) failed"]
        for result in failed:
            lines.append(f"  - {result.headline()}")
            lines.extend(f"      {offender}" for offender in result.offenders)
        return "\n".join(lines)

    def raise_on_failure(self) -> None:
        """Raise :class:`GateFailedError` when a gate did not hold."""
        from handoff_sim._gates._errors import GateFailedError

        __tracebackhide__ = True
        if not self.passed:
            raise GateFailedError(self)


def percentile(values: Sequence[float], p: float) -> float:
    """The nearest-rank ``p``-th percentile of sorted ``values`` (not empty)."""
    rank = max(1, math.ceil(p / 100 * len(values)))
    return values[rank - 1]


def _shown(items: Sequence[str]) -> tuple[str, ...]:
    more = len(items) - _SHOWN
    return (*items[:_SHOWN], f"and {more} more") if more > 0 else tuple(items)


def _latency(name: str, limits: Thresholds, handoffs: Sequence[Handoff]) -> Iterator[GateResult]:
    timed = sorted(
        (h for h in handoffs if h.seconds is not None and h.attempts > 0),
        key=lambda h: h.seconds or 0.0,
    )
    values = [h.seconds or 0.0 for h in timed]
    unended = sum(1 for h in handoffs if h.status == "open")
    tail = f", {unended} never ended (not measured)" if unended else ""
    for key, p in (("p50", 50.0), ("p95", 95.0), ("p99", 99.0), ("max", 100.0)):
        limit = getattr(limits, key)
        if limit is None:
            continue
        gate = f"{name}.{key}"
        if not values:
            yield GateResult(gate, True, written(limit), f"no handoff ran{tail}")
            continue
        value = percentile(values, p)
        slow = [
            f"{h.label} took {written(h.seconds or 0.0)}"
            for h in reversed(timed)
            if (h.seconds or 0.0) > limit
        ]
        passed = value <= limit
        observed = f"{written(value)} over {len(values)} handoff(s){tail}"
        yield GateResult(gate, passed, written(limit), observed, () if passed else _shown(slow))


def _latencies(gates: Gates, metrics: Metrics) -> Iterator[GateResult]:
    latency = gates.handoff_latency
    yield from _latency("handoff_latency", latency, metrics.handoffs)
    for tool, limits in latency.per_tool.items():
        chosen = [h for h in metrics.handoffs if h.tool == tool]
        yield from _latency(f"handoff_latency.per_tool.{tool}", limits, chosen)
    for agent, limits in latency.per_agent.items():
        chosen = [h for h in metrics.handoffs if h.subagent == agent]
        yield from _latency(f"handoff_latency.per_agent.{agent}", limits, chosen)


def _most(gate: str, limit: int | None, counts: dict[str, int], noun: str) -> Iterator[GateResult]:
    if limit is None:
        return
    worst = max(counts.values(), default=0)
    over = [f"{name}: {count}" for name, count in counts.items() if count > limit]
    yield GateResult(gate, worst <= limit, str(limit), f"{worst} {noun}", _shown(over))


def _counts(gates: Gates, metrics: Metrics) -> Iterator[GateResult]:
    handoffs = metrics.handoffs
    attempts = {h.label: h.attempts for h in handoffs}
    yield from _most("max_attempts", gates.max_attempts, attempts, "attempt(s)")
    per_run = Counter(h.root for h in handoffs)
    yield from _most("max_handoffs", gates.max_handoffs, dict(per_run), "handoff(s) in a run")
    depths = {h.label: h.depth for h in handoffs}
    yield from _most("max_depth", gates.max_depth, depths, "deep")
    if gates.max_loops is not None:
        loops = [h for h in handoffs if h.loop]
        shown = [f"{' → '.join((*h.branch, h.subagent))} via {h.tool} at {h.at:g}s" for h in loops]
        passed = len(loops) <= gates.max_loops
        yield GateResult(
            "max_loops", passed, str(gates.max_loops), f"{len(loops)} loop(s)", _shown(shown)
        )


def _forbidden(gates: Gates, metrics: Metrics) -> Iterator[GateResult]:
    for agent, tools in gates.forbidden_tools.items():
        banned = set(tools)
        calls = [
            c for c in metrics.calls if (agent == "*" or c.agent == agent) and c.tool in banned
        ]
        shown = [f"{c.label} at {c.at:g}s ({c.status})" for c in calls]
        limit = f"0 ({', '.join(tools)})"
        observed = f"{len(calls)} forbidden call(s)"
        yield GateResult(f"forbidden_tools.{agent}", not calls, limit, observed, _shown(shown))


def _rate(
    gate: str, limit: float | None, failed: Sequence[str], total: int, noun: str
) -> Iterator[GateResult]:
    if limit is None:
        return
    rate = len(failed) / total if total else 0.0
    observed = f"{rate:.2%} ({len(failed)} of {total} {noun})"
    yield GateResult(
        gate, rate <= limit, f"{limit:.2%}", observed, () if rate <= limit else _shown(list(failed))
    )


def _errors(gates: Gates, metrics: Metrics) -> Iterator[GateResult]:
    counted = [h for h in metrics.handoffs if h.status not in ("denied", "open")]
    failed = [f"{h.label} {h.status}" for h in counted if h.status in FAILED_HANDOFF]
    yield from _rate(
        "max_handoff_error_rate", gates.max_handoff_error_rate, failed, len(counted), "handoffs"
    )
    plain = [c for c in metrics.calls if not c.handoff and c.status != "open"]
    broke = [f"{c.label} at {c.at:g}s" for c in plain if c.status == "error"]
    yield from _rate(
        "max_tool_error_rate", gates.max_tool_error_rate, broke, len(plain), "tool calls"
    )


_CHECKS: tuple[Callable[[Gates, Metrics], Iterator[GateResult]], ...] = (
    _latencies,
    _counts,
    _forbidden,
    _errors,
)


def check_gates(
    trace: Trace,
    gates: Gates | str | Path | Mapping[str, Any] | None = None,
    /,
    **thresholds: Any,
) -> GateReport:
    """Every gate of ``gates`` (and of the keyword ``thresholds``, the gate file's keys or
    the short names ``p95``, ``forbidden``...) checked on ``trace``.

    ``gates`` is a :class:`Gates`, the path of a gate file or a mapping of its form.
    """
    from handoff_sim._gates._load import gates_from

    if isinstance(gates, Gates) and not thresholds:
        chosen = gates
    else:
        chosen = gates_from(gates, **thresholds)
    metrics = measure(trace)
    results: list[GateResult] = []
    for check in _CHECKS:
        started = time.perf_counter()
        found = list(check(chosen, metrics))
        share = (time.perf_counter() - started) / max(1, len(found))
        results.extend(
            GateResult(r.gate, r.passed, r.limit, r.observed, r.offenders, share) for r in found
        )
    label = getattr(trace, "label", None)
    return GateReport(tuple(results), label if isinstance(label, str) else "trace")
