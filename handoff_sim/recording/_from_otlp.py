"""Turn an OTLP JSON export into a recording: a scenario file whose models replay the spans.

    from handoff_sim.recording import recording_from_otlp
    converted = recording_from_otlp("trace.json", "recordings/triage.yaml")
    converted.notes        # what the spans could not say (also in recorded.notes)

Model-call span durations become step latencies; their answers (texts, tool calls with
their raw arguments, usage) the steps; agent runs inside a tool call the sub-agent
mounts; other tool calls fake tools with their recorded answers; the trace as imported
the ``expect:`` block. Request fingerprints are not in any span, so a converted
recording replays by order (``match: order``); that and anything else the spans do not
carry is listed in ``recorded.notes``, never guessed.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from handoff_sim._durations import written
from handoff_sim._otlp import choose_trace, read_traces
from handoff_sim._otlp._parse import read_source
from handoff_sim._otlp._tree import SpanTree, trees
from handoff_sim._version import __version__
from handoff_sim.errors import ConfigurationError, OtlpError
from handoff_sim.events import Event, HandoffEndEvent, HandoffStartEvent, RunEndEvent, RunStartEvent
from handoff_sim.recording._redact import Redaction, Scrubber
from handoff_sim.recording._span_walk import Walked, walk
from handoff_sim.scenarios import load_text
from handoff_sim.scenarios.schema import RECORDING_FORMAT

__all__ = ["ConvertedRecording", "recording_from_otlp", "recording_from_otlp_data"]

_HEADER = (
    "# Converted by handoff-sim from OpenTelemetry spans. Replay: handoff-sim run <this file>\n"
    "# What the spans could not say is listed under recorded.notes.\n"
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
    _refuse_same(Path(source), Path(output))
    converted = recording_from_otlp_data(
        source, trace_id=trace_id, scenario=scenario, redaction=redaction
    )
    _write_atomically(Path(output), converted.text)
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
    found = trees(label, spans)
    tree = choose_trace([_Labelled(t, label) for t in found], source, trace_id)
    if tree is None:
        raise OtlpError(f"{label}: holds no span: nothing to convert")
    walked = walk(label, tree.tree)
    if walked.root is None:
        raise OtlpError(f"{label}: no agent run span (invoke_agent) in trace {tree.trace_id}")
    [imported] = [t.events for t in read_traces(source) if t.trace_id == tree.trace_id]
    scrub = (redaction or Redaction()).scrubber()
    name = scenario or _scenario_name(tree.name, walked.root)
    data = _scenario(walked, imported, scrub, name)
    text = _HEADER + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
    load_text(text, path=f"<recording of {label}>")  # a conversion never writes a broken file
    return ConvertedRecording(data, text, tuple(data["recorded"]["notes"]))


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


def _scenario_name(name: str | None, root: str) -> str:
    """The trace's name (a scenario id after ``::`` in our export), as a scenario name."""
    base = (name or "").rpartition("::")[2] or f"recorded-{root}"
    cleaned = "".join(c if c.isascii() and (c.isalnum() or c in "_.-") else "-" for c in base)
    return cleaned.strip("-") or "recorded"


def _scenario(walked: Walked, trace: Sequence[Event], scrub: Scrubber, name: str) -> dict[str, Any]:
    notes = list(walked.notes)
    agents = {agent: _agent(walked, agent, scrub, notes) for agent in _order(walked)}
    tools = _tools(walked, scrub, notes)
    expect = _expect(walked, trace, scrub, notes)
    notes.append(
        "request fingerprints: spans do not carry the messages in the form a replay "
        "compares, so this recording replays by order (match: order)"
    )
    recorded: dict[str, Any] = {
        "format": RECORDING_FORMAT,
        "runtime": walked.runtime or "handoff-sim",
        "match": "order",
        "versions": {"handoff-sim": __version__},
        "models": {a: s.model for a, s in walked.agents.items() if s.model},
        "date": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "tools": "recorded",
        "redacted": scrub.report(),
        "notes": notes,
    }
    data: dict[str, Any] = {
        "scenario": name,
        "description": "converted from OpenTelemetry spans",
        "recorded": recorded,
        "agents": agents,
    }
    if tools:
        data["tools"] = tools
    data["run"] = [{"input": scrub.text(text)} for text in walked.inputs]
    data["expect"] = expect
    return data


def _order(walked: Walked) -> list[str]:
    """The root agent first, then the others in the order the trace met them."""
    assert walked.root is not None
    return [walked.root, *(a for a in walked.agents if a != walked.root)]


def _agent(walked: Walked, name: str, scrub: Scrubber, notes: list[str]) -> dict[str, Any]:
    seen = walked.agents[name]
    agent: dict[str, Any] = {}
    plain = [tool for tool in seen.offered if tool not in seen.subagents and tool in walked.tools]
    if plain:
        agent["tools"] = plain
    if seen.subagents:
        agent["subagents"] = [{"agent": a, "tool_name": t} for t, a in seen.subagents.items()]
        agent["parallel_tool_calls"] = _parallel(seen.steps)
        policy = _policy(seen)
        if policy:
            agent["policy"] = policy
        notes.append(_policy_note(name, policy))
    if seen.most_chats > 20:
        agent["max_steps"] = seen.most_chats
    steps = [_scrubbed(step, scrub) for _, _, step in sorted(seen.steps, key=lambda s: s[:2])]
    agent["model"] = {"script": steps}
    if not steps:
        notes.append(f"agent {name}: never called its model in the trace (an empty script)")
    notes.append(f"agent {name}: its system prompt is not in the spans")
    return agent


