"""``record`` and ``replay``: a real run of your agents becomes a file, the file a test.

``with record(agent, "triage.yaml"): await agent.arun(...)`` wraps every model of the
agent tree in a :class:`RecordingModel`, collects the trace of the runs made in the
block and, if the block did not raise, writes the recording. ``with replay(agent,
"triage.yaml"): ...`` swaps the same models, by agent name, for replays of the file and
checks on exit that every recorded step was used.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, ExitStack, contextmanager
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from handoff_sim import Agent, ModelClient, Trace
from handoff_sim._agent import override_agent_models
from handoff_sim._context import RunEnvironment, current_environment
from handoff_sim._errors._families import ConfigurationError
from handoff_sim.recording._file_replay import write_and_replay
from handoff_sim.recording._graph import AgentGraph
from handoff_sim.recording._recorder import Recorder, RecordingModel, ToolsMode, tool_fn_wrapper
from handoff_sim.testing._overrides import AgentTree
from handoff_sim.testing._replay import ReplayModel
from handoff_sim.testing._replay_lane import ReplayLedger

if TYPE_CHECKING:
    from handoff_sim.recording._redact import Redaction
    from handoff_sim.scenarios import LoadedScenario, ScenarioSpec
    from handoff_sim.scenarios._schema import MatchMode

__all__ = ["Recording", "record", "replay"]

_NAME = re.compile(r"[^A-Za-z0-9_.-]+")
T = TypeVar("T")


class _Environments:
    """The run environments the recorded calls ran in, in the order first seen."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.found: list[RunEnvironment] = []
        self._last: RunEnvironment | None = None

    def saw(self) -> None:
        env = current_environment()
        if env is None or env is self._last:  # almost every call: the run seen last time
            return
        with self._lock:
            if all(e is not env for e in self.found):
                self.found.append(env)
            self._last = env

    def trace(self) -> Trace:
        """Every event of those environments, one environment after the other."""
        events = [event for env in self.found for event in env.events]
        return Trace(events)


def scenario_name(path: str | Path, given: str | None) -> str:
    """``given``, else the file's stem made a valid scenario name."""
    if given is not None:
        return given
    return _NAME.sub("-", Path(path).stem).strip("-") or "recording"


@contextmanager
def record(
    root: object,
    path: str | Path,
    *,
    tools: ToolsMode = "live",
    redact: Redaction | None = None,
    scenario: str | None = None,
) -> Iterator[Recorder]:
    """Record the runs of ``root``'s agent tree made in the block; write them at ``path``.

    ``tools="recorded"`` records the plain tools' calls too (so a replay can stand in for
    tools that reach real services); by default they run live and the file's fake tools
    are written from the trace. Nothing is written if the block raises.
    """
    if tools not in ("live", "recorded"):
        raise ConfigurationError(f"record: tools must be 'live' or 'recorded', got {tools!r}")
    if not isinstance(root, Agent):
        from handoff_sim.recording._framework import framework_record

        name = scenario_name(path, scenario)
        framework = framework_record(root, path, tools=tools, redact=redact, scenario=name)
        if framework is None:
            raise ConfigurationError(
                f"record takes an Agent of handoff-sim, openai-agents or pydantic-ai, got "
                f"{type(root).__name__}"
            )
        with framework as recorded:
            yield recorded
        return
    recorder = Recorder(tools=tools)
    seen = _Environments()
    graph = AgentGraph.of(root)
    tree = AgentTree.of(root)
    with ExitStack() as stack:
        stack.enter_context(_recording_models(tree, recorder, seen.saw))
        if tools == "recorded":
            stack.enter_context(_recorded_tools(tree, recorder))
        yield recorder
    write_and_replay(recorder, seen.trace(), path, graph, redact, scenario_name(path, scenario))


def _recording_models(
    tree: AgentTree, recorder: Recorder, on_call: Callable[[], object]
) -> AbstractContextManager[None]:
    """Every agent of the tree, and every agent type its dispatchers build per delegation
    (by the model it is built with), runs on a :class:`RecordingModel` for the block."""
    agents = {
        agent: RecordingModel(agent.model, recorder, on_call=on_call)
        for found in tree.agents.values()
        for agent in found
    }
    built = {
        (model, name): RecordingModel(_running(name, model), recorder, agent=name, on_call=on_call)
        for name, models in tree.types.items()
        for model in models
    }
    return override_agent_models(agents, built)


def _running(name: str, model: ModelClient) -> ModelClient:
    """The model an agent of type ``name`` built with ``model`` runs on in this context: an
    override's (``override_models`` around ``record``) or ``model`` itself."""
    return Agent(name, model).model


