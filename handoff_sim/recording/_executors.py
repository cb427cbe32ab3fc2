"""The primary executors of a recording, as ``tool_executor:`` blocks read from the trace.

An agent's own executor serves every call its own tools do not: a tool name the model
made up, or a handoff that fell back to the primary executor. The file form has one
answer for all of them (``{tool}`` and ``{arguments}`` standing for the call's tool
name and raw arguments), so an executor is written when every call it served got the
same answer after the same latency, and named in a note otherwise.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from handoff_sim import Trace
from handoff_sim.events import (
    Event,
    HandoffAttemptEndEvent,
    HandoffEndEvent,
    HandoffStartEvent,
    ToolEndEvent,
    ToolStartEvent,
)
from handoff_sim.recording._fakes import raises_from_text
from handoff_sim.recording._graph import AgentGraph, duration_text
from handoff_sim.recording._redact import Scrubber

__all__ = ["executor_blocks"]

_Key = tuple[int, str, str]
"""A call in the trace: (run environment, run id, call id)."""


@dataclass(frozen=True, slots=True)
class _Served:
    """One call an agent's primary executor answered."""

    tool: str
    arguments: str
    output: str
    failed: bool
    latency: str


def executor_blocks(
    trace: Trace, graph: AgentGraph, scrub: Scrubber, notes: list[str]
) -> dict[str, dict[str, Any]]:
    """``tool_executor:`` of each agent whose executor of its own served calls alike."""
    served = _served(trace, graph)
    out: dict[str, dict[str, Any]] = {}
    for agent in graph.executors:
        calls = served.get(agent, [])
        block = _uniform(calls, scrub, notes) if calls else None
        if block is not None:
            out[agent] = block
        elif calls:
            notes.append(
                f"agent {agent!r}: its tool executor answered {len(calls)} calls differently; "
                "a file's tool_executor gives one answer, so none is written"
            )
        else:
            notes.append(
                f"agent {agent!r} has a tool executor of its own that served no call: "
                "the file has none"
            )
    return out


def _segments(trace: Trace) -> Iterator[tuple[int, Event]]:
    """Each event with the run environment it came from (``seq`` restarts in each)."""
    segment, last = 0, 0
    for event in trace:
        segment, last = (segment + 1 if event.seq <= last else segment), event.seq
        yield segment, event


def _served(trace: Trace, graph: AgentGraph) -> dict[str, list[_Served]]:
    """The calls each agent's primary executor answered, in the order they ended."""
    starts: dict[_Key, ToolStartEvent] = {}
    handoffs: dict[_Key, float] = {}  # when the handoff's last attempt (or its start) ended
    out: dict[str, list[_Served]] = {}
    for segment, event in _segments(trace):
        if isinstance(event, ToolStartEvent | HandoffStartEvent | HandoffAttemptEndEvent):
            key = (segment, event.run_id, event.call_id)
            if isinstance(event, ToolStartEvent):
                starts[key] = event
            else:
                handoffs[key] = event.t
            continue
        if event.agent not in graph.executors:
            continue
        key = (segment, getattr(event, "run_id", ""), getattr(event, "call_id", ""))
        found = _fallback(event, starts.get(key), handoffs.get(key))
        if found is None and key not in handoffs:
            found = _direct(event, starts.get(key), graph.executors[event.agent])
        if found is not None:
            out.setdefault(event.agent, []).append(found)
    return out


def _fallback(event: Event, start: ToolStartEvent | None, since: float | None) -> _Served | None:
    """A handoff the primary executor answered (``status: fallback``)."""
    if not isinstance(event, HandoffEndEvent) or event.status != "fallback" or since is None:
        return None
    arguments = start.arguments if start is not None else ""
    latency = duration_text(event.t - since)
    return _Served(event.tool, arguments, event.output or "", False, latency)


def _direct(event: Event, start: ToolStartEvent | None, own: list[str]) -> _Served | None:
    """A call of a tool name the agent's own tools do not have."""
    if not isinstance(event, ToolEndEvent) or start is None or event.tool in own:
        return None
    if event.status not in ("ok", "error"):
        return None  # cut off: what it would have answered is unknown
    latency = duration_text(event.t - start.t)
    failed = event.status == "error"
    return _Served(event.tool, start.arguments, event.output or "", failed, latency)


def _uniform(calls: list[_Served], scrub: Scrubber, notes: list[str]) -> dict[str, Any] | None:
    """One ``tool_executor:`` answering every call as it was answered, if there is one."""
    first = calls[0]
    if any(c.latency != first.latency or c.failed != first.failed for c in calls):
        return None
    block: dict[str, Any]
    if first.failed:
        if any(c.output != first.output for c in calls):
            return None
        block = {"raises": raises_from_text(first.tool, first.output, scrub, notes)}
    else:
        template = _template(calls)
        if template is None:
            return None
        block = {"returns": scrub.text(template)}
    if first.latency != "0ms":
        block["latency"] = first.latency
    return block


def _template(calls: list[_Served]) -> str | None:
    """The one text every output is, ``{tool}`` and ``{arguments}`` filled in per call."""
    for tool, arguments in ((False, False), (True, False), (False, True), (True, True)):
        found = {_abstracted(c, tool=tool, arguments=arguments) for c in calls}
        if len(found) == 1:
            template = found.pop()
            if all(_render(template, c) == c.output for c in calls):
                return template
    return None


def _abstracted(call: _Served, *, tool: bool, arguments: bool) -> str:
    text = call.output
    if arguments and call.arguments:
        text = text.replace(call.arguments, "{arguments}")
    if tool:
        text = text.replace(call.tool, "{tool}")
    return text


def _render(template: str, call: _Served) -> str:
    """What a file's executor answers ``call`` with (as the scenario engine fills it in)."""
    return template.replace("{tool}", call.tool).replace("{arguments}", call.arguments)