def _parallel(steps: list[tuple[int, int, dict[str, Any]]]) -> bool:
    return any(len(step.get("tool_calls", ())) > 1 for _, _, step in steps)


def _policy(seen: Any) -> dict[str, Any]:
    policy: dict[str, Any] = {}
    if seen.attempts > 1:
        policy["max_retries"] = min(seen.attempts - 1, 100)
    if seen.timeout is not None:
        policy["timeout"] = str(written(seen.timeout))
    if seen.depth_denied is not None:
        policy["max_depth"] = max(seen.depth_denied - 1, 1)
    elif seen.deepest > 1:
        policy["max_depth"] = seen.deepest
    if seen.denied:
        policy["denied_tools"] = sorted(set(seen.denied))
    if seen.denied or seen.depth_denied is not None:
        policy["on_denied"] = "report_to_model"  # the run went on past the denial
    return policy


def _policy_note(name: str, policy: dict[str, Any]) -> str:
    known = ", ".join(policy) or "nothing"
    return (
        f"agent {name}: its handoff policy is not in the spans; written from what its "
        f"handoffs show: {known}; every other policy field is the default"
    )


def _scrubbed(step: dict[str, Any], scrub: Scrubber) -> dict[str, Any]:
    out = dict(step)
    if isinstance(out.get("text"), str):
        out["text"] = scrub.text(out["text"])
    if isinstance(out.get("error"), str):
        out["error"] = scrub.text(out["error"]) or "error"
    if "tool_calls" in out:
        out["tool_calls"] = [
            {**call, "arguments": scrub.text(call["arguments"])} for call in out["tool_calls"]
        ]
    return out


def _tools(walked: Walked, scrub: Scrubber, notes: list[str]) -> dict[str, Any]:
    tools: dict[str, Any] = {}
    definitions = {n: d for s in walked.agents.values() for n, d in s.offered.items()}
    for name, seen in walked.tools.items():
        tool: dict[str, Any] = {}
        definition = definitions.get(name, {})
        if isinstance(definition.get("description"), str):
            tool["description"] = scrub.text(definition["description"])
        answers = [_scrubbed_answer(a, scrub) for _, a in sorted(seen.answers, key=lambda a: a[0])]
        tool["answers"] = answers
        tools[name] = tool
        if "parameters" not in definition:
            notes.append(f"tool {name}: its parameters are not in the spans")
    return tools


def _scrubbed_answer(answer: dict[str, Any], scrub: Scrubber) -> dict[str, Any]:
    out = dict(answer)
    if isinstance(out.get("arguments"), str):
        out["arguments"] = scrub.text(out["arguments"])
    if isinstance(out.get("returns"), str):
        out["returns"] = scrub.text(out["returns"])
    return out


def _expect(
    walked: Walked, events: Sequence[Event], scrub: Scrubber, notes: list[str]
) -> dict[str, Any]:
    """The expectations of the trace as imported: final output, handoffs, elapsed time."""
    expect: dict[str, Any] = {}
    ends = [e for e in events if isinstance(e, RunEndEvent) and e.depth == 0]
    if ends and ends[-1].status == "completed" and ends[-1].output is not None:
        expect["output"] = scrub.text(ends[-1].output)
    handoffs = _handoffs(events)
    if handoffs:
        expect["handoffs"] = handoffs
    starts = [e for e in events if isinstance(e, RunStartEvent) and e.depth == 0]
    if walked.ours and len(walked.inputs) == 1 and ends and starts:
        expect["elapsed"] = str(written(round(ends[-1].t - starts[0].t, 6)))
    else:
        notes.append(
            "expect.elapsed: not written: a real run spends time outside its model and tool "
            "calls that a replay in virtual time does not"
        )
    return expect


def _handoffs(events: Sequence[Event]) -> list[dict[str, Any]]:
    """Each handoff's tool, status, attempts (and reason), in the order they started."""
    order = [e.handoff_id for e in events if isinstance(e, HandoffStartEvent)]
    ended = {e.handoff_id: e for e in events if isinstance(e, HandoffEndEvent)}
    found = []
    for handoff_id in order:
        end = ended.get(handoff_id)
        if end is None:
            continue
        shown: dict[str, Any] = {"tool": end.tool, "status": end.status, "attempts": end.attempts}
        if end.reason is not None:
            shown["reason"] = end.reason
        found.append(shown)
    return found


def _refuse_same(source: Path, output: Path) -> None:
    same = source.resolve() == output.resolve()
    if not same and output.exists():
        try:
            same = os.path.samefile(source, output)
        except OSError:
            same = False
    if same:
        raise ConfigurationError(
            f"the recording {output} would overwrite its own input {source}: "
            "write it to another file"
        )


def _write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path``, then put it in place."""
    directory = path.parent if str(path.parent) else Path(".")
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=directory)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
