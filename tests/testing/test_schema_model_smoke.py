"""Smoke test: the bundled agent trees run on the schema-driven fake, without any script.

The example projects' trees and every agent tree a bundled scenario file builds get
``SchemaModel`` for every agent (``override_models(tree, {"*": fake})``): each agent
calls every tool it is offered once and answers, and every handoff started ends.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from handoff_sim import Agent, HandoffDeniedError
from handoff_sim._sessions import InMemorySessionStore
from handoff_sim.errors import ScenarioError
from handoff_sim.events import HandoffStartEvent
from handoff_sim.scenarios._build import (
    BuildContext,
    build_entry_agent,
    build_models,
    build_type_models,
)
from handoff_sim.scenarios._load import LoadedScenario, load_file
from handoff_sim.simulation import Simulation
from handoff_sim.testing import SchemaModel, override_models
from tests.hostile._support import open_starts

ROOT = Path(__file__).resolve().parents[2]
SCENARIO_FILES = sorted((ROOT / "scenarios").rglob("*.yaml"))


def _example(project: str) -> ModuleType:
    """The application module ``triage.py`` of an example project, imported by path."""
    path = ROOT / "examples" / project / "triage.py"
    spec = importlib.util.spec_from_file_location(f"_smoke_{project}", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _balanced(events: object) -> None:
    unbalanced = open_starts(events)  # type: ignore[arg-type]
    assert not unbalanced, unbalanced


def test_the_pydantic_ai_example_tree_runs_on_the_schema_model() -> None:
    pytest.importorskip("pydantic_ai", reason="the pydantic-ai example needs the extra")
    from handoff_sim.adapters.pydantic_ai import SimModel, simulate_run

    triage = _example("pydantic_ai_triage")
    fake = SchemaModel()
    agent = triage.build_triage(SimModel(fake), SimModel(fake), SimModel(fake))
    run = simulate_run(lambda: agent.run("How far away is the Moon?"))
    assert [(h.tool, h.subagent, h.status) for h in run.trace.handoffs()] == [
        ("research", "researcher", "completed"),
        ("write", "writer", "completed"),
    ]
    _balanced(run.trace.events)
    assert [r.agent for r in fake.requests].count("triage") == 2  # the calls, then the answer


def test_the_openai_agents_example_tree_runs_on_the_schema_model() -> None:
    pytest.importorskip("agents", reason="the OpenAI Agents example needs the extra")
    from handoff_sim.adapters.openai_agents import SimModel, simulate_run

    triage = _example("openai_agents_triage")
    fake = SchemaModel()
    agent = triage.build_triage(SimModel(fake), SimModel(fake), SimModel(fake))
    run = simulate_run(lambda: triage.answer("How far away is the Moon?", agent))
    assert run.trace.handoffs()
    _balanced(run.trace.events)


def _trees() -> Iterator[LoadedScenario]:
    """Every bundled scenario that loads (a file that does not is the loader tests' failure)."""
    for path in SCENARIO_FILES:
        try:
            loaded = load_file(path)
        except ScenarioError:
            continue
        yield from (s for s in loaded if s.load_error is None)


def _build(scenario: LoadedScenario) -> Agent | None:
    """The scenario's entry agent as its file builds it; None when building is the point."""
    spec = scenario.spec

    def locate(field: str) -> str:
        return str(scenario.path)

    context = BuildContext(
        agent_types=scenario.agent_types,
        type_models=build_type_models(spec, (), locate),
        session_store=InMemorySessionStore(),
        tool_runs={},
    )
    try:
        return build_entry_agent(spec, build_models(spec, (), locate), context)
    except Exception:  # the scenario expects this construction to be refused
        return None


@pytest.mark.parametrize(
    "scenario",
    list(_trees()),
    ids=lambda s: f"{s.path.relative_to(ROOT)}::{s.name}",
)
def test_every_bundled_scenario_tree_runs_on_the_schema_model(scenario: LoadedScenario) -> None:
    agent = _build(scenario)
    if agent is None:
        assert scenario.spec.expect is not None
        return
    fake = {"*": SchemaModel()}
    with override_models(agent, fake) as tree, Simulation(seed=scenario.seed) as sim:
        try:
            output = sim.run(agent, "go").output
        except HandoffDeniedError:  # a policy may fail the run on a denial (on_denied: fail)
            output = "denied"
        trace = sim.trace
    assert output
    delegates = any(a.subagents for found in tree.agents.values() for a in found)
    assert bool(trace.of_type(HandoffStartEvent)) == delegates  # each sub-agent tool called
    _balanced(trace.events)
