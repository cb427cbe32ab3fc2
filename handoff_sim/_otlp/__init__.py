"""OTLP/JSON trace data read back into events, without the OpenTelemetry SDK.

``Trace.from_otlp(path_or_dict)`` and ``read_otlp`` read through here. A file written
by handoff-sim's own export reads back into the very events it was written from; spans of other
GenAI-instrumented frameworks are read through the GenAI semantic conventions
(see docs/otel.md). Spans that are neither an agent run, a model call nor a tool
call are kept as :attr:`OtlpTrace.unmapped`, never dropped.

This module needs only the events: it sits below ``handoff_sim.trace``, which makes
an ``ImportedTrace`` of each :class:`OtlpTrace` it returns.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

from handoff_sim._otlp._events import map_tree
from handoff_sim._otlp._parse import OtlpError, OtlpFormatError, RawSpan, read_source
from handoff_sim._otlp._tree import trees
from handoff_sim.events import Event

__all__ = [
    "Labelled",
    "OtlpError",
    "OtlpFormatError",
    "OtlpTrace",
    "UnmappedSpan",
    "choose_trace",
    "read_traces",
    "source_label",
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


@dataclass(frozen=True, slots=True)
class OtlpTrace:
    """The events of one trace id read from OTLP data, and what the import could not map.

    ``unmapped`` lists the spans that became no event; ``notes`` lists what the import
    had to assume (say, a parent span missing from the file).
    """

    events: tuple[Event, ...]
    trace_id: str
    name: str | None
    source: str
    unmapped: tuple[UnmappedSpan, ...]
    notes: tuple[str, ...]


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


def read_traces(source: str | Path | Mapping[str, Any]) -> list[OtlpTrace]:
    """One :class:`OtlpTrace` per trace id in ``source``, in the order they first appear.

    ``source`` is a path to an OTLP/JSON file (one request, or one per line) or the
    request as a mapping. Raises :class:`OtlpFormatError` when it is ill-formed.
    """
    with _collector_paused():
        label, spans = read_source(source)
        found = []
        for tree in trees(label, spans):
            mapped = map_tree(label, tree)
            found.append(
                OtlpTrace(
                    tuple(mapped.events),
                    trace_id=tree.trace_id,
                    name=tree.name,
                    source=label,
                    unmapped=tuple(_unmapped(span, why) for span, why in mapped.unmapped),
                    notes=tuple(tree.notes),
                )
            )
    return found


@contextmanager
def _collector_paused() -> Iterator[None]:
    """No cyclic garbage collection while a file is read: the import makes millions of
    objects and no cycles, and each collection would walk them all again (a million
    spans import in about half the time). The collector's state is put back after."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def source_label(source: object) -> str:
    """How messages name ``source``: its path, or ``<dict>`` for a request given as data."""
    return "<dict>" if isinstance(source, Mapping) else str(source)


class Labelled(Protocol):
    """A trace read back: its id, its name if it has one, and the label messages use."""

    @property
    def trace_id(self) -> str: ...

    @property
    def name(self) -> str | None: ...

    @property
    def label(self) -> str: ...


T = TypeVar("T", bound=Labelled)


def choose_trace(found: Sequence[T], source: object, trace_id: str | None) -> T | None:
    """The one trace of ``found``, or the one whose id or name is ``trace_id``.

    ``None`` when ``source`` holds no span at all; :class:`OtlpError` when the choice
    is not one trace.
    """
    label = source_label(source)
    if trace_id is not None:
        chosen = [t for t in found if trace_id in (t.trace_id, t.name)]
        if len(chosen) == 1:
            return chosen[0]
        raise OtlpError(f"{label}: no single trace with id or name {trace_id!r}{_listing(found)}")
    if len(found) == 1:
        return found[0]
    if not found:
        return None
    raise OtlpError(
        f"{label}: holds {len(found)} traces; choose one with trace_id= "
        f"(or read them all with handoff_sim.trace.read_otlp){_listing(found)}"
    )


def _listing(found: Sequence[Labelled]) -> str:
    if not found:
        return " (the file holds no span)"
    shown = ", ".join(t.label for t in found[:10])
    more = f" and {len(found) - 10} more" if len(found) > 10 else ""
    return f" (traces: {shown}{more})"
