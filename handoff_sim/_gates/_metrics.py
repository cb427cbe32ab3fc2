"""What the gates measure on a trace, read from its span model (``Trace.spans()``).

One pass over the handoff and tool-call spans: each handoff's latency, attempts, depth,
top-level run and branch; plain tool calls and their outcome. Nothing pairs events again.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from handoff_sim._spans import HandoffSpan, RunSpan, Spans, ToolCallSpan
from handoff_sim.trace import Trace

__all__ = ["FAILED_HANDOFF", "Call", "Handoff", "Metrics", "measure"]

FAILED_HANDOFF = frozenset({"failed", "fallback", "unavailable"})
"""Handoff statuses that count as errors: the sub-agent did not deliver."""


@dataclass(frozen=True, slots=True)
class Handoff:
    """One handoff as the gates see it (``status`` is ``open`` while it never ended)."""

    label: str
    tool: str
    caller: str
    subagent: str
    depth: int
    attempts: int
    status: str
    seconds: float | None
    root: str
    branch: tuple[str, ...]
    """The agents from the top-level run's down to the caller (the sub-agent not included)."""
    at: float

    @property
    def loop(self) -> bool:
        """Whether its sub-agent was entered again on its branch (A→B→A)."""
        return self.attempts > 0 and self.subagent in self.branch


@dataclass(frozen=True, slots=True)
class Call:
    """One tool call: who called what, when, how it ended (``open``: never ended)."""

    label: str
    agent: str
    tool: str
    status: str
    handoff: bool
    at: float


@dataclass(slots=True)
class Metrics:
    """Every handoff and tool call of a trace, in the order they started."""

    handoffs: list[Handoff] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)


def _root(run: RunSpan | None) -> RunSpan | None:
    while run is not None and run.caller is not None:
        run = run.caller
    return run


def _run_label(run: RunSpan | None, fallback: str) -> str:
    if run is not None and run.start is not None:
        return f"{run.start.agent} ({run.run_id})"
    return fallback


class _Branches:
    """The agents on each handoff's branch, found once per handoff (parents come first)."""

    def __init__(self) -> None:
        self.known: dict[int, tuple[str, ...]] = {}

    def of(self, span: HandoffSpan, caller: str) -> tuple[str, ...]:
        parent = span.parent
        if parent is None:
            branch: tuple[str, ...] = (caller,)
        else:
            above = self.known.get(id(parent)) or self.of(parent, parent.first.agent)
            branch = (*above, parent.first.subagent)
        self.known[id(span)] = branch
        return branch


def _handoff(span: HandoffSpan, spans: Spans, branches: _Branches) -> Handoff:
    first, end = span.first, span.end
    run = span.run or spans.last_run.get(span.run_id)
    status = end.status if end is not None else "open"
    seconds = end.duration_ms / 1000 if end is not None and span.start is not None else None
    return Handoff(
        label=f"{first.agent} → {first.subagent} via {first.tool} [{span.handoff_id}]",
        tool=first.tool,
        caller=first.agent,
        subagent=first.subagent,
        depth=first.depth,
        attempts=max(len(span.attempts), end.attempts if end is not None else 0),
        status=status,
        seconds=seconds,
        root=_run_label(_root(run), span.run_id),
        branch=branches.of(span, first.agent),
        at=first.t,
    )


def _call(span: ToolCallSpan) -> Call:
    first = span.start or span.end
    assert first is not None
    status = span.end.status if span.end is not None else "open"
    return Call(
        label=f"{first.agent}: {first.tool} [{span.call_id}]",
        agent=first.agent,
        tool=first.tool,
        status=status,
        handoff=span.handoff is not None,
        at=first.t,
    )


def _denied_without_call(spans: Spans) -> Iterator[HandoffSpan]:
    """Handoffs that have no tool call span of their own (their call is still a call)."""
    return (h for h in spans.handoffs if h.tool_call is None)


def measure(trace: Trace) -> Metrics:
    """The handoffs and tool calls of ``trace`` as the gates read them."""
    spans = trace.spans()
    branches = _Branches()
    metrics = Metrics()
    metrics.handoffs = [_handoff(span, spans, branches) for span in spans.handoffs]
    metrics.calls = [_call(span) for span in spans.tool_calls]
    for span in _denied_without_call(spans):
        first = span.first
        label = f"{first.agent}: {first.tool} [{first.call_id}]"
        status = "error" if span.end is not None and span.end.status != "completed" else "ok"
        metrics.calls.append(Call(label, first.agent, first.tool, status, True, first.t))
    return metrics
