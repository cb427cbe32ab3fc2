"""Running a scenario: the runtime protocol and the default, virtual-time runtime."""

from __future__ import annotations

import shutil
import tempfile
import weakref
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from handoff_sim._sessions import InMemorySessionStore, JsonlSessionStore, Session, SessionStore
from handoff_sim.scenarios._build import (
    BuildContext,
    ModelFactory,
    ToolRuns,
    build_entry_agent,
    build_models,
    build_type_models,
    unused_recorded_steps,
)
from handoff_sim.scenarios._expect import TurnSessions
from handoff_sim.scenarios._run._realtime import RealTimeRun, real_time
from handoff_sim.scenarios._schema import CustomModelSpec, ScenarioSpec
from handoff_sim.simulation import Simulation
from handoff_sim.testing import FunctionModel, ScriptedModel
from handoff_sim.testing._replay import ReplayModel
from handoff_sim.testing._schema_model import SchemaModelSpec
from handoff_sim.trace import Trace

if TYPE_CHECKING:
    from handoff_sim.scenarios._load import LoadedScenario

__all__ = ["DefaultRuntime", "ScenarioRun", "ScenarioRuntime"]


@dataclass(frozen=True, slots=True)
class ScenarioRun:
    """What running a scenario produced, before any expectation is checked.

    ``outputs`` has one entry per turn that finished; when ``error`` is set, it
    was raised by turn ``len(outputs)`` (0-based), or while building the agents.
    ``sessions`` (every session saved, in save order) and ``tool_runs`` (how often
    each fake tool ran) are optional: a runtime that cannot report them leaves
    them empty, and ``expect.sessions`` / ``expect.tool_runs`` then fail.
    ``step_failures`` are the script-step expectations that failed, in the order the
    models were built, even those the run caught: each fails the scenario.
    """

    trace: Trace
    outputs: list[str | None]
    error: BaseException | None
    elapsed_ms: float
    sessions: Sequence[Session] | None = None
    tool_runs: Mapping[str, int] | None = field(default=None)
    step_failures: Sequence[BaseException] = ()


@runtime_checkable
class ScenarioRuntime(Protocol):
    """Runs a loaded scenario; plug one in to run the suite against another framework."""

    def run(self, scenario: LoadedScenario, *, observers: Sequence[object]) -> ScenarioRun:
        """Run every turn of ``scenario`` and return its trace, outputs and error."""
        ...


class DefaultRuntime:
    """Builds handoff_sim agents and runs every turn in one seeded Simulation (virtual time),
    or on one real event loop for a ``clock: real`` scenario."""

    def __init__(self, model_factories: Sequence[ModelFactory] = ()) -> None:
        self.model_factories = tuple(model_factories)

    def run(self, scenario: LoadedScenario, *, observers: Sequence[object] = ()) -> ScenarioRun:
        """Run the turns in order; the first error stops the scenario and is returned."""
        if scenario.load_error is not None:  # what the scenario refers to failed to load
            return ScenarioRun(Trace(), [], scenario.load_error, 0.0, [], {})
        spec = scenario.spec

        def locate(field: str) -> str:
            return f"{scenario.path}:{scenario.location(field)}"

        models = build_models(spec, self.model_factories, locate)
        store = _session_store(spec)
        context = BuildContext(
            agent_types=scenario.agent_types,
            type_models=build_type_models(spec, self.model_factories, locate),
            session_store=store,
            tool_runs=ToolRuns(),
            scenario=scenario,
        )
        try:
            agent = build_entry_agent(spec, models, context)
        except Exception as exc:  # construction errors are outcomes a scenario may expect
            return ScenarioRun(Trace(), [], exc, 0.0, [], {})
        outputs: list[str | None] = []
        error: BaseException | None = None
        with _clock(scenario, observers) as sim:
            sessions = TurnSessions()
            try:
                for turn in spec.turns():
                    result = sim.run(agent, turn.input, session=sessions.choose(turn))
                    outputs.append(result.output)
                    sessions.ran(turn, result.session_id)
            except Exception as exc:
                error = exc
            elapsed = round(sim.now * 1000, 3)
            saved = [s for s in map(store.load, store.ids()) if s is not None]
            _discard(store)
            return ScenarioRun(
                sim.trace,
                outputs,
                error,
                elapsed,
                saved,
                context.tool_runs.snapshot()
                if isinstance(context.tool_runs, ToolRuns)
                else dict(context.tool_runs or {}),
                _step_failures([*models.values(), *context.type_models.values()])
                + _unused_steps(scenario, [*models.values(), *context.type_models.values()], error),
            )


def _step_failures(models: Sequence[object]) -> list[BaseException]:
    """The failed step expectations the scripted and function models kept (a model
    shared by agents counted once)."""
    unique = {id(model): model for model in models}.values()
    return [
        failure
        for model in unique
        if isinstance(model, ScriptedModel | FunctionModel | ReplayModel)
        for failure in model.failures
    ]


def _unused_steps(
    scenario: LoadedScenario, models: Sequence[object], error: BaseException | None
) -> list[BaseException]:
    """A recording's steps no request used; under a matrix variant's own policies (a what-if)
    only in the lanes requests reached (an agent the new policy no longer calls is its outcome)."""
    variant = scenario.variant_spec
    what_if = variant is not None and bool(variant.policies)
    return unused_recorded_steps(models, error, reached_only=what_if)


def _clock(
    scenario: LoadedScenario, observers: Sequence[object]
) -> AbstractContextManager[Simulation | RealTimeRun]:
    """Where the turns run: one Simulation (virtual time), or a real loop (``clock: real``)."""
    if scenario.spec.clock == "real":
        return real_time(scenario.seed, observers)
    wall_clock = _may_read_wall_clock(scenario.spec)
    return Simulation(seed=scenario.seed, observers=tuple(observers), wall_clock=wall_clock)


def _session_store(spec: ScenarioSpec) -> SessionStore:
    """In memory, or (``session_store: jsonl``) as files in a temporary directory, removed
    once read back (or, if the agents could not be built, when the store is dropped)."""
    if spec.session_store != "jsonl":
        return InMemorySessionStore()
    directory = tempfile.mkdtemp(prefix="handoff-sim-sessions-")
    store = JsonlSessionStore(directory)
    weakref.finalize(store, shutil.rmtree, directory, True)
    return store


def _discard(store: SessionStore) -> None:
    """Remove a JSONL store's temporary directory once its sessions are read back."""
    if isinstance(store, JsonlSessionStore):
        shutil.rmtree(store.directory, ignore_errors=True)


SCHEMA_KIND = SchemaModelSpec.KIND


def _may_read_wall_clock(spec: ScenarioSpec) -> bool:
    """Whether user code that could read ``time.time()`` runs: a plugin's model kind or a filter.

    Scripted, adversarial and schema-driven models and fake tools never read the wall
    clock, so a plain scenario skips the clock patch and its small cost per run
    (docs/virtual-time.md); a model kind from a plugin or an input filter named by
    import path is user code, and sees virtual time like any other.
    """
    models = [agent.model for agent in spec.agents.values()]
    models += [t.model for t in spec.agent_types.values() if t.model is not None]
    if any(isinstance(m, CustomModelSpec) and m.kind != SCHEMA_KIND for m in models):
        return True
    filters = [getattr(agent.policy, "input_filter", None) for agent in spec.agents.values()]
    return any(getattr(block, "python", None) for block in filters)
