"""Write a recording: a :class:`Recorder`'s calls and the run's trace as a scenario file.

Per agent a script whose steps carry the recorded latency (to 1 ms), the request
fingerprint and usage; plain tools as fakes with their recorded answers; the turns; an
``expect:`` block from the trace; the ``recorded:`` provenance. Everything written is
redacted first (fingerprints are taken before), the file is replaced atomically, and
no machine path ever reaches it.
"""

from __future__ import annotations

import builtins
import os
import platform
import tempfile
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from handoff_sim import Trace
from handoff_sim._errors._families import ConfigurationError
from handoff_sim._version import __version__
from handoff_sim.recording._executors import executor_blocks
from handoff_sim.recording._expect import (
    MAX_TREE_HANDOFFS,
    elapsed_of,
    expect_block,
    top_level_runs,
)
from handoff_sim.recording._fakes import RAISABLE, fake_tools
from handoff_sim.recording._graph import AgentGraph, duration_text
from handoff_sim.recording._redact import Redaction, Scrubber, machine_paths
from handoff_sim.recording._yaml_out import render
from handoff_sim.scenarios._schema import RECORDING_FORMAT
from handoff_sim.testing import SimulatedModelError
from handoff_sim.testing._fingerprint import fingerprint

if TYPE_CHECKING:
    from handoff_sim import ModelRequest
    from handoff_sim.recording._recorder import ModelCall, Recorder

__all__ = ["recording_document", "write_recording", "write_text"]


def write_recording(
    recorder: Recorder,
    path: str | Path,
    trace: Trace,
    *,
    scenario: str,
    inputs: Sequence[str],
    agents: AgentGraph | None = None,
    redact: Redaction | None = None,
    description: str = "recorded from a real run",
    extra_versions: Mapping[str, str] | None = None,
    source: str | Path | None = None,
    elapsed: float | None = None,
    error: str | None = None,
) -> Path:
    """Write the recording at ``path``; ``elapsed`` overrides the trace's (a real-time run),
    ``error`` names the error an unfinished run ended with (see ``expect_block``)."""
    document = recording_document(
        recorder,
        trace,
        scenario=scenario,
        inputs=inputs,
        agents=agents,
        redact=redact,
        description=description,
        extra_versions=extra_versions,
        elapsed=elapsed,
        error=error,
    )
    return write_text(path, render(document, _header(Path(path).name)), source=source)


def recording_document(
    recorder: Recorder,
    trace: Trace,
    *,
    scenario: str,
    inputs: Sequence[str],
    agents: AgentGraph | None = None,
    redact: Redaction | None = None,
    description: str = "recorded from a real run",
    extra_versions: Mapping[str, str] | None = None,
    elapsed: float | None = None,
    error: str | None = None,
) -> dict[str, Any]:
    """The recording as the plain mapping the file holds, keys in the file's order."""
    scrub = (redact or Redaction()).scrubber()
    graph = agents if agents is not None else AgentGraph.from_trace(trace)
    notes = list(graph.notes)
    lanes = recorder.lanes()
    agent_blocks = _agents(graph, lanes, scrub)
    agent_types = _agent_types(graph, lanes, scrub, notes)
    for agent, executor in executor_blocks(trace, graph, scrub, notes).items():
        block = agent_blocks[agent]
        model = block.pop("model")
        block.update(tool_executor=executor, model=model)  # the model stays last
    tools = fake_tools(recorder, trace, graph, scrub, notes)
    turns = _turns(trace, inputs, scrub)
    if elapsed is None and recorder.real_time and recorder.runtime != "handoff-sim":
        notes.append("elapsed is not written: the run was recorded in real time")
    elif elapsed is None:
        elapsed = elapsed_of(trace)
    expect = expect_block(trace, scrub.text, elapsed=elapsed, error=error)
    if len(expect.get("handoffs", ())) > MAX_TREE_HANDOFFS:
        notes.append(
            f"the handoff tree is not written as trace patterns: more than "
            f"{MAX_TREE_HANDOFFS} handoffs (expect.handoffs lists each)"
        )
    recorded: dict[str, Any] = {
        "format": RECORDING_FORMAT,
        "runtime": recorder.runtime,
        "match": "fingerprint",
        "versions": _versions(recorder, extra_versions),
        "models": _models(lanes, notes),
        "date": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "tools": recorder.tools,
        "redacted": scrub.report(),
    }
    if notes:
        recorded["notes"] = [scrub.text(n) for n in notes]
    document: dict[str, Any] = {
        "scenario": scenario,
        "description": scrub.text(description),
        "recorded": recorded,
    }
    if agent_types:
        document["agent_types"] = agent_types
    document["agents"] = agent_blocks
    if tools:
        document["tools"] = tools
    document["run"] = turns
    document["expect"] = expect
    recorded["redacted"] = scrub.report()  # everything is scrubbed by now
    return document


