"""The tool calls of a trace as a trajectory: who made each call, where in the delegation tree.

A call is every ``tool_start`` — a plain tool or the call a handoff runs in — with the
agent and depth that made it, the agents of its branch from the top-level run down (the
run's callers, read from ``parent_run_id``) and the delegation tools of the handoffs it
was made inside (the attempt each sub-agent run ran for, read from the trace's spans).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from handoff_sim._spans import RunSpan, ToolCallSpan
from handoff_sim._terminal import escape_value
from handoff_sim.trace import Trace

__all__ = ["Call", "calls_of", "shown_arguments"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Call:
    """One tool call of a trajectory; ``number`` counts the trace's calls from 1."""

    number: int
    tool: str
    arguments: object
    """The parsed JSON arguments (a mapping, usually), or the raw text when it is not JSON."""
    raw: str
    agent: str
    depth: int
    seq: int
    branch: tuple[str, ...]
    """The agents from the top-level run down to the one that made the call."""
    handoffs: tuple[str, ...]
    """The delegation tools of the handoffs around the call, outermost first."""
    run: int
    """Which run made the call (an identity; calls of one run share it)."""

    def describe(self) -> str:
        """``#3 sql {"q":"x"} by billing (depth 1)``: the call as a failure shows it."""
        where = f"by {escape_value(self.agent)} (depth {self.depth})"
        return f"#{self.number} {escape_value(self.tool)} {shown_arguments(self.raw)} {where}"


def shown_arguments(raw: str, limit: int = 120) -> str:
    """Arguments as compact one-line JSON, cut at ``limit`` characters, control characters
    (line breaks included) written as escapes: a failure message is built line by line."""
    try:
        text = json.dumps(json.loads(raw), separators=(",", ":"), ensure_ascii=False, default=str)
    except (ValueError, RecursionError):
        text = raw
    text = escape_value(text if len(text) <= limit else text[: limit - 1] + "…")
    return text


def _parsed(raw: str) -> object:
    try:
        return json.loads(raw) if raw.strip() else {}
    except (ValueError, RecursionError):
        return raw


def _lineage(run: RunSpan | None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The agents of ``run``'s branch (top first) and the delegation tools around it."""
    agents: list[str] = []
    tools: list[str] = []
    seen: set[int] = set()
    while run is not None and id(run) not in seen:
        seen.add(id(run))
        if run.start is not None:
            agents.append(run.start.agent)
        handoff = run.attempt.handoff if run.attempt is not None else None
        if handoff is not None and handoff.start is not None:
            tools.append(handoff.start.tool)
            run = handoff.run or run.caller
        else:
            run = run.caller
    return tuple(reversed(agents)), tuple(reversed(tools))


def _call(number: int, span: ToolCallSpan) -> Call:
    start = span.start
    assert start is not None
    branch, handoffs = _lineage(span.run)
    return Call(
        number=number,
        tool=start.tool,
        arguments=_parsed(start.arguments),
        raw=start.arguments,
        agent=start.agent,
        depth=start.depth,
        seq=start.seq,
        branch=branch or (start.agent,),
        handoffs=handoffs,
        run=id(span.run) if span.run is not None else hash(start.run_id),
    )


def calls_of(trace: Trace) -> list[Call]:
    """Every tool call of ``trace`` in the order it started."""
    spans = trace.spans().link_runs()
    started = [s for s in spans.tool_calls if s.start is not None]
    started.sort(key=lambda s: s.start_at)
    return [_call(number, span) for number, span in enumerate(started, start=1)]
