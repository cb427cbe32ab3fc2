"""Recording a pydantic-ai agent graph: each agent on a recording model, by name; the run captured.

``record_models`` finds the graph as ``override_models`` does and runs each agent on its
own model wrapped in :class:`RecordingModel`; ``recording`` adds the capture whose
trace gives the recording its expectations and its agent graph.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai import Agent

from handoff_sim import ConfigurationError, ModelRequest, Trace
from handoff_sim.adapters._model_swap import FrameworkTree
from handoff_sim.adapters._pai_capture import PydanticAICapture
from handoff_sim.adapters._pai_overrides import agent_graph
from handoff_sim.adapters._pai_record import ModelCallRecorder, RecordingModel
from handoff_sim.adapters._pai_record_graph import PaiGraph, recorded_graph
from handoff_sim.adapters._record_tools import NoticingRecorder, wants_tools

__all__ = ["RecordedAgents", "RecordingRun", "record_models", "recording"]


def _recording(
    name: str | None, agent: Agent[Any, Any], recorder: ModelCallRecorder
) -> RecordingModel:
    """The agent's own model, recording to ``recorder`` (already so: as it is)."""
    model = agent.model
    if model is None:
        who = f"the pydantic-ai agent {name!r}" if name else "an unnamed pydantic-ai agent"
        raise ConfigurationError(
            f"record_models: {who} has no model of its own (it gets one per run); give it "
            "one with Agent(model=...) to record it"
        )
    if isinstance(model, RecordingModel) and model.recorder is recorder:
        return model
    return RecordingModel(model, recorder, agent=name)


@dataclass(slots=True)
class RecordedAgents:
    """The agents ``record_models`` found (by name) and the recording models they run on."""

    tree: FrameworkTree
    models: list[RecordingModel] = field(default_factory=list)

    def first_requests(self) -> dict[str, ModelRequest]:
        """Agent name -> its first recorded request."""
        out: dict[str, ModelRequest] = {}
        for model in self.models:
            for agent, request in model.first_requests.items():
                out.setdefault(agent, request)
        return out

    def output_tools(self) -> dict[str, set[str]]:
        """Agent name -> the output tools (structured output) its recorded requests offered."""
        out: dict[str, set[str]] = {}
        for model in self.models:
            for agent, names in model.output_tools.items():
                out.setdefault(agent, set()).update(names)
        return out


@contextmanager
def record_models(root: Agent[Any, Any], recorder: ModelCallRecorder) -> Iterator[RecordedAgents]:
    """Every agent of ``root``'s graph records its model calls to ``recorder``, by agent name.

    The graph is found as ``override_models`` finds it; each agent runs on its own model
    wrapped in :class:`RecordingModel` (``agent.override(model=...)``) inside the block.
    """
    if not isinstance(root, Agent):
        raise ConfigurationError(f"record_models: expected a pydantic_ai.Agent, got {root!r}")
    found = RecordedAgents(agent_graph(root))
    named = [(n, a) for n, agents in found.tree.agents.items() for a in agents]
    with ExitStack() as stack:
        for name, agent in [*named, *((None, a) for a in found.tree.unnamed)]:
            model = _recording(name, agent, recorder)
            if all(model is not known for known in found.models):  # models compare by value
                found.models.append(model)
            stack.enter_context(agent.override(model=model))
        yield found


class RecordingRun:
    """A pydantic-ai run being recorded: its capture (the trace) and its recording models.

    What ``handoff_sim.recording.record`` reads: ``runtime``, ``versions``, ``capture``
    and, once the block is over, ``graph``.
    """

    runtime = "pydantic-ai"

    def __init__(self, capture: PydanticAICapture, agents: RecordedAgents) -> None:
        self.capture = capture
        self.agents = agents
        self.versions = {"pydantic-ai": importlib.metadata.version("pydantic-ai-slim")}

    @property
    def trace(self) -> Trace:
        """The run's trace, as ``capture()`` records it."""
        return self.capture.trace

    @property
    def graph(self) -> PaiGraph:
        """The recorded graph in file form: mounts from the trace, the rest from requests."""
        return recorded_graph(self.trace, self.agents.first_requests(), self.agents.output_tools())


@contextmanager
def recording(
    root: Agent[Any, Any], recorder: ModelCallRecorder, *, seed: int = 0
) -> Iterator[RecordingRun]:
    """The pydantic-ai runs of the block captured, and every model call of ``root``'s graph
    recorded to ``recorder``: what ``handoff_sim.recording.record`` does for a pydantic-ai agent."""
    if not wants_tools(recorder):
        with PydanticAICapture(seed=seed) as capture, record_models(root, recorder) as agents:
            yield RecordingRun(capture, agents)
        return
    from handoff_sim.adapters._pai_record_tools import recorded_tools

    # record(..., tools="recorded"): the tools' calls too; a model asked inside one delegated
    noticing = NoticingRecorder(recorder)
    with (
        PydanticAICapture(seed=seed) as capture,
        record_models(root, noticing) as agents,
        recorded_tools(agents.tree, recorder),  # type: ignore[arg-type]
    ):
        yield RecordingRun(capture, agents)
