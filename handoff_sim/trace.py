"""``Trace``: the events of a run, with queries, a handoff tree and stable text forms.

The text forms show each control character of a value (ESC, ``\r``, a line break, a
bidi override, a lone surrogate) as its ``repr``-style escape: :func:`escape_value` puts
a value in a line, :func:`escape_text` makes lines safe for a terminal; reports use both.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from os import PathLike
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast, overload

from handoff_sim._spans import AttemptSpan, HandoffSpan, Spans, build_spans
from handoff_sim._text_forms import describe_handoff, render_event
from handoff_sim.events import (
    Event,
    HandoffAttemptEndEvent,
    HandoffEndEvent,
    HandoffStartEvent,
    event_from_dict,
)

if TYPE_CHECKING:
    from pathlib import Path

    from handoff_sim._otlp import OtlpTrace, UnmappedSpan

__all__ = [
    "ImportedTrace",
    "read_otlp",
]

EventT = TypeVar("EventT", bound=Event)
FieldT = TypeVar("FieldT")
OtherEventT = TypeVar("OtherEventT", bound=Event)


class _EndField(Generic[FieldT]):
    """A record attribute read from its span's ``handoff_end``."""

    __slots__ = ("name",)

    def __init__(self) -> None:
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, record: HandoffRecord, owner: type | None = None) -> FieldT:
        return cast("FieldT", getattr(record._span.end, self.name))


class HandoffRecord:
    """One handoff as its ``handoff_end`` described it, plus where it began.

    A read-only view over the handoff's span: nothing is copied out of its events.
    """

    __slots__ = ("_span",)

    handoff_id: _EndField[str] = _EndField()
    parent_handoff_id: _EndField[str | None] = _EndField()
    call_id: _EndField[str] = _EndField()
    tool: _EndField[str] = _EndField()
    subagent: _EndField[str] = _EndField()
    agent: _EndField[str] = _EndField()
    depth: _EndField[int] = _EndField()
    session_mode: _EndField[str] = _EndField()
    session_id: _EndField[str | None] = _EndField()
    status: _EndField[str] = _EndField()
    reason: _EndField[str | None] = _EndField()
    attempts: _EndField[int] = _EndField()
    duration_ms: _EndField[float] = _EndField()
    output: _EndField[str | None] = _EndField()
    error: _EndField[str | None] = _EndField()
    run_id: _EndField[str] = _EndField()

    def __init__(self, span: HandoffSpan) -> None:
        if span.start is None or span.end is None:
            raise ValueError(f"{span.handoff_id}: a record needs a started and ended handoff")
        self._span = span

    @property
    def started_at(self) -> float:
        """The virtual time of its ``handoff_start``."""
        assert self._span.start is not None
        return self._span.start.t

    @property
    def ended_at(self) -> float:
        """The virtual time of its ``handoff_end``."""
        assert self._span.end is not None
        return self._span.end.t

    @property
    def attempt_outcomes(self) -> tuple[str, ...]:
        """The outcome of each attempt that ended, in order."""
        return tuple(a.end.outcome for a in self._span.attempts if a.end is not None)

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in _RECORD_FIELDS)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HandoffRecord):
            return NotImplemented
        return other._span is self._span or self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in _RECORD_FIELDS)
        return f"HandoffRecord({shown})"

    def __reduce__(self) -> tuple[Any, ...]:
        # pickled with its own events only, not the trace's whole span graph
        span = self._span
        ends = tuple(a.end for a in span.attempts if a.end is not None)
        return (_detached_record, (span.start, span.end, ends))

    def summary(self) -> dict[str, Any]:
        """The fields a scenario's ``expect.handoffs`` compares."""
        return {
            "tool": self.tool,
            "status": self.status,
            "reason": self.reason,
            "attempts": self.attempts,
            "depth": self.depth,
        }


def _detached_record(
    start: HandoffStartEvent, end: HandoffEndEvent, attempt_ends: tuple[HandoffAttemptEndEvent, ...]
) -> HandoffRecord:
    """A record unpickled: a span of its own events, its place in the trace unknown."""
    span = HandoffSpan(end.run_id, end.handoff_id, start, -1, end)
    span.attempts = [AttemptSpan(e.attempt, None, -1, e) for e in attempt_ends]
    return HandoffRecord(span)


