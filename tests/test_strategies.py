"""T6: the public hypothesis strategies produce valid, varied handoff configurations."""

from __future__ import annotations

import re
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from handoff_sim import Agent, HandoffPolicy, SubAgent, normalize_tool_name
from handoff_sim import strategies as hs
from handoff_sim.fuzzing._case import ADVERSARIAL_KNOBS
from handoff_sim.scenarios import ScenarioSpec
from handoff_sim.testing import ScriptedModel
from pytest_handoff._hypothesis import _hypothesis_setup_hook

FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _depth(case: dict[str, Any], name: str) -> int:
    mounts = case["agents"][name].get("subagents", [])
    return 1 + max((_depth(case, m["agent"]) for m in mounts), default=-1)


def _without_knobs(case: dict[str, Any]) -> dict[str, Any]:
    for agent in case["agents"].values():
        block = agent["model"].get("adversarial")
        for knob in ADVERSARIAL_KNOBS:
            if block is not None:
                block.pop(knob, None)
    return case


@FAST
@given(policy=st.from_type(HandoffPolicy))
def test_t6_from_type_handoff_policy_uses_the_registered_strategy(policy: HandoffPolicy) -> None:
    assert isinstance(policy, HandoffPolicy)
    assert policy.max_depth <= 3
    assert policy.max_retries <= 2


@FAST
@given(policy=hs.policies(tools=["subagent_a", "subagent_b"]))
def test_t6_policies_are_valid_and_use_the_given_tools(policy: HandoffPolicy) -> None:
    for names in (policy.allowed_tools, policy.denied_tools):
        assert names is None or names <= {"subagent_a", "subagent_b", "other_tool"}


@FAST
@given(name=hs.names())
def test_t6_names_are_trimmed_and_never_blank(name: str) -> None:
    assert name == name.strip()
    assert name


def test_t6_names_include_unicode_and_colliding_names() -> None:
    from hypothesis import Phase, find

    quick = settings(max_examples=500, phases=[Phase.generate], database=None)
    assert not find(hs.names(), lambda n: not n.isascii(), settings=quick).isascii()
    pair = find(
        st.tuples(hs.names(), hs.names()),
        lambda p: p[0] != p[1] and normalize_tool_name(p[0]) == normalize_tool_name(p[1]),
        settings=quick,
    )
    assert normalize_tool_name(pair[0]) == normalize_tool_name(pair[1])


@FAST
@given(name=hs.tool_names())
def test_t6_tool_names_are_valid_explicit_names(name: str) -> None:
    assert re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name)
    assert not name.startswith("subagent_")


@FAST
@given(steps=hs.scripts(tools=["lookup", "subagent_x"]))
def test_t6_scripts_are_valid_scripted_model_steps(steps: list[Any]) -> None:
    model = ScriptedModel(steps)
    assert len(model.steps) == len(steps)


@FAST
@given(case=hs.scenarios(max_depth=2, max_breadth=3))
def test_t6_scenarios_have_the_scenario_file_shape_and_bounded_trees(case: dict[str, Any]) -> None:
    spec = ScenarioSpec.model_validate(_without_knobs(case))
    assert spec.entry_agent == case["entry"]
    assert 1 <= _depth(case, case["entry"]) <= 2
    for agent in case["agents"].values():
        assert len(agent.get("subagents", [])) <= 3


def test_t6_scenario_schema_accepts_the_adversarial_knobs() -> None:
    block = {"seed": 1, "behaviours": ["fan_out"], "max_turns": 1, "fan_out": 3}
    ScenarioSpec.model_validate(
        {"scenario": "s", "agents": {"a": {"model": {"adversarial": block}}}, "run": ["go"]}
    )


@FAST
@given(agent=hs.agent_trees(max_depth=2, max_breadth=2))
def test_t6_agent_trees_build_agents_of_bounded_depth(agent: Agent) -> None:
    def depth(node: Agent) -> int:
        return 1 + max((depth(m.agent) for m in node.subagents), default=-1)

    assert isinstance(agent, Agent)
    assert 1 <= depth(agent) <= 2


def test_t6_scenarios_reject_unknown_model_kinds() -> None:
    with pytest.raises(ValueError, match="models must name 'adversarial' and/or 'script'"):
        hs.scenarios(models=["gpt"])


