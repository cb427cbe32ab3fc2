"""OTLP/JSON for SDK spans: the ``ExportTraceServiceRequest`` shape, written by hand.

``resourceSpans`` → ``scopeSpans`` → ``spans``, ids in lowercase hex, times as decimal
strings, enums as numbers, attributes as ``{"key", "value": {"stringValue": ...}}``
(the OTLP/JSON encoding of the OpenTelemetry protocol). Writing it here avoids the
protobuf and exporter packages for a few dozen lines; any OTLP/JSON reader
(``handoff-sim check``, the collector's ``otlpjsonfile`` receiver) reads it.
"""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

__all__ = ["OtlpJsonFileExporter", "otlp_json", "write_json"]


def _value(value: object) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        if math.isfinite(value):
            return {"doubleValue": value}
        return {
            "doubleValue": "NaN"
            if math.isnan(value)
            else ("Infinity" if value > 0 else "-Infinity")
        }
    if isinstance(value, str):
        return {"stringValue": value}
    if isinstance(value, bytes):
        return {"bytesValue": base64.b64encode(value).decode("ascii")}
    if isinstance(value, Mapping):
        return {"kvlistValue": {"values": _attributes(value)}}
    if isinstance(value, Sequence):
        return {"arrayValue": {"values": [_value(v) for v in value]}}
    return {"stringValue": str(value)}


def _attributes(attributes: Mapping[str, object] | None) -> list[dict[str, Any]]:
    return [{"key": key, "value": _value(value)} for key, value in (attributes or {}).items()]


def _span(span: ReadableSpan) -> dict[str, Any]:
    context = span.get_span_context()
    assert context is not None
    data: dict[str, Any] = {
        "traceId": f"{context.trace_id:032x}",
        "spanId": f"{context.span_id:016x}",
    }
    if span.parent is not None:
        data["parentSpanId"] = f"{span.parent.span_id:016x}"
    data.update(
        {
            "name": span.name,
            "kind": span.kind.value + 1,  # the SDK counts from INTERNAL=0, OTLP from UNSPECIFIED=0
            "startTimeUnixNano": str(span.start_time or 0),
            "endTimeUnixNano": str(span.end_time or 0),
            "attributes": _attributes(span.attributes),
        }
    )
    if span.events:
        data["events"] = [
            {
                "timeUnixNano": str(e.timestamp),
                "name": e.name,
                "attributes": _attributes(e.attributes),
            }
            for e in span.events
        ]
    status: dict[str, Any] = {"code": span.status.status_code.value}
    if span.status.description:
        status["message"] = span.status.description
    data["status"] = status
    return data


def otlp_json(spans: Iterable[ReadableSpan]) -> dict[str, Any]:
    """An ``ExportTraceServiceRequest`` (as JSON-ready data) holding ``spans``.

    Spans are grouped by resource, then by instrumentation scope, in the order they come.
    """
    groups: dict[str, tuple[dict[str, Any], dict[str, dict[str, Any]]]] = {}
    for span in spans:
        resource = dict(span.resource.attributes)
        key = json.dumps(_attributes(resource), sort_keys=True)
        _, scopes = groups.setdefault(key, ({"attributes": _attributes(resource)}, {}))
        scope = span.instrumentation_scope
        name, version = (scope.name, scope.version) if scope is not None else ("", None)
        scope_data = {"name": name, **({"version": version} if version else {})}
        entry = scopes.setdefault(f"{name}\0{version}", {"scope": scope_data, "spans": []})
        entry["spans"].append(_span(span))
    return {
        "resourceSpans": [
            {"resource": resource, "scopeSpans": list(scopes.values())}
            for resource, scopes in groups.values()
        ]
    }


def write_json(data: Mapping[str, Any], path: str | Path) -> None:
    """Write OTLP/JSON data to ``path`` (UTF-8, one line, ending in a newline).

    A lone surrogate (UTF-8 has none) is written as its JSON escape ``\\udXXX``: it can
    only stand inside a JSON string, where ``backslashreplace`` gives exactly that escape.
    """
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    Path(path).write_text(text + "\n", encoding="utf-8", errors="backslashreplace")


class OtlpJsonFileExporter(SpanExporter):
    """A ``SpanExporter`` that writes every span it was given to one OTLP/JSON file.

    The file is (re)written on ``force_flush()`` and ``shutdown()`` with all spans so
    far, so it always holds one complete request. Use it to record a framework's own
    instrumentation, then read the file with ``Trace.from_otlp`` or ``handoff-sim check``.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.spans: list[ReadableSpan] = []

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.spans.extend(spans)
        return SpanExportResult.SUCCESS

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        write_json(otlp_json(self.spans), self.path)
        return True

    def shutdown(self) -> None:
        self.force_flush()
