"""The fake tools of a recording: each plain tool with the answers its calls got.

From the recorder's own tool calls when tools were recorded, else from the trace (each
call's arguments, output and duration). An error is written as the exception a fake tool
can raise; a call that was cut off never answers in a replay either.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import TYPE_CHECKING, Any, get_args

from handoff_sim import Trace
from handoff_sim.events import (
    ConfirmationDecisionEvent,
    HandoffStartEvent,
    ToolEndEvent,
    ToolStartEvent,
)
from handoff_sim.recording._graph import AgentGraph, duration_text
from handoff_sim.recording._redact import Scrubber
from handoff_sim.scenarios._schema import RaisesSpec

if TYPE_CHECKING:
    from handoff_sim.recording._recorder import Recorder, ToolCallRecord

__all__ = ["RAISABLE", "fake_tools", "raises_from_text"]

RAISABLE = frozenset(get_args(RaisesSpec.model_fields["type"].annotation))
_TOOL_ERROR = re.compile(r"Error: ([A-Za-z_][A-Za-z0-9_]*)(?:: (.*))?\Z", re.DOTALL)
_NEVER = "24h"
"""The latency of a recorded call that was cut off: it does not answer in a replay either."""


def fake_tools(
    recorder: Recorder, trace: Trace, graph: AgentGraph, scrub: Scrubber, notes: list[str]
) -> dict[str, dict[str, Any]]:
    """Each plain tool of the graph as a fake: its description, parameters and answers."""
    answers: dict[str, list[dict[str, Any]]] = {name: [] for name in graph.tools}
    if recorder.tools == "recorded":
        for record in recorder.tool_calls:
            if record.name in answers:
                answers[record.name].append(_recorded_answer(record, scrub, notes))
    else:
        for start, end in _plain_tool_calls(trace, graph):
            if start.tool in answers:
                answers[start.tool].append(_traced_answer(start, end, scrub, notes))
    out: dict[str, dict[str, Any]] = {}
    for name, spec in graph.tools.items():
        fake: dict[str, Any] = {"description": scrub.text(spec.get("description", ""))}
        if "parameters" in spec:
            fake["parameters"] = spec["parameters"]
        if "risk" in spec:
            fake["risk"] = spec["risk"]
        fake["answers"] = answers[name]
        out[name] = fake
    return out


def _plain_tool_calls(
    trace: Trace, graph: AgentGraph
) -> list[tuple[ToolStartEvent, ToolEndEvent | None]]:
    """Every call a plain tool ran for, with its end, in start order: handoffs, calls the
    confirmation policy refused and calls of a tool the calling agent lacks left out."""
    handoffs = {(e.run_id, e.call_id) for e in trace.of_type(HandoffStartEvent)}
    starts: dict[tuple[int, str, str], ToolStartEvent] = {}
    ends: dict[tuple[int, str, str], ToolEndEvent] = {}
    refused: set[tuple[int, str, str]] = set()
    segment, last = 0, 0
    for event in trace:
        segment, last = (segment + 1 if event.seq <= last else segment), event.seq
        if isinstance(event, ConfirmationDecisionEvent) and event.decision != "approved":
            refused.add((segment, event.run_id, event.call_id))
        if isinstance(event, ToolStartEvent | ToolEndEvent):
            if (event.run_id, event.call_id) in handoffs or event.tool in graph.subagent_tools:
                continue
            key = (segment, event.run_id, event.call_id)
            if isinstance(event, ToolStartEvent):
                starts[key] = event
            else:
                ends[key] = event
    return [
        (start, ends.get(key))
        for key, start in starts.items()
        if key not in refused and _has_tool(graph, start.agent, start.tool)
    ]


def _has_tool(graph: AgentGraph, agent: str, tool: str) -> bool:
    """Whether ``agent`` has the plain tool ``tool`` (True when the graph does not say)."""
    offered = graph.offered(agent)
    return offered is None or tool in offered


def _arguments(raw: str, scrub: Scrubber) -> dict[str, Any] | str:
    text = scrub.text(raw)
    try:
        value = json.loads(text) if text.strip() else {}
    except (ValueError, RecursionError):
        return text
    return value if isinstance(value, dict) else text


def _traced_answer(
    start: ToolStartEvent, end: ToolEndEvent | None, scrub: Scrubber, notes: list[str]
) -> dict[str, Any]:
    answer: dict[str, Any] = {"arguments": _arguments(start.arguments, scrub)}
    if end is None or end.status == "cancelled":
        answer["returns"] = ""
        answer["latency"] = _NEVER
        return answer
    output = end.output or ""
    if end.status == "error":
        answer["raises"] = raises_from_text(start.tool, output, scrub, notes)
    else:
        answer["returns"] = scrub.text(output)
    answer["latency"] = duration_text(end.t - start.t)
    return answer


def raises_from_text(tool: str, output: str, scrub: Scrubber, notes: list[str]) -> dict[str, Any]:
    """A tool's error result (``Error: Type: message``) as the exception a fake raises."""
    found = _TOOL_ERROR.match(output)
    if found and found.group(1) in RAISABLE:
        return {"type": found.group(1), "message": scrub.text(found.group(2) or "")}
    notes.append(f"tool {tool!r}: an error the file cannot name is written as a RuntimeError")
    text = output[len("Error: ") :] if output.startswith("Error: ") else output
    return {"type": "RuntimeError", "message": scrub.text(text)}


def _recorded_answer(record: ToolCallRecord, scrub: Scrubber, notes: list[str]) -> dict[str, Any]:
    answer: dict[str, Any] = {"arguments": _arguments(record.arguments, scrub)}
    error = record.error
    if isinstance(error, asyncio.CancelledError):
        answer["returns"] = ""
        answer["latency"] = _NEVER
        return answer
    if error is not None:
        kind = type(error).__name__
        if kind not in RAISABLE:
            notes.append(f"tool {record.name!r}: {kind} is written as a RuntimeError")
            kind = "RuntimeError"
        answer["raises"] = {"type": kind, "message": scrub.text(str(error))}
    else:
        answer["returns"] = scrub.text(record.result or "")
    answer["latency"] = duration_text(record.end - record.start)
    return answer