@pytest.mark.slow
def test_importing_hypothesis_survives_a_broken_handoff_sim() -> None:
    """The entry point runs wherever handoff-sim is installed: it must never break hypothesis."""
    code = (
        "import sys, handoff_sim\n"
        "sys.modules['handoff_sim.subagents._policy'] = None  # the policy cannot be imported\n"
        "from hypothesis import given, strategies as st\n"
        "@given(st.integers(0, 3))\n"
        "def check(n): assert 0 <= n <= 3\n"
        "check()\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_the_hypothesis_hook_registers_the_policy_strategy() -> None:
    elsewhere = HandoffPolicy(max_depth=99)
    st.register_type_strategy(HandoffPolicy, st.just(elsewhere))  # as if never registered
    try:
        _hypothesis_setup_hook()

        @FAST
        @given(policy=st.from_type(HandoffPolicy))
        def draws_from_policies(policy: HandoffPolicy) -> None:
            assert policy.max_depth <= 3

        draws_from_policies()
    finally:
        st.register_type_strategy(HandoffPolicy, lambda _type: hs.policies())


_IMPORTS = {
    "runtime first": "import handoff_sim, hypothesis",
    # importing hypothesis alone loads no runtime (its entry point waits for the runtime)
    "hypothesis first": "import sys, hypothesis\n"
    "assert 'handoff_sim' not in sys.modules, 'importing hypothesis imported the runtime'\n"
    "import handoff_sim",
    "only the policy, after hypothesis": "import hypothesis\nfrom handoff_sim import HandoffPolicy",
    "strategies": "import handoff_sim.strategies",
}


@pytest.mark.parametrize("first", _IMPORTS.values(), ids=_IMPORTS.keys())
@pytest.mark.slow
def test_t6_from_type_works_whichever_package_is_imported_first(first: str) -> None:
    """Without importing ``handoff_sim.strategies`` by hand, ``from_type`` draws from it."""
    code = (
        f"{first}\n"
        "import sys\n"
        "from hypothesis import strategies as st\n"
        "from handoff_sim import HandoffPolicy\n"
        "drawn = [st.from_type(HandoffPolicy).example() for _ in range(20)]\n"
        "assert all(isinstance(p, HandoffPolicy) for p in drawn)\n"
        "assert 'handoff_sim.strategies' in sys.modules, 'the registered strategy was not used'\n"
        "assert all(p.max_depth <= 3 and p.max_retries <= 2 for p in drawn)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


_TYPES = (
    "from handoff_sim import Agent, SubAgent\n"
    "from handoff_sim.scenarios import ScenarioSpec\n"
    "for kind in (SubAgent, Agent, ScenarioSpec):\n"
    "    drawn = [st.from_type(kind).example() for _ in range(2)]\n"
    "    assert all(isinstance(x, kind) for x in drawn), drawn\n"
)


@pytest.mark.parametrize("first", ["hypothesis", "handoff_sim"])
@pytest.mark.slow
def test_from_type_draws_sub_agents_agent_trees_and_scenarios(first: str) -> None:
    """Registered by the entry point as each type's module loads, in either import order."""
    code = (
        f"import {first}\n"
        "import sys\n"
        "from hypothesis import strategies as st\n"
        "assert 'handoff_sim.strategies' not in sys.modules\n"
        f"{_TYPES}"
        "assert 'handoff_sim.strategies' in sys.modules, 'the registered strategy was not used'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


@FAST
@given(mount=st.from_type(SubAgent))
def test_from_type_sub_agent_mounts_a_built_agent_tree(mount: SubAgent) -> None:
    assert isinstance(mount.agent, Agent)
    assert re.fullmatch(r"[A-Za-z0-9_-]{1,64}", mount.tool_name)


@FAST
@given(spec=st.from_type(ScenarioSpec))
def test_from_type_scenario_spec_is_a_validated_scenario(spec: ScenarioSpec) -> None:
    assert spec.entry_agent in spec.agents
    assert spec.turns()


def test_the_handoff_ci_profile_is_registered_when_hypothesis_loads() -> None:
    ci = settings.get_profile("handoff-ci")  # this process imported hypothesis: the hook ran

    assert ci.derandomize
    assert ci.database is None
    assert ci.deadline is None
    assert ci.print_blob


def test_pytest_chooses_the_handoff_ci_profile_by_name(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_profile="""
        from hypothesis import settings

        def test_profile_is_loaded():
            assert settings.get_current_profile_name() == "handoff-ci"
            assert settings.default.derandomize
        """
    )
    before = settings.get_current_profile_name()
    try:
        result = pytester.runpytest_inprocess(
            "-p", "no:cacheprovider", "--hypothesis-profile=handoff-ci"
        )
    finally:
        settings.load_profile(before)
    result.assert_outcomes(passed=1)
