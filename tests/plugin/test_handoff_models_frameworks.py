"""``handoff_models`` on framework graphs: an SDK or pydantic-ai graph runs on fakes by name.

Each test imports its framework's adapter before the in-process pytest run: pytester
restores ``sys.modules`` after a run, so a framework first imported inside it would be
imported again (seconds) by every run. Most of each test's time is that first import of
the framework, once per process.
"""

from __future__ import annotations

import importlib

import pytest

from tests.adapters._extras import installed, needs

SDK_GRAPH = """
from agents import Agent, handoff

spanish = Agent(name="spanish_agent", instructions="Translate to Spanish", model="gpt-4.1")
billing = Agent(name="billing_agent", instructions="Billing", model="gpt-4.1")
orchestrator = Agent(
    name="orchestrator_agent",
    instructions="Translate with your tools",
    model="gpt-4.1",
    tools=[spanish.as_tool(tool_name="translate_to_spanish", tool_description="Spanish")],
    handoffs=[handoff(billing)],
)
"""

PAI_GRAPH = """
from pydantic_ai import Agent, RunContext

joke_selection_agent = Agent("test", system_prompt="Use joke_factory, then pick the best")
joke_generation_agent = Agent("test", output_type=list[str])


@joke_selection_agent.tool
async def joke_factory(ctx: RunContext[None], count: int) -> list[str]:
    r = await joke_generation_agent.run(f"Please generate {count} jokes.", usage=ctx.usage)
    return r.output
"""


@pytest.mark.skipif(not installed("agents"), reason=needs("openai-agents"))
def test_handoff_models_runs_an_sdk_graph_on_fakes_and_puts_its_models_back(
    pytester: pytest.Pytester,
) -> None:
    importlib.import_module("handoff_sim.adapters.openai_agents")
    pytester.makepyfile(graph=SDK_GRAPH)
    pytester.makepyfile(
        """
        from agents import Runner
        from graph import billing, orchestrator, spanish

        from handoff_sim.adapters.openai_agents import simulate_run
        from handoff_sim.testing import ScriptedModel

        ASK = {"tool_calls": [{"name": "translate_to_spanish", "arguments": {"input": "hi"}}]}
        MOVE = {"tool_calls": [{"name": "transfer_to_billing_agent", "arguments": {}}]}


        def test_swapped(handoff_models):
            fakes = {"orchestrator_agent": ScriptedModel([ASK, MOVE])}
            tree = handoff_models(orchestrator, {**fakes, "*": ScriptedModel(["hola", "paid"])})
            assert tree.names == ["billing_agent", "orchestrator_agent", "spanish_agent"]
            run = simulate_run(Runner.run(orchestrator, "hi"))
            assert run.final_output == "paid"
            assert [h.output for h in run.trace.handoffs()] == ["hola"]


        def test_restored_after_the_test():
            assert (orchestrator.model, spanish.model, billing.model) == ("gpt-4.1",) * 3
        """
    )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=2)


@pytest.mark.skipif(not installed("pydantic_ai"), reason=needs("pydantic-ai"))
def test_handoff_models_reaches_a_pydantic_ai_docs_delegation_by_its_agents_name(
    pytester: pytest.Pytester,
) -> None:
    importlib.import_module("handoff_sim.adapters.pydantic_ai")
    pytester.makepyfile(graph=PAI_GRAPH)
    pytester.makepyfile(
        """
        from graph import joke_selection_agent

        from handoff_sim.adapters.pydantic_ai import simulate_run
        from handoff_sim.testing import ScriptedModel

        JOKES = {"tool_calls": [{"name": "final_result", "arguments": {"response": ["a", "b"]}}]}
        ASK = {"tool_calls": [{"name": "joke_factory", "arguments": {"count": 2}}]}


        def test_swapped(handoff_models):
            generator = ScriptedModel([JOKES])
            tree = handoff_models(
                joke_selection_agent,
                {"joke_generation_agent": generator, "*": ScriptedModel([ASK, "b is best"])},
            )
            assert tree.names == ["joke_generation_agent"]
            run = simulate_run(lambda: joke_selection_agent.run("Tell me a joke."))
            assert run.final_output == "b is best"
            generator.assert_complete()
        """
    )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_handoff_models_still_refuses_what_is_no_agent(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        from handoff_sim import ConfigurationError


        def test_refused(handoff_models):
            with pytest.raises(ConfigurationError, match="the first argument must be an Agent"):
                handoff_models(object(), {})
        """
    )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)
