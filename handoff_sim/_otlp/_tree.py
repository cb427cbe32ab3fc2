"""Group spans by trace, link each to its parent, and say what each span is.

A span is a *run* (``invoke_agent``), a *chat* (a model call: ``chat``,
``generate_content``, ``text_completion``), a *tool* call (``execute_tool``), one of
our handoff *attempt* spans, or unmapped. ``gen_ai.operation.name`` decides; spans
without it are recognised by older names (pydantic-ai's ``agent run`` and
``running tool``, OpenInference's ``openinference.span.kind``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

from handoff_sim._otlp import _openinference as openinference
from handoff_sim._otlp._names import ATTEMPT, EPOCH, GEN_AI_OPERATION, TRACE_NAME
from handoff_sim._otlp._parse import OtlpFormatError, RawSpan

__all__ = ["Role", "SpanTree", "role_of", "trees"]

Role = Literal["run", "chat", "tool", "attempt"]

_OPERATIONS: dict[str, Role] = {
    "invoke_agent": "run",
    "execute_tool": "tool",
    "chat": "chat",
    "generate_content": "chat",
    "text_completion": "chat",
}
_NAMES: dict[str, Role] = {"agent run": "run", "running tool": "tool", "chat": "chat"}


def role_of(span: RawSpan) -> Role | None:
    """What ``span`` stands for, or ``None`` when nothing we record matches it."""
    attributes = span.attributes
    if ATTEMPT in attributes:
        return "attempt"
    operation = attributes.get(GEN_AI_OPERATION)
    if isinstance(operation, str):
        return _OPERATIONS.get(operation)
    if openinference.is_openinference(span):
        return openinference.role(span)
    head = span.name.split(" ", 1)[0]
    return _NAMES.get(span.name) or _OPERATIONS.get(head)


@dataclass(slots=True)
class SpanTree:
    """The spans of one trace: roots and children in start order, epoch and name."""

    trace_id: str
    spans: list[RawSpan]
    roots: list[RawSpan] = field(default_factory=list)
    children: dict[str, list[RawSpan]] = field(default_factory=dict)
    epoch_ns: int = 0
    name: str | None = None
    notes: list[str] = field(default_factory=list)

    def kids(self, span: RawSpan) -> list[RawSpan]:
        """The children of ``span``, in start order."""
        return self.children.get(span.span_id, [])


def trees(label: str, spans: list[RawSpan]) -> list[SpanTree]:
    """One tree per trace id, in the order traces first appear in the file."""
    grouped: dict[str, list[RawSpan]] = {}
    for span in spans:
        grouped.setdefault(span.trace_id, []).append(span)
    return [_tree(label, trace_id, members) for trace_id, members in grouped.items()]


def _tree(label: str, trace_id: str, spans: list[RawSpan]) -> SpanTree:
    tree = SpanTree(trace_id, spans)
    by_id: dict[str, RawSpan] = {}
    for span in spans:
        first = by_id.setdefault(span.span_id, span)
        if first is not span:
            where = f"{span.where}.spanId"
            raise OtlpFormatError(label, where, f"{span.span_id} repeats the span at {first.where}")
    order = sorted(spans, key=lambda s: (s.start_ns, s.index))
    for span in order:
        parent = by_id.get(span.parent_id) if span.parent_id else None
        if parent is None:
            tree.roots.append(span)
            if span.parent_id:
                tree.notes.append(
                    f"{span.where}: parent span {span.parent_id} is not in the file; "
                    f"span {span.name!r} is read as a root"
                )
        else:
            tree.children.setdefault(parent.span_id, []).append(span)
    _check_cycles(label, tree)
    openinference.mark_workflows(label, spans, tree.children)
    tree.epoch_ns = _epoch(spans)
    names = [s.resource.get(TRACE_NAME) for s in spans]
    tree.name = next((n for n in names if isinstance(n, str)), None)
    return tree


def _check_cycles(label: str, tree: SpanTree) -> None:
    seen = {span.span_id for span in _walk(tree)}
    for span in tree.spans:
        if span.span_id not in seen:
            raise OtlpFormatError(
                label, f"{span.where}.parentSpanId", "the parent links of this span form a cycle"
            )


def _walk(tree: SpanTree) -> Iterator[RawSpan]:
    stack = list(reversed(tree.roots))
    while stack:
        span = stack.pop()
        yield span
        stack.extend(reversed(tree.kids(span)))


def _epoch(spans: list[RawSpan]) -> int:
    """Time zero of the trace: our export's recorded epoch, else its earliest span start."""
    for span in spans:
        value = span.resource.get(EPOCH)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return min((s.start_ns for s in spans), default=0)
