"""Issue 20, item 3: an adversarial fuzz of a docs-style agent graph reaches every sub-agent.

``AdversarialModel`` drives the top agent; each sub-agent runs on a ``SchemaModel`` of its
own, whose recorded requests count the sub-agent's model calls. Over a handful of seeds
every sub-agent must be called (before, the SDK's ``{"input": ...}`` agent tools and
pydantic-ai's own delegation tools were never called right: 0 sub-agent calls in 20
seeds), and every run keeps its trace balanced and its invariants. Each test makes ten
whole framework runs, under 0.1 s each; the first to run also pays for importing the
framework (seconds, for openai-agents).
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from handoff_sim import check_invariants
from handoff_sim.testing import AdversarialModel, AdversarialModelError, SchemaModel
from tests.adapters._extras import installed, needs
from tests.hostile._support import open_starts

ROOT = Path(__file__).resolve().parents[2]
SEEDS = range(10)

oai = pytest.mark.skipif(not installed("agents"), reason=needs("openai-agents"))
pai = pytest.mark.skipif(not installed("pydantic_ai"), reason=needs("pydantic-ai"))

# One run: the top model, a fake per sub-agent by name -> the run (with .trace and .error)
Graph = Callable[[AdversarialModel, dict[str, SchemaModel]], Any]


def _example(project: str) -> ModuleType:
    """The application module ``triage.py`` of an example project, imported by path."""
    path = ROOT / "examples" / project / "triage.py"
    spec = importlib.util.spec_from_file_location(f"_adversarial_{project}", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _fuzz(graph: Graph, subagents: list[str], errors: tuple[type[BaseException], ...]) -> None:
    """Run ``graph`` under each seed; every sub-agent's model is called in some run."""
    calls = dict.fromkeys(subagents, 0)
    for seed in SEEDS:
        fakes = {name: SchemaModel(seed=seed) for name in subagents}
        run = graph(AdversarialModel(seed, max_turns=3, fan_out=8), fakes)
        assert run.error is None or isinstance(run.error, (*errors, AdversarialModelError)), (
            seed,
            run.error,
        )
        assert open_starts(run.trace.events) == [], seed
        assert check_invariants(run.trace) == [], seed
        for name, fake in fakes.items():
            calls[name] += len(fake.requests)
    assert all(calls.values()), f"sub-agent model calls over seeds {SEEDS}: {calls}"


@oai
def test_an_adversarial_fuzz_of_the_openai_agents_example_reaches_both_sub_agents() -> None:
    from agents import Runner
    from agents.exceptions import AgentsException

    from handoff_sim.adapters.openai_agents import SimModel, simulate_run

    triage = _example("openai_agents_triage")

    def graph(top: AdversarialModel, fakes: dict[str, SchemaModel]) -> Any:
        agent = triage.build_triage(
            SimModel(top), SimModel(fakes["researcher"]), SimModel(fakes["writer"])
        )
        return simulate_run(Runner.run(agent, "go"), seed=top.seed, raise_errors=False)

    _fuzz(graph, ["researcher", "writer"], (AgentsException,))


@pai
def test_an_adversarial_fuzz_of_the_pydantic_ai_example_reaches_both_sub_agents() -> None:
    from pydantic_ai.exceptions import AgentRunError, UserError

    from handoff_sim.adapters.pydantic_ai import SimModel, simulate_run

    triage = _example("pydantic_ai_triage")

    def graph(top: AdversarialModel, fakes: dict[str, SchemaModel]) -> Any:
        agent = triage.build_triage(
            SimModel(top), SimModel(fakes["researcher"]), SimModel(fakes["writer"])
        )
        return simulate_run(lambda: agent.run("go"), seed=top.seed, raise_errors=False)

    _fuzz(graph, ["researcher", "writer"], (AgentRunError, UserError))


@pai
def test_an_adversarial_fuzz_reaches_a_pydantic_ai_docs_style_delegation_tool() -> None:
    """pydantic-ai's agent delegation example: the tool takes the user's own ``count``."""
    from pydantic_ai.exceptions import AgentRunError, UserError

    from handoff_sim.adapters.pydantic_ai import SimModel, simulate_run
    from tests.adapters._pai_joke_delegation import joke_agents

    def graph(top: AdversarialModel, fakes: dict[str, SchemaModel]) -> Any:
        agent = joke_agents(SimModel(top), SimModel(fakes["joke_generation_agent"]))
        return simulate_run(lambda: agent.run("Tell me a joke."), seed=top.seed, raise_errors=False)

    _fuzz(graph, ["joke_generation_agent"], (AgentRunError, UserError))


@oai
def test_an_adversarial_fuzz_reaches_openai_agents_docs_style_agents_as_tools() -> None:
    """The SDK's agents-as-tools example: ``Agent.as_tool`` takes ``{"input": ...}``."""
    from agents import Agent, Runner
    from agents.exceptions import AgentsException

    from handoff_sim.adapters.openai_agents import SimModel, simulate_run

    def graph(top: AdversarialModel, fakes: dict[str, SchemaModel]) -> Any:
        spanish = Agent(
            name="spanish_agent",
            instructions="You translate the user's message to Spanish",
            model=SimModel(fakes["spanish_agent"]),
        )
        french = Agent(
            name="french_agent",
            instructions="You translate the user's message to French",
            model=SimModel(fakes["french_agent"]),
        )
        orchestrator = Agent(
            name="orchestrator_agent",
            instructions="You are a translation agent. You use the tools given to you.",
            model=SimModel(top),
            tools=[
                spanish.as_tool("translate_to_spanish", "Translate the message to Spanish"),
                french.as_tool("translate_to_french", "Translate the message to French"),
            ],
        )
        run = Runner.run(orchestrator, "Say 'Hello, how are you?' in Spanish.")
        return simulate_run(run, seed=top.seed, raise_errors=False)

    _fuzz(graph, ["spanish_agent", "french_agent"], (AgentsException,))