def _versions(recorder: Recorder, extra: Mapping[str, str] | None) -> dict[str, str]:
    versions = {"handoff-sim": __version__, "python": platform.python_version()}
    versions.update(recorder.versions)
    versions.update(extra or {})
    return versions


def _models(lanes: Mapping[str, list[ModelCall]], notes: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for agent, calls in lanes.items():
        names = list(dict.fromkeys(c.model for c in calls))
        out[agent] = names[0]
        if len(names) > 1:
            notes.append(f"agent {agent!r} called several models: {', '.join(names)}")
    return out


def _agents(
    graph: AgentGraph, lanes: Mapping[str, list[ModelCall]], scrub: Scrubber
) -> dict[str, dict[str, Any]]:
    quiet = scrub.rules.scrubber()  # redacts for the fingerprints below; counts nothing written
    out: dict[str, dict[str, Any]] = {}
    names = [graph.entry, *(n for n in graph.agents if n != graph.entry)]
    names += [n for n in lanes if n not in graph.agents and n not in graph.agent_types]
    for name in names:
        block = dict(graph.agents.get(name, {}))
        if "system_prompt" in block:
            block["system_prompt"] = scrub.text(block["system_prompt"])
        steps = [_step(call, scrub, graph, quiet) for call in lanes.get(name, [])]
        block["model"] = {"script": steps}
        out[name] = block
    return out


def _agent_types(
    graph: AgentGraph, lanes: Mapping[str, list[ModelCall]], scrub: Scrubber, notes: list[str]
) -> dict[str, dict[str, Any]]:
    """Each agent type a dispatcher builds agents from, with the lane of those agents."""
    quiet = scrub.rules.scrubber()
    out: dict[str, dict[str, Any]] = {}
    for name, written in graph.agent_types.items():
        if name in graph.agents:
            notes.append(
                f"agent type {name!r} is named as an agent: their model calls share one lane"
            )
        block = dict(written)
        for key in ("description", "system_prompt"):
            if key in block:
                block[key] = scrub.text(block[key])
        steps = [_step(call, scrub, graph, quiet) for call in lanes.get(name, [])]
        block["model"] = {"script": steps}
        out[name] = block
    return out


def _step(call: ModelCall, scrub: Scrubber, graph: AgentGraph, quiet: Scrubber) -> dict[str, Any]:
    """One script step: the answer (or error, or cancellation), latency, usage, request."""
    step: dict[str, Any] = {}
    response = call.response
    if call.cancelled:
        step["cancelled"] = True
    elif call.error is not None or response is None:
        step["error"] = _model_error(call.error, scrub.text)
    else:
        if response.text is not None or not response.tool_calls:
            step["text"] = None if response.text is None else scrub.text(response.text)
        if response.tool_calls:
            step["tool_calls"] = [
                _tool_call(c.id, c.name, c.arguments, scrub) for c in response.tool_calls
            ]
    step["latency"] = duration_text(call.end - call.start)
    if call.first_chunk is not None:
        step["first_chunk"] = duration_text(call.first_chunk)
    usage = response.usage if response is not None else None
    if usage is not None:
        step["usage"] = {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens}
    found = fingerprint(_as_replayed(call.request, graph, quiet))
    request: dict[str, Any] = {"model": found.model, "tools": list(found.tools), "role": found.role}
    request["sha256"] = found.sha256
    if found.system is not None:
        request["system"] = found.system
    request["text"] = scrub.text(found.text)
    step["request"] = request
    return step


def _as_replayed(request: ModelRequest, graph: AgentGraph, quiet: Scrubber) -> ModelRequest:
    """``request`` as its replay will send it, for its fingerprint.

    The fingerprint is taken before redaction, so that your own inputs and tools (which
    give the real values again) match it. A sub-agent's input and a sub-agent's result
    come from a model's answer, and a replay gives that answer redacted: for those last
    messages the fingerprint is taken of the redacted text.
    """
    last = request.messages[-1] if request.messages else None
    if last is None or last.content is None:
        return request
    handed_on = (last.role == "user" and request.agent != graph.entry) or (
        last.role == "tool" and last.name in graph.subagent_tools
    )
    cleaned = quiet.text(last.content) if handed_on else last.content
    if cleaned == last.content:
        return request
    messages = (*request.messages[:-1], msgspec.structs.replace(last, content=cleaned))
    return msgspec.structs.replace(request, messages=messages)


def _tool_call(call_id: str | None, name: str, arguments: str, scrub: Scrubber) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if call_id is not None:
        out["id"] = scrub.text(call_id)
    out["name"] = name
    out["arguments"] = scrub.text(arguments)
    return out


def _model_error(error: BaseException | None, scrub: Callable[[str], str]) -> str | dict[str, str]:
    """A model error as a script step's ``error``: a provider failure keeps its message alone,
    a built-in error its type and message (so the replay raises the same error)."""
    if error is None:
        return scrub("the model returned nothing")
    if isinstance(error, SimulatedModelError):
        return scrub(str(error))
    message = str(error.args[0]) if len(error.args) == 1 else str(error)
    if type(error).__name__ in RAISABLE and type(error) is getattr(builtins, type(error).__name__):
        return {"type": type(error).__name__, "message": scrub(message)}
    text = str(error)
    return scrub(f"{type(error).__name__}: {text}" if text else type(error).__name__)


# -- turns -----------------------------------------------------------------------------


def _turns(trace: Trace, inputs: Sequence[str], scrub: Scrubber) -> list[dict[str, Any]]:
    """The user turns; each says which session it ran in, as the recorded run did."""
    runs = top_level_runs(trace)
    sessions = [start.session_id for start, _ in runs] if len(runs) == len(inputs) else []
    turns: list[dict[str, Any]] = [{"input": scrub.text(text)} for text in inputs]
    first_turn_of: dict[str, int] = {}
    for index, session in enumerate(sessions):
        if index and session != sessions[index - 1]:
            if session not in first_turn_of:
                turns[index]["session"] = "new"
            else:
                owner = first_turn_of[session]
                name = f"session_{owner + 1}"
                turns[owner].setdefault("expect", {})["session_id"] = {"capture": name}
                turns[index]["session"] = {"ref": name}
        first_turn_of.setdefault(session, index)
    return turns


# -- the file --------------------------------------------------------------------------


def _header(name: str) -> str:
    return (
        "# Recorded by handoff-sim from a real run; an ordinary scenario file: edit it freely.\n"
        f"# Replay it standalone:          handoff-sim run {name}\n"
        "# Replay it into your own agents: with handoff_sim.recording.replay(agent, path): ...\n"
    )


def write_text(path: str | Path, text: str, *, source: str | Path | None = None) -> Path:
    """Write ``text`` at ``path`` atomically (a temporary file beside it, then a rename).

    It refuses to replace ``source`` (what the recording was made from) and any text
    that still holds a machine path.
    """
    target = Path(path)
    if source is not None and _same_file(target, Path(source)):
        raise ConfigurationError(
            f"the recording would overwrite its own input {target.name!r}: write it elsewhere"
        )
    leaked = [d for d in machine_paths() if d in text]
    if leaked:
        raise ConfigurationError("a recording may not hold a machine path; it was not written")
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and a.samefile(b))
    except OSError:
        return False
