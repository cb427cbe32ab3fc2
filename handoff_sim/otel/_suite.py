"""Scenario traces collected during a run and written as one OTLP/JSON file at the end.

``handoff-sim run --otel FILE`` and ``pytest --handoff-otel=FILE`` both collect with it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from handoff_sim.otel._json import otlp_json, write_json
from handoff_sim.otel._sdk import export_trace

if TYPE_CHECKING:
    from handoff_sim.scenarios import ScenarioResult
    from handoff_sim.trace import Trace

__all__ = ["OtelSuite"]


class OtelSuite:
    """Scenario traces collected during a run, written as one OTLP/JSON file at the end.

    It lives in ``handoff_sim.otel``: without the ``otel`` extra, importing it raises
    ``MissingExtraError`` before anything runs.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.items: list[tuple[str, Trace, dict[str, Any]]] = []

    def add(self, result: ScenarioResult, name: str | None = None) -> None:
        """Keep the trace of a scenario result, named ``path::id`` unless ``name`` is given."""
        scenario = result.scenario
        attributes = {
            "handoff_sim.scenario.id": scenario.id,
            "handoff_sim.scenario.path": str(scenario.path),
            "handoff_sim.scenario.passed": result.passed,
        }
        self.items.append((name or f"{scenario.path}::{scenario.id}", result.trace, attributes))

    def add_trace(self, name: str, trace: Trace, attributes: dict[str, Any]) -> None:
        """Keep a trace under ``name`` with resource ``attributes``."""
        self.items.append((name, trace, attributes))

    def summary(self) -> str:
        """``N trace(s) written to PATH``, and how many runs recorded no event (no spans)."""
        empty = sum(1 for _, trace, _ in self.items if len(trace) == 0)
        text = f"{len(self.items) - empty} trace(s) written to {self.path}"
        return text + (f" ({empty} run(s) recorded no event, so no span)" if empty else "")

    def write(self) -> int:
        """Write every trace kept so far; returns how many. Raises ``OSError`` if it cannot."""
        exporter = InMemorySpanExporter()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        for name, trace, attributes in self.items:
            export_trace(trace, exporter, name=name, resource_attributes=attributes)
        write_json(otlp_json(exporter.get_finished_spans()), self.path)
        return len(self.items)
