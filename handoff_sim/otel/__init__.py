"""OpenTelemetry export of traces, with the GenAI semantic conventions (extra ``otel``).

    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from handoff_sim.otel import export_trace, write_otlp_json

    export_trace(result.trace, exporter, name="my-scenario")   # any SpanExporter
    write_otlp_json({"my-scenario": result.trace}, "trace.json")  # OTLP/JSON file

A run is an ``invoke_agent`` span, a model call a ``chat`` span, a tool call an
``execute_tool`` span; a handoff is the ``execute_tool`` span of its sub-agent tool
with one child span per attempt, the sub-agent's run inside its attempt. Span times
are the virtual times after an epoch; ids are derived from the trace. Reading OTLP
back needs no SDK: ``Trace.from_otlp``. The mapping is in docs/otel.md.
"""

from __future__ import annotations

import typing as _typing

from handoff_sim._moved import moved_names as _moved_names
from handoff_sim.adapters._errors import require_extra

require_extra(
    "opentelemetry.sdk.trace", adapter="handoff_sim.otel", extra="otel", package="opentelemetry-sdk"
)

from collections.abc import Iterable, Mapping  # noqa: E402 - after the extra is checked
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

from opentelemetry.sdk.trace.export.in_memory_span_exporter import (  # noqa: E402
    InMemorySpanExporter,
)

from handoff_sim._otlp._names import DEFAULT_EPOCH_NS  # noqa: E402
from handoff_sim.otel._json import OtlpJsonFileExporter, otlp_json, write_json  # noqa: E402
from handoff_sim.otel._sdk import Epoch, export_seeded, export_trace, trace_spans  # noqa: E402
from handoff_sim.trace import Trace  # noqa: E402

__all__ = [
    "OtlpJsonFileExporter",
    "encode_traces",
    "export_trace",
    "otlp_json",
    "trace_spans",
    "write_otlp_json",
]

Traces = Trace | Mapping[str, Trace] | Iterable[Trace]


def _named(traces: Traces) -> list[tuple[str | None, str, Trace]]:
    """(name, id seed, trace) for each trace; unnamed traces are told apart by position."""
    if isinstance(traces, Trace):
        return [(None, "", traces)]
    if isinstance(traces, Mapping):
        return [(name, name, trace) for name, trace in traces.items()]
    return [(None, f"#{index}", trace) for index, trace in enumerate(traces)]


def encode_traces(traces: Traces, *, epoch: Epoch = DEFAULT_EPOCH_NS) -> dict[str, Any]:
    """The OTLP/JSON request for ``traces``: one trace, ``{name: trace}``, or an iterable."""
    exporter = InMemorySpanExporter()
    for name, seed, trace in _named(traces):
        export_seeded(trace, exporter, name, seed, epoch, None)
    return otlp_json(exporter.get_finished_spans())


def write_otlp_json(
    traces: Traces, path: str | Path, *, epoch: Epoch = DEFAULT_EPOCH_NS
) -> dict[str, Any]:
    """Write ``traces`` to ``path`` as OTLP/JSON; returns the data written.

    ``traces`` is one trace, a mapping of names (say, scenario ids) to traces, or an
    iterable of traces. Each trace is its own OpenTelemetry trace.
    """
    data = encode_traces(traces, epoch=epoch)
    write_json(data, path)
    return data


if not _typing.TYPE_CHECKING:
    __getattr__ = _moved_names(
        __name__,
        {
            "ImportedTrace": "handoff_sim.trace",
            "read_otlp": "handoff_sim.trace",
            "OtlpError": "handoff_sim.errors",
            "OtlpFormatError": "handoff_sim.errors",
        },
    )
