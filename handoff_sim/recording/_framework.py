"""``record(...)`` for a framework agent (openai-agents, pydantic-ai): its adapter records.

The adapter wraps the graph's real models and captures the block's runs
(``handoff_sim.adapters._registry.record_framework_models``); this module writes what it saw as
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

from handoff_sim.adapters._registry import record_framework_models
from handoff_sim.recording._file_replay import write_and_replay
from handoff_sim.recording._graph import AgentGraph
from handoff_sim.recording._recorder import Recorder, ToolsMode

if TYPE_CHECKING:
    from handoff_sim.recording._redact import Redaction

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
    write_and_replay(recorder, framework.capture.trace, path, graph, redact, name)
