"""Recording a pydantic-ai agent graph: each agent on a recording model, by name; the run captured.

``record_models`` finds the graph as ``override_models`` does and runs each agent on its
own model wrapped in :class:`RecordingModel`; ``recording_run`` adds the capture whose
trace gives the recording its expectations and its agent graph.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic_ai import Agent

from handoff_sim import ConfigurationError, ModelRequest, Trace
from handoff_sim.adapters._model_swap import FrameworkTree
from handoff_sim.adapters._pai_capture import PydanticAICapture
from handoff_sim.adapters._pai_overrides import agent_graph
from handoff_sim.adapters._pai_record import ModelCallRecorder, RecordingModel
from handoff_sim.adapters._pai_record_graph import recorded_graph

if TYPE_CHECKING:
    from handoff_sim.recording._graph import AgentGraph

__all__ = ["RecordedAgents", "RecordingRun", "record_models", "recording_run"]


def _recording(
    name: str | None, agent: Agent[Any, Any], recorder: ModelCallRecorder
) -> RecordingModel:
    model = agent.model
    if model is None:
        raise ConfigurationError(
            f"record_models: the pydantic-ai agent {name or 'without a name'!r} has no model "
            "of its own (it gets one per run); give it one with Agent(model=...) to record it"
        )
    if isinstance(model, RecordingModel):
        return model
    return RecordingModel(model, recorder, agent=name)


@dataclass(slots=True)
class RecordedAgents:
    """The agents ``record_models`` found (by name) and the recording models they run on."""

    tree: FrameworkTree
    models: list[RecordingModel] = field(default_factory=list)

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
            if isinstance(model, RecordingModel) and model not in found.models:
                found.models.append(model)
            stack.enter_context(agent.override(model=model))
        yield found


class RecordingRun:
    """A pydantic-ai run being recorded: its capture (the trace) and its recording models."""

    def __init__(self, capture: PydanticAICapture, agents: RecordedAgents) -> None:
        self.capture = capture
        self.agents = agents

    @property
    def trace(self) -> Trace:
        """The run's trace, as ``capture()`` records it."""
        return self.capture.trace

    def graph(self, requests: Mapping[str, Sequence[ModelRequest]]) -> AgentGraph:
        """The recorded graph in file form; ``requests``: each agent's recorded requests."""
        return recorded_graph(self.trace, requests, self.agents.output_tools())


@contextmanager
def recording_run(
    root: Agent[Any, Any], recorder: ModelCallRecorder, *, seed: int = 0
) -> Iterator[RecordingRun]:
    """The pydantic-ai runs of the block captured, and every model call of ``root``'s graph
    recorded to ``recorder``: what ``handoff_sim.recording.record`` does for a pydantic-ai agent."""
    with PydanticAICapture(seed=seed) as capture, record_models(root, recorder) as agents:
        yield RecordingRun(capture, agents)
