"""``record(...)`` for a framework agent (openai-agents, pydantic-ai): its adapter records.

The adapter wraps the graph's real models and captures the block's runs
(``handoff_sim.adapters.record_framework_models``); this module writes what it saw as
a recording, like a run of handoff-sim's own agents, with the framework as its
runtime. A real run's ``elapsed`` holds time a replay does not spend (the framework's
own work between model calls), so the file is replayed once, on the framework it was
recorded on, and expects the virtual time of that replay (in a thread of its own when
the block ran inside an event loop).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from handoff_sim.adapters import record_framework_models, runtime_factory
from handoff_sim.errors import ConfigurationError
from handoff_sim.recording._expect import top_level_runs
from handoff_sim.recording._file_replay import deadline_reached, off_the_running_loop
from handoff_sim.recording._graph import AgentGraph
from handoff_sim.recording._recorder import Recorder, ToolsMode

if TYPE_CHECKING:
    from handoff_sim.recording._redact import Redaction
    from handoff_sim.trace import Trace

__all__ = ["framework_record"]


def framework_record(
    root: object,
    path: str | Path,
    *,
    tools: ToolsMode,
    redact: Redaction | None,
    scenario: str,
) -> AbstractContextManager[Recorder] | None:
    """The ``record`` block of a framework agent; ``None`` when ``root`` is of no framework."""
    recorder = Recorder(tools=tools)
    session = record_framework_models(root, recorder)
    if session is None:
        return None
    return _recording(session, recorder, path, redact, scenario)


@contextmanager
def _recording(
    session: AbstractContextManager[Any],
    recorder: Recorder,
    path: str | Path,
    redact: Redaction | None,
    name: str,
) -> Iterator[Recorder]:
    with session as framework:
        recorder.runtime = framework.runtime
        recorder.versions.update(framework.versions)
        yield recorder
    described = framework.graph
    graph = AgentGraph(
        described.entry,
        dict(described.agents),
        dict(described.tools),
        set(described.subagent_tools),
        list(described.notes),
    )
    _write(recorder, framework.capture.trace, path, graph, redact, name)


def _write(
    recorder: Recorder,
    trace: Trace,
    path: str | Path,
    graph: AgentGraph,
    redact: Redaction | None,
    name: str,
) -> None:
    from handoff_sim.recording._writer import write_recording
    from handoff_sim.scenarios import run_scenario

    inputs = [start.input for start, _ in top_level_runs(trace)]
    if not inputs:
        raise ConfigurationError(
            "record: no run of the agent was made inside the block: nothing to write"
        )
    target = recorder.write(path, trace, scenario=name, inputs=inputs, agents=graph, redact=redact)
    make = runtime_factory(recorder.runtime)
    runtime = None if make is None else make(())
    result = off_the_running_loop(lambda: run_scenario(target, runtime=runtime))
    error = deadline_reached(result.error, result.elapsed_ms, trace)
    if result.error is not None and error is None:
        return  # the file is written as recorded; its replay says what went wrong
    write_recording(
        recorder,
        target,
        trace,
        scenario=name,
        inputs=inputs,
        agents=graph,
        redact=redact,
        elapsed=result.elapsed_ms / 1000,
        error=error,
    )
