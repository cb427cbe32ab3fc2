"""Emit a trace's planned spans through the OpenTelemetry SDK into any ``SpanExporter``.

Each trace gets its own ``TracerProvider`` with fixed ids (derived from the trace:
the same trace always gives the same ids), explicit span times (the virtual times
after ``epoch``), no sampling and no attribute limits, so every span and value is
exported whatever the environment's ``OTEL_*`` settings say.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

from opentelemetry.context import Context
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanLimits, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import IdGenerator
from opentelemetry.sdk.trace.sampling import ALWAYS_ON
from opentelemetry.trace import SpanKind, Status, StatusCode, set_span_in_context
from opentelemetry.util.types import AttributeValue

from handoff_sim._otlp._names import DEFAULT_EPOCH_NS, EPOCH, SCOPE, TRACE_NAME
from handoff_sim.otel._plan import PlannedSpan, plan_spans
from handoff_sim.trace import Trace

__all__ = ["Epoch", "export_seeded", "export_trace", "trace_spans"]

Epoch = datetime | int
"""Time zero of the virtual clock: a datetime (naive means UTC) or Unix nanoseconds."""

_UNLIMITED = SpanLimits(
    max_attributes=SpanLimits.UNSET,
    max_events=SpanLimits.UNSET,
    max_links=SpanLimits.UNSET,
    max_span_attributes=SpanLimits.UNSET,
    max_event_attributes=SpanLimits.UNSET,
    max_link_attributes=SpanLimits.UNSET,
    max_attribute_length=SpanLimits.UNSET,
    max_span_attribute_length=SpanLimits.UNSET,
)
_KINDS = {"internal": SpanKind.INTERNAL, "client": SpanKind.CLIENT}


class _FixedIds(IdGenerator):
    """Hands out the trace id of this trace and the span id set before each span starts."""

    def __init__(self, trace_id: int) -> None:
        self.trace_id = trace_id
        self.span_id = 1

    def generate_span_id(self) -> int:
        return self.span_id

    def generate_trace_id(self) -> int:
        return self.trace_id


def epoch_ns(epoch: Epoch) -> int:
    """``epoch`` in Unix nanoseconds."""
    if isinstance(epoch, datetime):
        aware = epoch if epoch.utcoffset() is not None else epoch.replace(tzinfo=UTC)
        delta = aware - datetime(1970, 1, 1, tzinfo=UTC)
        return (delta.days * 86_400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1000
    return int(epoch)


def _digest(*parts: bytes, size: int) -> int:
    value = int.from_bytes(hashlib.sha256(b"\0".join(parts)).digest()[:size], "big")
    return value or 1


def trace_id_of(trace: Trace, name: str | None) -> int:
    """The trace id: a hash of the trace's name and events, never random.

    ``surrogatepass``: a lone surrogate in an output hashes too (valid text hashes as UTF-8).
    """
    name_bytes = (name or "").encode("utf-8", "surrogatepass")
    events = trace.to_jsonl().encode("utf-8", "surrogatepass")
    return _digest(b"handoff-sim trace", name_bytes, events, size=16)


def export_trace(
    trace: Trace,
    exporter: SpanExporter,
    *,
    name: str | None = None,
    epoch: Epoch = DEFAULT_EPOCH_NS,
    resource_attributes: Mapping[str, AttributeValue] | None = None,
) -> str:
    """Send the spans of ``trace`` to ``exporter``; returns the trace id (32 hex digits).

    ``name`` (say, the scenario id) is recorded as ``handoff_sim.trace.name`` on the
    resource and goes into the trace id. Span times are ``epoch`` plus the virtual
    time of each event (default: 2026-01-01T00:00:00Z, the simulations' wall-clock
    start). The exporter is not shut down: pass many traces to one exporter.
    """
    return export_seeded(trace, exporter, name, name, epoch, resource_attributes)


def export_seeded(
    trace: Trace,
    exporter: SpanExporter,
    name: str | None,
    seed: str | None,
    epoch: Epoch,
    resource_attributes: Mapping[str, AttributeValue] | None,
) -> str:
    """:func:`export_trace` whose trace id comes from ``seed`` (unnamed traces in a list)."""
    trace_id = trace_id_of(trace, seed)
    start_ns = epoch_ns(epoch)
    attributes: dict[str, AttributeValue] = {"service.name": "handoff-sim", EPOCH: start_ns}
    if name is not None:
        attributes[TRACE_NAME] = name
    attributes.update(resource_attributes or {})
    ids = _FixedIds(trace_id)
    provider = TracerProvider(
        sampler=ALWAYS_ON,
        resource=Resource(attributes),
        shutdown_on_exit=False,
        id_generator=ids,
        span_limits=_UNLIMITED,
    )
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    _emit(provider, ids, plan_spans(list(trace)), start_ns)
    provider.force_flush()
    return f"{trace_id:032x}"


def _emit(provider: TracerProvider, ids: _FixedIds, plan: Sequence[PlannedSpan], zero: int) -> None:
    from handoff_sim._version import __version__

    tracer = provider.get_tracer(SCOPE, __version__)
    trace_bytes = ids.trace_id.to_bytes(16, "big")
    live: dict[int, Span] = {}
    position = {id(span): index for index, span in enumerate(plan)}
    steps = sorted(
        [(span.start_at, 0, index) for index, span in enumerate(plan)]
        + [(span.end_at, 1, -index) for index, span in enumerate(plan)]
    )

    def at(t: float) -> int:
        return zero + round(t * 1_000_000_000)

    for _, phase, signed in steps:
        index = abs(signed)
        span = plan[index]
        if phase == 1:
            live.pop(index).end(end_time=at(span.end))
            continue
        parent = live.get(position[id(span.parent)]) if span.parent is not None else None
        context = set_span_in_context(parent) if parent is not None else Context()
        ids.span_id = _digest(trace_bytes, span.key.encode("utf-8", "surrogatepass"), size=8)
        started = tracer.start_span(
            span.name, context=context, kind=_KINDS[span.kind], start_time=at(span.start)
        )
        assert isinstance(started, Span)
        started.set_attributes(span.attributes)
        for event in span.events:
            started.add_event(event.name, event.attributes, timestamp=at(event.t))
        if span.error is not None:
            started.set_status(Status(StatusCode.ERROR, span.error[1]))
        live[index] = started


def trace_spans(
    trace: Trace,
    *,
    name: str | None = None,
    epoch: Epoch = DEFAULT_EPOCH_NS,
    resource_attributes: Mapping[str, AttributeValue] | None = None,
) -> tuple[ReadableSpan, ...]:
    """The finished SDK spans of ``trace``, in the order they ended."""
    exporter = InMemorySpanExporter()
    export_trace(trace, exporter, name=name, epoch=epoch, resource_attributes=resource_attributes)
    return exporter.get_finished_spans()
