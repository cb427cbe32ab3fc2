"""Turn an OTLP JSON export into a recording: a scenario file whose models replay the spans.

    from handoff_sim.recording import recording_from_otlp
    converted = recording_from_otlp("trace.json", "recordings/triage.yaml")
    converted.notes        # what the spans could not say (also in recorded.notes)

The spans are read into what a live recording collects (a :class:`Recorder` of model and
tool calls, an :class:`AgentGraph`, the trace as ``Trace.from_otlp`` reads it), and the
recorder's own writer writes the file. Model-call span durations become step latencies;
agent runs inside a tool call sub-agent mounts; other tool calls fake tools with their
recorded answers. Request fingerprints are not in any span, so a converted recording
replays by order (``match: order``); that and anything else the spans do not carry is
listed in ``recorded.notes``, never guessed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from handoff_sim._errors._families import ConfigurationError
from handoff_sim._otlp import choose_trace
from handoff_sim._otlp._events import map_tree
from handoff_sim._otlp._parse import read_source
from handoff_sim._otlp._tree import SpanTree, trees
from handoff_sim.errors import OtlpError
from handoff_sim.events import RunEndEvent
from handoff_sim.messages import Message, ModelRequest, ModelResponse, ToolCall, ToolSpec, Usage
from handoff_sim.recording._graph import AgentGraph
from handoff_sim.recording._recorder import Recorder
from handoff_sim.recording._redact import Redaction
from handoff_sim.recording._span_walk import AgentSeen, StepSeen, Walked, walk
from handoff_sim.recording._writer import recording_document, write_text
from handoff_sim.recording._yaml_out import render
from handoff_sim.scenarios import ScenarioFileError, load_text
from handoff_sim.testing import SimulatedModelError
from handoff_sim.trace import Trace

__all__ = ["ConvertedRecording", "recording_from_otlp", "recording_from_otlp_data"]

_HEADER = (
    "# Converted by handoff-sim from OpenTelemetry spans; an ordinary scenario file.\n"
    "# Replay it: handoff-sim run <this file>. What the spans could not say is listed\n"
    "# under recorded.notes.\n"
)
_STYLES = (
    "sub-agent mounts are written as plain sub-agents: a mount's style (Flink, a SoPhi "
    "dispatcher) is not in the spans"
)
_FINGERPRINTS = (
    "request fingerprints: spans do not carry the messages in the form a replay compares, "
    "so this recording replays by order (match: order)"
)


@dataclass(frozen=True)
class ConvertedRecording:
    """The recording made from a trace: its scenario data, the text written, the notes."""

    data: dict[str, Any]
    text: str
    notes: tuple[str, ...]


def recording_from_otlp(
    source: str | Path,
    output: str | Path,
    *,
    trace_id: str | None = None,
    scenario: str | None = None,
    redaction: Redaction | None = None,
) -> ConvertedRecording:
    """Convert the OTLP JSON file ``source`` into the recording ``output`` (written atomically).

    Refuses (``ConfigurationError``) an ``output`` that is ``source`` itself; raises
    ``OtlpFormatError`` naming the span for what cannot become a recording.
    """
    if _same(source, output):
        raise ConfigurationError(
            f"the recording {output} would overwrite its own input {source}: "
            "write it to another file"
        )
    converted = recording_from_otlp_data(
        source, trace_id=trace_id, scenario=scenario, redaction=redaction
    )
    write_text(output, converted.text, source=source)
    return converted


def recording_from_otlp_data(
    source: str | Path | Mapping[str, Any],
    *,
    trace_id: str | None = None,
    scenario: str | None = None,
    redaction: Redaction | None = None,
) -> ConvertedRecording:
    """The recording of one trace of ``source`` (a file or the request as a mapping), unwritten."""
    label, spans = read_source(source)
    found = [_Labelled(tree, label) for tree in trees(label, spans)]
    chosen = choose_trace(found, source, trace_id)
    if chosen is None:
        raise OtlpError(f"{label}: holds no span: nothing to convert")
    walked = walk(label, chosen.tree)
    if walked.root is None:
        raise OtlpError(f"{label}: no agent run span (invoke_agent) in trace {chosen.trace_id}")
    trace = Trace(map_tree(label, chosen.tree).events)  # as Trace.from_otlp reads it
    document = recording_document(
        _recorder(walked, chosen.tree.epoch_ns),
        trace,
        scenario=scenario or _scenario_name(chosen.name, walked.root),
        inputs=walked.inputs,
        agents=_graph(walked),
        redact=redaction,
        description="converted from OpenTelemetry spans",
    )
    _as_conversion(document, walked)
    _lift(document, trace, walked, redaction or Redaction())
    text = render(document, _HEADER)
    try:  # a conversion never writes a file that does not load
        load_text(text, path=f"<recording of {label}>")
    except ScenarioFileError as exc:
        raise OtlpError(f"{label}: the trace cannot be written as a scenario file: {exc}") from None
    return ConvertedRecording(document, text, tuple(document["recorded"]["notes"]))


@dataclass(frozen=True)
class _Labelled:
    tree: SpanTree
    label: str

    @property
    def trace_id(self) -> str:
        return self.tree.trace_id

    @property
    def name(self) -> str | None:
        return self.tree.name


def _same(source: str | Path, output: str | Path) -> bool:
    a, b = Path(source), Path(output)
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and a.samefile(b))
    except OSError:
        return False


def _scenario_name(name: str | None, root: str) -> str:
    """The trace's name (a scenario id after ``::`` in our export), as a scenario name."""
    base = (name or "").rpartition("::")[2] or f"recorded-{root}"
    cleaned = "".join(c if c.isascii() and (c.isalnum() or c in "_.-") else "-" for c in base)
    return cleaned.strip("-") or "recorded"


