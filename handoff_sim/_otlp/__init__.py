"""OTLP/JSON trace data read back into traces, without the OpenTelemetry SDK.

``Trace.from_otlp(path_or_dict)`` delegates here. A file written by handoff-sim's
own export reads back into the very events it was written from; spans of other
GenAI-instrumented frameworks are read through the GenAI semantic conventions
(see docs/otel.md). Spans that are neither an agent run, a model call nor a tool
call are kept on the trace as :attr:`ImportedTrace.unmapped`, never dropped.

This module needs only the events and the trace: it sits at the runtime's level.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from handoff_sim._otlp._events import map_tree
from handoff_sim._otlp._parse import OtlpError, OtlpFormatError, RawSpan, read_source
from handoff_sim._otlp._tree import trees
from handoff_sim.events import Event
from handoff_sim.trace import Trace

__all__ = [
    "ImportedTrace",
    "OtlpError",
    "OtlpFormatError",
    "UnmappedSpan",
    "read_otlp",
    "trace_from_otlp",
]


@dataclass(frozen=True, slots=True)
class UnmappedSpan:
    """A span that is no agent run, model call or tool call we record: kept, with why."""

    name: str
    trace_id: str
    span_id: str
    parent_span_id: str | None
    reason: str
    where: str
    start_unix_nano: int
    end_unix_nano: int
    attributes: Mapping[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return f"{self.where}: span {self.name!r} ({self.span_id}) not mapped: {self.reason}"


class ImportedTrace(Trace):
    """A :class:`Trace` read from OTLP data, with its trace id, name and what was not mapped.

    ``unmapped`` lists the spans that became no event; ``notes`` lists what the import
    had to assume (say, a parent span missing from the file).
    """

    __slots__ = ("name", "notes", "source", "trace_id", "unmapped")

    def __init__(
        self,
        events: Sequence[Event] = (),
        *,
        trace_id: str = "",
        name: str | None = None,
        source: str = "",
        unmapped: Sequence[UnmappedSpan] = (),
        notes: Sequence[str] = (),
    ) -> None:
        super().__init__(events)
        self.trace_id = trace_id
        self.name = name
        self.source = source
        self.unmapped: tuple[UnmappedSpan, ...] = tuple(unmapped)
        self.notes: tuple[str, ...] = tuple(notes)

    @property
    def label(self) -> str:
        """The trace's name when it has one, else its trace id."""
        return self.name or self.trace_id

    def __repr__(self) -> str:
        return f"ImportedTrace({self.label!r}, {len(self)} events, {len(self.unmapped)} unmapped)"


def _unmapped(span: RawSpan, reason: str) -> UnmappedSpan:
    return UnmappedSpan(
        name=span.name,
        trace_id=span.trace_id,
        span_id=span.span_id,
        parent_span_id=span.parent_id,
        reason=reason,
        where=span.where,
        start_unix_nano=span.start_ns,
        end_unix_nano=span.end_ns,
        attributes=dict(span.attributes),
    )


def read_otlp(source: str | Path | Mapping[str, Any]) -> list[ImportedTrace]:
    """One :class:`ImportedTrace` per trace id in ``source``, in the order they first appear.

    ``source`` is a path to an OTLP/JSON file (one request, or one per line) or the
    request as a mapping. Raises :class:`OtlpFormatError` when it is ill-formed.
    """
    label, spans = read_source(source)
    found = []
    for tree in trees(label, spans):
        mapped = map_tree(label, tree)
        found.append(
            ImportedTrace(
                mapped.events,
                trace_id=tree.trace_id,
                name=tree.name,
                source=label,
                unmapped=[_unmapped(span, why) for span, why in mapped.unmapped],
                notes=tree.notes,
            )
        )
    return found


def trace_from_otlp(
    source: str | Path | Mapping[str, Any], trace_id: str | None = None
) -> ImportedTrace:
    """The one trace of ``source``, or the one whose id or name is ``trace_id``."""
    found = read_otlp(source)
    label = str(source) if not isinstance(source, Mapping) else "<dict>"
    if trace_id is not None:
        chosen = [t for t in found if trace_id in (t.trace_id, t.name)]
        if len(chosen) == 1:
            return chosen[0]
        raise OtlpError(f"{label}: no single trace with id or name {trace_id!r}{_listing(found)}")
    if len(found) == 1:
        return found[0]
    if not found:
        return ImportedTrace(source=label)
    raise OtlpError(
        f"{label}: holds {len(found)} traces; choose one with trace_id= "
        f"(or read them all with handoff_sim.otel.read_otlp){_listing(found)}"
    )


def _listing(found: list[ImportedTrace]) -> str:
    if not found:
        return " (the file holds no span)"
    shown = ", ".join(t.label for t in found[:10])
    more = f" and {len(found) - 10} more" if len(found) > 10 else ""
    return f" (traces: {shown}{more})"