_RECORD_FIELDS = (
    "handoff_id",
    "parent_handoff_id",
    "call_id",
    "tool",
    "subagent",
    "agent",
    "depth",
    "session_mode",
    "session_id",
    "status",
    "reason",
    "attempts",
    "duration_ms",
    "output",
    "error",
    "run_id",
    "started_at",
    "ended_at",
    "attempt_outcomes",
)


@dataclass(slots=True)
class HandoffNode:
    """A handoff with the handoffs its sub-agent made, for the tree view."""

    record: HandoffRecord
    children: list[HandoffNode] = field(default_factory=list)


class Trace(Sequence[Event]):
    """An immutable, ordered list of events with queries over it."""

    __slots__ = ("_events", "_spans")

    def __init__(self, events: Sequence[Event] = ()) -> None:
        self._events: tuple[Event, ...] = tuple(events)
        self._spans: Spans | None = None

    @overload
    def __getitem__(self, index: int) -> Event: ...
    @overload
    def __getitem__(self, index: slice) -> Trace: ...
    def __getitem__(self, index: int | slice) -> Event | Trace:
        if isinstance(index, slice):
            return Trace(self._events[index])
        return self._events[index]

    def __len__(self) -> int:
        return len(self._events)

    def __iter__(self) -> Iterator[Event]:
        return iter(self._events)

    def __eq__(self, other: object) -> bool:
        # NotImplemented lets the other side decide: ``trace == snapshot`` reaches syrupy.
        if not isinstance(other, Trace):
            return NotImplemented
        return self._events == other._events

    def __hash__(self) -> int:
        return hash(self._events)

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without its span model, which is rebuilt when a query needs it."""
        slots = {name for cls in type(self).__mro__ for name in getattr(cls, "__slots__", ())}
        return {name: getattr(self, name) for name in slots - {"_spans"} if hasattr(self, name)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            object.__setattr__(self, name, value)
        self._spans = None

    def __repr__(self) -> str:
        return f"Trace({len(self._events)} events)"

    @property
    def events(self) -> tuple[Event, ...]:
        """The events, in ``seq`` order."""
        return self._events

    @overload
    def of_type(self, kind: type[EventT], /) -> list[EventT]: ...
    @overload
    def of_type(
        self, first: type[EventT], second: type[OtherEventT], /
    ) -> list[EventT | OtherEventT]: ...
    @overload
    def of_type(self, *types: str | type[Event]) -> list[Event]: ...
    def of_type(self, *types: str | type[EventT]) -> list[EventT]:
        """Events whose ``type`` (string or event class) is one of ``types``.

        Given event classes, the list is typed as theirs: ``of_type(HandoffEndEvent)``
        is a ``list[HandoffEndEvent]``.
        """
        names = {t if isinstance(t, str) else t.type for t in types}
        return cast("list[EventT]", [e for e in self._events if e.type in names])

    def spans(self) -> Spans:
        """The runs, handoffs, attempts and calls of the trace as spans, open ones too.

        Built once per trace, in one pass; every handoff query reads it.
        """
        if self._spans is None:
            self._spans = build_spans(self._events)
        return self._spans

    def handoffs(
        self, tool: str | None = None, *, status: str | None = None, subagent: str | None = None
    ) -> list[HandoffRecord]:
        """One record per ended handoff, in start order, optionally filtered."""
        return [
            HandoffRecord(span)
            for span in self.spans().handoffs
            if span.start is not None
            and (end := span.end) is not None
            and (tool is None or end.tool == tool)
            and (status is None or end.status == status)
            and (subagent is None or end.subagent == subagent)
        ]

    def unbalanced(self) -> list[str]:
        """Handoff ids whose start has no end, or whose end has no start or came twice."""
        spans = self.spans().handoffs
        return [
            f"{s.handoff_id}: handoff_end without handoff_start" for s in spans if s.start is None
        ] + [f"{s.handoff_id}: handoff_start without handoff_end" for s in spans if s.end is None]

    def tree(self) -> list[HandoffNode]:
        """Handoffs nested under the handoff whose sub-agent made them."""
        nodes: dict[int, HandoffNode] = {}
        roots: list[HandoffNode] = []
        for span in self.spans().handoffs:
            if span.start is None or span.end is None:
                continue
            node = nodes[id(span)] = HandoffNode(HandoffRecord(span))
            parent = nodes.get(id(span.parent)) if span.parent is not None else None
            (parent.children if parent else roots).append(node)
        return roots

    def render(self) -> str:
        """One line per event, indented by agent depth: stable across runs and machines."""
        return "\n".join(render_event(e) for e in self._events) + ("\n" if self._events else "")

    def render_tree(self) -> str:
        """The handoff tree, one handoff a line, for failure messages."""
        lines: list[str] = []

        def walk(nodes: list[HandoffNode], prefix: str) -> None:
            for index, node in enumerate(nodes):
                last = index == len(nodes) - 1
                lines.append(f"{prefix}{'└─ ' if last else '├─ '}{describe_handoff(node.record)}")
                walk(node.children, prefix + ("   " if last else "│  "))

        walk(self.tree(), "")
        return "\n".join(lines) + "\n" if lines else "(no handoffs)\n"

    def to_jsonl(self) -> str:
        """JSON lines, one event a line, keys in a fixed order."""
        return "".join(
            json.dumps(e.to_dict(), ensure_ascii=False, separators=(",", ":")) + "\n"
            for e in self._events
        )

    @classmethod
    def from_jsonl(cls, text: str) -> Trace:
        """Read back :meth:`to_jsonl` output; a line that is no event is a ValueError naming it.

        Lines end at ``"\\n"`` only: an output holding U+2028 stays one event.
        """
        from handoff_sim._safe import json_lines

        return cls([_event_line(line, n) for n, line in json_lines(text)])

    @classmethod
    def from_otlp(
        cls, source: str | PathLike[str] | Mapping[str, Any], *, trace_id: str | None = None
    ) -> ImportedTrace:
        """Read OTLP/JSON spans (a file, or the request as a dict) back into a trace.

        Our own export reads back into the same events; GenAI spans of other frameworks
        (``invoke_agent``, ``execute_tool``, ``chat``) become runs, tool calls, handoffs
        and model calls. A file holding several traces needs ``trace_id`` (an id or a
        name). Spans that map to nothing are kept in ``.unmapped``; an ill-formed file
        raises ``OtlpFormatError`` naming the field. See docs/otel.md.
        """
        from handoff_sim._otlp import choose_trace, source_label

        source = source if isinstance(source, Mapping) else str(source)
        chosen = choose_trace(read_otlp(source), source, trace_id)
        return chosen if chosen is not None else ImportedTrace(source=source_label(source))

    def to_mermaid(self) -> str:
        """A Mermaid sequence diagram of the handoffs."""
        from handoff_sim._mermaid import render_mermaid

        return render_mermaid(self._events)


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

    @classmethod
    def of(cls, read: OtlpTrace) -> ImportedTrace:
        """The trace of one trace id as the OTLP reader returned it."""
        return cls(
            read.events,
            trace_id=read.trace_id,
            name=read.name,
            source=read.source,
            unmapped=read.unmapped,
            notes=read.notes,
        )

    @property
    def label(self) -> str:
        """The trace's name when it has one, else its trace id."""
        return self.name or self.trace_id

    def __repr__(self) -> str:
        return f"ImportedTrace({self.label!r}, {len(self)} events, {len(self.unmapped)} unmapped)"


def read_otlp(source: str | Path | Mapping[str, Any]) -> list[ImportedTrace]:
    """One :class:`ImportedTrace` per trace id in ``source``, in the order they first appear.

    ``source`` is a path to an OTLP/JSON file (one request, or one per line) or the
    request as a mapping. Raises ``OtlpFormatError`` when it is ill-formed.
    """
    from handoff_sim._otlp import read_traces

    return [ImportedTrace.of(read) for read in read_traces(source)]


def _event_line(line: str, number: int) -> Event:
    from handoff_sim._safe import JsonProblem, describe_error, parse_json

    try:
        data = parse_json(line)
    except JsonProblem as exc:
        raise ValueError(f"trace line {number} {exc}") from None
    try:
        return event_from_dict(data)
    except Exception as exc:
        raise ValueError(f"trace line {number}: not an event: {describe_error(exc)}") from None