# -- what a live recording would have collected -----------------------------------------------


def _recorder(walked: Walked, epoch_ns: int) -> Recorder:
    recorder = Recorder(runtime=walked.runtime or "handoff-sim", tools="recorded")
    for agent, seen in walked.agents.items():
        offered = tuple(ToolSpec(name, "", {}) for name in seen.offered)
        request = ModelRequest(
            agent=agent,
            model=seen.model or "",
            messages=[Message(role="user", content="")],
            tools=offered,
        )
        for step in seen.steps:
            start = (step.start_ns - epoch_ns) / 1e9
            response, error = _answer(step)
            recorder.model_call(
                agent,
                request,
                response,
                error,
                start,
                start + step.seconds,
                None,
                seen.model or "",
                order=step.index,
            )
    for name, tool in walked.tools.items():
        for call in tool.calls:
            start = (call.start_ns - epoch_ns) / 1e9
            error = RuntimeError(call.error) if call.error is not None else None
            recorder.tool_call(
                call.agent,
                name,
                call.arguments,
                call.result,
                error,
                start,
                start + call.seconds,
                order=call.index,
            )
    return recorder


def _answer(seen: StepSeen) -> tuple[ModelResponse | None, BaseException | None]:
    step = seen.step
    if step.get("cancelled"):
        return None, asyncio.CancelledError()
    if "error" in step:
        return None, SimulatedModelError(step["error"])
    usage = step.get("usage")
    calls = tuple(
        ToolCall(c["id"], c["name"], c["arguments"] or "{}") for c in step.get("tool_calls", ())
    )
    return (
        ModelResponse(
            text=step.get("text"),
            tool_calls=calls,
            usage=Usage(**usage) if usage is not None else None,
        ),
        None,
    )


def _graph(walked: Walked) -> AgentGraph:
    assert walked.root is not None
    graph = AgentGraph(walked.root)
    for name in [walked.root, *(a for a in walked.agents if a != walked.root)]:
        graph.agents[name] = _agent_block(walked, name, graph)
    return graph


