"""The plugin's fixtures. Each imports the runtime only when a test asks for it.

* ``scripted_model`` — a factory of strict ``ScriptedModel``s;
* ``agent_builder`` (alias ``handoff_agent``) — agents with scripted models in a line;
* ``event_recorder`` — a runtime observer keeping every event;
* ``simulation`` — a ``Simulation`` (virtual time, seeded) closed after the test;
* ``virtual_clock`` — the simulation's clock: ``.now``, ``.advance(seconds)``;
* ``handoff_snapshot`` — syrupy's ``snapshot`` storing one text trace per test;
* ``run_scenario`` — run a scenario file or mapping through the plugin's hooks;
* ``handoff_fuzz`` — fuzz a policy configuration: ``handoff_fuzz.check(policy)``;
* ``handoff_models`` — swap the models of a built agent tree by agent name for the test;
* ``openai_agents_capture`` / ``pydantic_ai_capture`` — the test's framework runs recorded
  as a handoff-sim trace (``capture()`` of ``handoff_sim.adapters``; needs the extra).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from syrupy.assertion import SnapshotAssertion

    from handoff_sim.adapters._oai_capture import OpenAIAgentsCapture
    from handoff_sim.adapters._pai_capture import PydanticAICapture
    from handoff_sim.fuzzing._policy import PolicyFuzzer
    from handoff_sim.simulation import Simulation
    from pytest_handoff._builders import (
        AgentBuilder,
        EventRecorder,
        ScriptedModelFactory,
        VirtualClock,
    )
    from pytest_handoff._model_swap import ModelSwap
    from pytest_handoff._runner import ScenarioRunner

__all__ = [
    "agent_builder",
    "event_recorder",
    "handoff_agent",
    "handoff_fuzz",
    "handoff_models",
    "handoff_snapshot",
    "openai_agents_capture",
    "pydantic_ai_capture",
    "run_scenario",
    "scripted_model",
    "simulation",
    "virtual_clock",
]


@pytest.fixture
def scripted_model() -> ScriptedModelFactory:
    """Make strict scripted models: ``scripted_model(["hi", {"error": "boom"}], name="bot")``."""
    from pytest_handoff._builders import ScriptedModelFactory

    return ScriptedModelFactory()


@pytest.fixture
def agent_builder(scripted_model: ScriptedModelFactory) -> AgentBuilder:
    """Build agents with scripted models: ``agent_builder("reviewer", ["LGTM"])``."""
    from pytest_handoff._builders import AgentBuilder

    return AgentBuilder(scripted_model)


@pytest.fixture
def handoff_agent(agent_builder: AgentBuilder) -> AgentBuilder:
    """The same builder as ``agent_builder``, under the plugin's prefix."""
    return agent_builder


@pytest.fixture
def event_recorder() -> EventRecorder:
    """A runtime observer: pass it in ``observers=[...]``; the ``simulation`` fixture does."""
    from pytest_handoff._builders import EventRecorder

    return EventRecorder()


@pytest.fixture
def simulation(
    request: pytest.FixtureRequest, event_recorder: EventRecorder
) -> Iterator[Simulation]:
    """A ``Simulation`` in virtual time; ``@pytest.mark.handoff_simulation(seed=7)`` sets it up.

    ``event_recorder`` and ``pytest_handoff_event`` implementations observe its runs.
    """
    from handoff_sim.simulation import Simulation
    from pytest_handoff._execute import hook_observers

    options: dict[str, Any] = {}
    for mark in reversed(list(request.node.iter_markers("handoff_simulation"))):
        options.update(mark.kwargs)
    observers = [event_recorder, *hook_observers(request.config, None)]
    with Simulation(observers=observers, **options) as sim:
        yield sim


@pytest.fixture
def virtual_clock(simulation: Simulation) -> VirtualClock:
    """The clock of the ``simulation`` fixture: ``.now`` (s), ``.now_ms``, ``.advance(s)``."""
    from pytest_handoff._builders import VirtualClock

    return VirtualClock(simulation)


@pytest.fixture
def handoff_snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    """syrupy's ``snapshot`` writing ``trace.render()`` to ``<test>.trace.txt``.

    ``assert result.trace == handoff_snapshot`` (a Trace, RunResult or ScenarioResult).
    """
    from pytest_handoff._snapshot import TraceSnapshotExtension

    return snapshot.with_defaults(extension_class=TraceSnapshotExtension)


@pytest.fixture
def run_scenario(request: pytest.FixtureRequest) -> ScenarioRunner:
    """Run a scenario: ``run_scenario("checkout.yaml")`` or ``run_scenario({...})``.

    Fails the test with the scenario report when expectations do not hold
    (``check=False`` returns the failing result instead).
    """
    from pytest_handoff._runner import ScenarioRunner

    return ScenarioRunner(request)


@pytest.fixture
def handoff_fuzz() -> PolicyFuzzer:
    """Fuzz your policy in a few lines: ``handoff_fuzz.check({"max_depth": 2})`` (issue 5)."""
    from handoff_sim.fuzzing._policy import PolicyFuzzer

    return PolicyFuzzer()


@pytest.fixture
def handoff_models() -> Iterator[ModelSwap]:
    """Swap models in a built tree by agent name until the test ends, fakes for real ones.

    ``handoff_models(tree, {"researcher": ScriptedModel([...]), "*": SchemaModel()})``:
    every agent the tree reaches (sub-agents, Flink mounts, a SoPhi dispatcher's types)
    may be named; an unknown name is an error naming the known ones.
    """
    from pytest_handoff._model_swap import ModelSwap

    swap = ModelSwap()
    yield swap
    swap.undo()


@pytest.fixture
def openai_agents_capture() -> Iterator[OpenAIAgentsCapture]:
    """The OpenAI Agents SDK runs of the test, recorded: ``openai_agents_capture.trace``.

    Needs the extra ``openai-agents``; without it the fixture raises ``MissingExtraError``.
    """
    from handoff_sim.adapters.openai_agents import capture

    with capture() as cap:
        yield cap


@pytest.fixture
def pydantic_ai_capture() -> Iterator[PydanticAICapture]:
    """The pydantic-ai runs of the test, recorded: ``pydantic_ai_capture.trace``.

    Needs the extra ``pydantic-ai``; without it the fixture raises ``MissingExtraError``.
    """
    from handoff_sim.adapters.pydantic_ai import capture

    with capture() as cap:
        yield cap