@contextmanager
def _recorded_tools(tree: AgentTree, recorder: Recorder) -> Iterator[None]:
    """Every plain tool of the tree records its calls for the block (its function swapped)."""
    swapped: list[tuple[Any, Any]] = []
    try:
        for name, agents in tree.agents.items():
            for agent in agents:
                for plain in agent.tools:
                    if all(plain is not t for t, _ in swapped):
                        swapped.append((plain, plain.fn))
                        plain.fn = tool_fn_wrapper(recorder, name, plain.name, plain.fn)
        yield
    finally:
        for plain, fn in swapped:
            plain.fn = fn


# -- replay --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Recording:
    """A loaded recording: its scenario, and a replay model per agent."""

    path: Path
    scenario: LoadedScenario

    @classmethod
    def load(cls, path: str | Path) -> Recording:
        """Load and check the file at ``path``; it must hold one scenario with ``recorded:``."""
        from handoff_sim.scenarios import load_path
        from handoff_sim.scenarios._errors import ScenarioError

        loaded = load_path(path)
        if len(loaded) != 1 or loaded[0].spec.recorded is None:
            raise ScenarioError(
                f"{Path(path).name}: a recording holds one scenario with a 'recorded:' block"
            )
        return cls(Path(path), loaded[0])

    @property
    def spec(self) -> ScenarioSpec:
        """The scenario the file describes."""
        return self.scenario.spec

    def models(self, *, match: MatchMode | None = None) -> dict[str, ReplayModel]:
        """A fresh :class:`ReplayModel` per recorded agent, by agent name."""
        recorded = self.spec.recorded
        assert recorded is not None
        mode = match or recorded.match
        ledger = ReplayLedger()  # a cut-off run gives back what every lane served it
        return {
            name: model.again(match=mode, ledger=ledger) for name, model in self._replays.items()
        }

    @cached_property
    def _replays(self) -> dict[str, ReplayModel]:
        """A replay of each recorded lane, its steps parsed once: ``models`` starts new ones."""
        return {name: ReplayModel(steps, agent=name) for name, steps in self._lanes.items()}

    @cached_property
    def _lanes(self) -> dict[str, list[Any]]:
        """Each recorded agent's steps as the replay models take them (worked out once)."""
        out: dict[str, list[Any]] = {}
        declared: list[tuple[str, Any]] = [
            *self.spec.agents.items(),
            *self.spec.agent_types.items(),
        ]
        for name, agent in declared:  # agent types: the lanes of the agents dispatchers build
            script = getattr(agent.model, "script", None)
            if script is not None:
                out[name] = [s if isinstance(s, str) else s.as_step() for s in script]
        return out

    def tool_answers(self) -> dict[str, Any]:
        """The recorded answers of each fake tool, by tool name (what ``replay`` serves when
        the tools were recorded)."""
        from handoff_sim.scenarios._build import RecordedAnswers

        return {
            name: RecordedAnswers(name, spec.answers)
            for name, spec in self.spec.tools.items()
            if spec.answers is not None
        }


@contextmanager
def replay(
    root: object, path: str | Path, *, match: MatchMode | None = None
) -> Iterator[Recording]:
    """Run ``root``'s agents on replays of the recording at ``path``, by agent name.

    Only the models are replaced (and, in a recording of ``tools: recorded``, the plain
    tools that were recorded): the real prompts, tools and policies run. On a normal
    exit every lane must have been used up (``UnusedRecordingError`` otherwise).
    """
    from handoff_sim.testing import override_models

    recording = Recording.load(path)
    models = recording.models(match=match)
    with ExitStack() as stack:
        tree = stack.enter_context(override_models(root, models))
        recorded = recording.spec.recorded
        if recorded is not None and recorded.tools == "recorded" and isinstance(tree, AgentTree):
            stack.enter_context(_replayed_tools(tree, recording.tool_answers()))
        elif recorded is not None and recorded.tools == "recorded":
            from handoff_sim.adapters._registry import replay_framework_tools

            tools = replay_framework_tools(root, recording.tool_answers())
            if tools is not None:
                stack.enter_context(tools)
        yield recording
    for model in models.values():
        model.assert_complete()


@contextmanager
def _replayed_tools(tree: AgentTree, answers: Mapping[str, Any]) -> Iterator[None]:
    """The tree's plain tools that were recorded answer from the recording for the block."""
    swapped: list[tuple[Any, Any]] = []
    try:
        for agents in tree.agents.values():
            for agent in agents:
                for plain in agent.tools:
                    served = answers.get(plain.name)
                    if served is not None and all(plain is not t for t, _ in swapped):
                        swapped.append((plain, plain.fn))
                        plain.fn = _serving(served)
        yield
    finally:
        for plain, fn in swapped:
            plain.fn = fn


def _serving(answers: Any) -> Any:
    async def recorded(**arguments: Any) -> str:
        text: str = await answers.answer(arguments)
        return text

    return recorded
