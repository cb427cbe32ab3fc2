"""T6: the public hypothesis strategies produce valid, varied handoff configurations."""

from __future__ import annotations

import re
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from handoff_sim import Agent, HandoffPolicy, normalize_tool_name
from handoff_sim import strategies as hs
from handoff_sim.fuzzing import ADVERSARIAL_KNOBS
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


def test_hypothesis_hook_is_harmless_when_imports_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "handoff_sim.strategies", None)
    assert _hypothesis_setup_hook() is None
    assert st.from_type(HandoffPolicy) is not None


@pytest.mark.parametrize(
    "first", ["import handoff_sim, hypothesis", "import hypothesis, handoff_sim"]
)
def test_t6_from_type_works_whichever_package_is_imported_first(first: str) -> None:
    code = (
        f"{first}\n"
        "from hypothesis import strategies as st\n"
        "from handoff_sim import HandoffPolicy\n"
        "from handoff_sim.strategies import policies\n"
        "assert repr(st.from_type(HandoffPolicy)) != repr(st.builds(HandoffPolicy))\n"
        "assert isinstance(st.from_type(HandoffPolicy).example(), HandoffPolicy)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_importing_hypothesis_does_not_import_the_runtime() -> None:
    code = "import sys, hypothesis; assert 'handoff_sim' not in sys.modules, 'runtime imported'"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