def _agent_block(walked: Walked, name: str, graph: AgentGraph) -> dict[str, Any]:
    """One agent in file form: its tools, mounts and policy, prompt, step bound."""
    seen = walked.agents[name]
    block: dict[str, Any] = {}
    plain = [tool for tool in seen.offered if tool not in seen.subagents and tool in walked.tools]
    if plain:
        block["tools"] = plain
    for tool in plain:
        _tool_spec(graph, tool, seen.offered[tool])
    if seen.subagents:
        block |= _delegation(seen, name, graph)
    if seen.most_chats > 20:
        block["max_steps"] = seen.most_chats
    if not seen.steps:
        graph.notes.append(f"agent {name}: never called its model in the trace (an empty script)")
    if seen.system_prompt is not None:
        block["system_prompt"] = seen.system_prompt
    else:
        graph.notes.append(f"agent {name}: its system prompt is not in the spans")
    return block


def _tool_spec(graph: AgentGraph, tool: str, definition: dict[str, Any]) -> None:
    spec: dict[str, Any] = {"description": str(definition.get("description") or "")}
    if isinstance(definition.get("parameters"), dict):
        spec["parameters"] = definition["parameters"]
    else:
        graph.notes.append(f"tool {tool}: its parameters are not in the spans")
    graph.tools.setdefault(tool, spec)


def _delegation(seen: AgentSeen, name: str, graph: AgentGraph) -> dict[str, Any]:
    """The mounts of a calling agent, and the policy and primary executor its handoffs show."""
    graph.subagent_tools.update(seen.subagents)
    block: dict[str, Any] = {
        "subagents": [_mount(seen, tool, agent) for tool, agent in seen.subagents.items()]
    }
    if any(len(s.step.get("tool_calls", ())) > 1 for s in seen.steps):
        block["parallel_tool_calls"] = True
    policy, unsaid = seen.policy.block(seen.subagents)
    if policy:
        block["policy"] = policy
    executor, more = seen.policy.tool_executor()
    if executor is not None:
        block["tool_executor"] = executor
    graph.notes.extend(f"agent {name}: {note}" for note in [*unsaid, *more])
    known = ", ".join(policy) or "nothing"
    graph.notes.append(
        f"agent {name}: its handoff policy is not in the spans; written from what its "
        f"handoffs show: {known}; every other policy field is the default"
    )
    return block


def _mount(seen: AgentSeen, tool: str, agent: str) -> dict[str, Any]:
    entry = {"agent": agent}
    name = seen.mount_names.get(tool, agent)
    if name != agent:
        entry["name"] = name
    entry["tool_name"] = tool
    return entry


def _lift(document: dict[str, Any], trace: Trace, walked: Walked, redaction: Redaction) -> None:
    """Expectations of the top agent when a workflow span wrapped it (OpenInference's
    ``Agent workflow``): the imported trace reads that span as one more agent run, the
    recording does not, so its depths are one less and the output is the top agent's."""
    if not walked.lifted:
        return
    expect = document["expect"]
    for event in expect.get("trace", {}).get("events", []):
        if isinstance(event.get("depth"), int):
            event["depth"] -= walked.lifted
    ends = [
        e for e in trace.of_type(RunEndEvent) if e.agent == walked.root and e.depth == walked.lifted
    ]
    if ends and ends[-1].status == "completed":
        scrub = redaction.scrubber()
        expect.pop("error", None)
        output = ends[-1].output if ends[-1].output is not None else walked.output
        expect["output"] = None if output is None else scrub.text(output)
        document["recorded"]["redacted"] = sorted(
            {*document["recorded"]["redacted"], *scrub.report()}
        )


def _as_conversion(document: dict[str, Any], walked: Walked) -> None:
    """What a conversion says differently from a live recording: no fingerprints (so the
    replay goes by order), models only where a span named one, the walk's own notes."""
    recorded = document["recorded"]
    recorded["match"] = "order"
    recorded["models"] = {a: m for a, m in recorded.get("models", {}).items() if m}
    for agent in document["agents"].values():
        for step in agent["model"]["script"]:
            step.pop("request", None)
    notes = [n for n in recorded.get("notes", []) if not n.startswith("the agents were read")]
    if any(seen.subagents for seen in walked.agents.values()):
        notes.append(_STYLES)
    recorded["notes"] = [*notes, *walked.notes, _FINGERPRINTS]
