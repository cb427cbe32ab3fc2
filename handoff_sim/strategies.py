"""Hypothesis strategies for handoff configurations: names, policies, scripts, scenarios.

Every function returns a strategy, so you can pass parameters and pay nothing
at import time::

    from hypothesis import given
    from handoff_sim import strategies as hs

    @given(policy=hs.policies(), scenario=hs.scenarios(max_depth=2))
    def test_my_runtime(policy, scenario): ...

``st.from_type`` knows four handoff types: ``HandoffPolicy`` (:func:`policies`),
``SubAgent`` (:func:`sub_agents`), ``Agent`` (:func:`agent_trees`) and
``ScenarioSpec`` (:func:`scenario_specs`). They are registered by the ``hypothesis``
entry point of this package as soon as hypothesis and the type's module are both
imported (in either order), and again by :func:`register_type_strategies`, which
importing this module calls; set ``HYPOTHESIS_NO_PLUGINS`` and import this module
to get them without the entry point. Scenario dicts have the scenario-file shape
(``handoff_sim.scenarios``); adversarial model blocks may carry ``max_turns``,
``fan_out`` and ``oversized_bytes`` knobs.

Scenarios, scripts, policy blocks and adversarial blocks are one generator
(``handoff_sim.fuzzing._generate``) fed by hypothesis' draws: each choice is a small
integer whose smallest value is the simpler case, so failures shrink to small trees.
"""

from handoff_sim.fuzzing._strategies import (
    adversarial_specs,
    agent_trees,
    durations,
    names,
    policies,
    policy_dicts,
    register_type_strategies,
    scenario_specs,
    scenarios,
    scripts,
    sub_agents,
    tool_names,
)

__all__ = [
    "adversarial_specs",
    "agent_trees",
    "durations",
    "names",
    "policies",
    "policy_dicts",
    "register_type_strategies",
    "scenario_specs",
    "scenarios",
    "scripts",
    "sub_agents",
    "tool_names",
]
