"""``handoff_models``: a project's real agent graph runs on fakes, swapped by agent name."""

from __future__ import annotations

import pytest

GRAPH = """
from handoff_sim import Agent, HandoffPolicy, SubAgent
from handoff_sim.styles.sophi import AgentDefinition, sophi_agent


class RealModel:
    '''Stands for a provider client: calling it in a test is the bug.'''

    model_name = "gpt-real"

    async def complete(self, request):
        raise AssertionError(f"the real model was called for {request.agent}")


REAL = RealModel()


def build_graph():
    '''The application's tree: triage -> researcher -> searcher, and a SoPhi desk.'''
    searcher = Agent("searcher", REAL)
    researcher = Agent(
        "researcher", REAL, subagents=[searcher], handoff_policy=HandoffPolicy(max_depth=2)
    )
    desk = sophi_agent(
        "desk",
        REAL,
        definitions=[AgentDefinition(name="clerk", description="files", system_prompt="File.")],
    )
    return Agent(
        "triage",
        REAL,
        subagents=[SubAgent("researcher", "Facts", researcher, tool_name="research"), desk],
    )
"""


def test_handoff_models_runs_a_built_graph_on_fakes_and_restores_it(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(graph=GRAPH)
    pytester.makepyfile(
        """
        from graph import REAL, build_graph

        from handoff_sim import simulate
        from handoff_sim.testing import SchemaModel, ScriptedModel

        TREE = build_graph()


        def test_swapped(handoff_models):
            researcher = ScriptedModel(["facts"])
            clerk = ScriptedModel(["filed"])
            fake = SchemaModel(
                arguments={"delegate_to_subagent": {"subagent_type": "clerk", "prompt": "p"}}
            )
            agents = handoff_models(TREE, {"researcher": researcher, "clerk": clerk, "*": fake})
            assert agents.names == ["clerk", "desk", "researcher", "searcher", "triage"]
            result = simulate(TREE, "go")
            assert [(h.subagent, h.status) for h in result.trace.handoffs()] == [
                ("researcher", "completed"),
                ("desk", "completed"),
                ("clerk", "completed"),
            ]
            assert researcher.remaining == 0 and clerk.remaining == 0


        def test_restored_after_the_test():
            assert TREE.model is REAL
            assert TREE.model_name == "gpt-real"


        def test_unknown_name(handoff_models):
            handoff_models(TREE, {"reseacher": SchemaModel()})
        """
    )
    result = pytester.runpytest_inprocess()
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*ConfigurationError: override_models: no agent named 'reseacher' in the tree of "
            "'triage'; known agents: clerk, desk, researcher, searcher, triage "
            "(or '*' for every other agent)",
        ]
    )


def test_handoff_models_swaps_stack_and_unwind_at_teardown(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(graph=GRAPH)
    pytester.makepyfile(
        """
        from graph import REAL, build_graph

        from handoff_sim import simulate
        from handoff_sim.testing import ScriptedModel

        TREE = build_graph()


        def test_two_swaps(handoff_models):
            handoff_models(TREE, {"triage": ScriptedModel(["first"])})
            handoff_models(TREE, {"triage": ScriptedModel(["second"])})
            assert simulate(TREE, "go").output == "second"


        def test_after():
            assert TREE.model is REAL
        """
    )
    pytester.runpytest_inprocess().assert_outcomes(passed=2)
