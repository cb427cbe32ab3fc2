"""Issue 9, item 7: sub-agent cycles are refused, and the run budget ends any run in bounded work.

A cycle wired in Python (by changing a ``SubAgent.agent`` after construction) is a
ConfigurationError naming it; recursion the wiring cannot see (a dynamic target, a
tool that runs an agent, SoPhi's dispatcher) ends with a BudgetExceededError once the
run's model calls, handoffs or nesting run out. Every case runs through
``run_hostile``: every start has its end and no task is left on the loop.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from handoff_sim import (
    Agent,
    ConfigurationError,
    FailureAction,
    HandoffPolicy,
    ModelRequest,
    SubAgent,
    Tool,
    simulate,
)
from handoff_sim._limits import DEFAULT_MAX_HANDOFFS, DEFAULT_MAX_MODEL_CALLS, MAX_NESTING
from handoff_sim.errors import BudgetExceededError
from handoff_sim.events import HandoffEndEvent
from handoff_sim.messages import ToolCall
from handoff_sim.simulation import Simulation
from handoff_sim.styles.flink import FlinkSubAgent
from handoff_sim.styles.sophi import sophi_agent
from handoff_sim.testing import FunctionModel, ScriptedModel
from tests._helpers import call, delegate, leaf, turn
from tests.hostile._support import run_hostile
from tests.styles._support import definition, delegation

UNLIMITED = HandoffPolicy(max_depth=0)


def always(*calls: dict[str, Any]) -> FunctionModel:
    """A model that asks for ``calls`` on every turn and never answers."""
    return FunctionModel(lambda request: turn(*calls))


class Recurse(SubAgent):
    """A sub-agent tool whose target is looked up per call: recursion the wiring cannot see."""

    __slots__ = ("target_agent",)
    target_agent: Agent

    def target(self, call: ToolCall) -> tuple[Agent, str]:
        return self.target_agent, "again"


def recursing(*, parallel: int = 1, **options: Any) -> Agent:
    """An agent that delegates to itself through a dynamic target, ``parallel`` calls a turn."""
    mount = Recurse("again", agent=leaf("placeholder"))
    agent = Agent(
        "looper",
        always(*[delegate("subagent_again")] * parallel),
        subagents=[mount],
        handoff_policy=UNLIMITED,
        parallel_tool_calls=parallel > 1,
        **options,
    )
    mount.target_agent = agent
    return agent


# -- cycles wired in Python ----------------------------------------------------------------


def manager_and_reviewer() -> Agent:
    """``manager -> reviewer -> manager`` with unlimited depth: the issue's reproduction."""
    back = SubAgent("manager", agent=leaf("placeholder"))
    reviewer = Agent(
        "reviewer", always(delegate("subagent_manager")), subagents=[back], handoff_policy=UNLIMITED
    )
    manager = Agent(
        "manager",
        always(delegate("subagent_reviewer")),
        subagents=[SubAgent("reviewer", agent=reviewer)],
        handoff_policy=UNLIMITED,
    )
    back.agent = manager
    return manager


def test_item7_a_cycle_made_after_construction_is_refused_at_the_first_run_naming_it() -> None:
    outcome = run_hostile(manager_and_reviewer(), expect=ConfigurationError)
    assert "sub-agent cycle: manager -> reviewer -> manager" in str(outcome.error)
    assert len(outcome.trace.events) == 0  # refused before anything ran


def test_item7_a_cycle_is_refused_by_agent_run_and_arun_in_real_time_too() -> None:
    with pytest.raises(ConfigurationError, match="sub-agent cycle: manager -> reviewer -> manager"):
        manager_and_reviewer().run("go")


def test_item7_an_agent_mounted_on_itself_is_a_cycle_of_one() -> None:
    mount = SubAgent("self", agent=leaf("placeholder"))
    agent = Agent("solo", always(delegate("subagent_self")), subagents=[mount])
    mount.agent = agent
    outcome = run_hostile(agent, expect=ConfigurationError)
    assert "sub-agent cycle: solo -> solo" in str(outcome.error)


def test_item7_a_cycle_below_a_new_agent_is_refused_when_that_agent_is_built() -> None:
    cycle = manager_and_reviewer()
    with pytest.raises(ConfigurationError, match="sub-agent cycle: manager -> reviewer -> manager"):
        Agent("boss", ScriptedModel(["hi"]), subagents=[SubAgent("manager", agent=cycle)])


def test_item7_a_cycle_made_through_the_executor_mounts_is_found() -> None:
    child = leaf("child")
    parent = Agent("parent", ScriptedModel(["hi"]), subagents=[SubAgent("child", agent=child)])
    child.executor.mounts["subagent_parent"] = SubAgent("parent", agent=parent)
    with pytest.raises(ConfigurationError, match="sub-agent cycle: parent -> child -> parent"):
        simulate(parent, "go")


def test_item7_a_flink_cycle_is_refused_like_any_other() -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string"}}}
    back = FlinkSubAgent("a", agent=leaf("placeholder"), input_schema=schema)
    b = Agent("b", always(call("subagent_a", {"q": "x"})), subagents=[back])
    a = Agent(
        "a",
        always(call("subagent_b", {"q": "x"})),
        subagents=[FlinkSubAgent("b", agent=b, input_schema=schema)],
    )
    back.agent = a
    with pytest.raises(ConfigurationError, match="sub-agent cycle: a -> b -> a"):
        simulate(a, "go")


def test_item7_a_shared_sub_agent_is_not_a_cycle() -> None:
    shared = leaf("shared", "one", "two")

    def middle(name: str) -> Agent:
        return Agent(
            name,
            ScriptedModel([turn(delegate("subagent_shared")), name]),
            subagents=[SubAgent("shared", agent=shared)],
            handoff_policy=HandoffPolicy(max_depth=2),
        )

    top = Agent(
        "top",
        ScriptedModel([turn(delegate("subagent_left"), delegate("subagent_right")), "done"]),
        subagents=[
            SubAgent("left", agent=middle("left")),
            SubAgent("right", agent=middle("right")),
        ],
        handoff_policy=HandoffPolicy(max_depth=2),
    )
    assert run_hostile(top).result.output == "done"


def test_item7_a_sub_agent_changed_to_a_name_is_refused_at_run_naming_the_tool() -> None:
    mount = SubAgent("reviewer", agent=leaf("reviewer"))
    agent = Agent("manager", ScriptedModel(["hi"]), subagents=[mount])
    mount.agent = "reviewer"  # type: ignore[assignment]
    outcome = run_hostile(agent, expect=ConfigurationError)
    message = str(outcome.error)
    assert "sub-agent tool 'subagent_reviewer' runs str 'reviewer', not an Agent" in message


# -- the budget: nesting ---------------------------------------------------------------------


def test_item7_recursion_through_a_dynamic_target_ends_at_the_nesting_limit() -> None:
    outcome = run_hostile(recursing(), expect=BudgetExceededError)
    error = outcome.error
    assert isinstance(error, BudgetExceededError)
    assert (error.resource, error.limit) == ("nesting", MAX_NESTING)
    assert f"nested {MAX_NESTING + 1} deep" in str(error)
    assert f"limit of {MAX_NESTING} nested agent runs" in str(error)
    depths = {e.depth for e in outcome.trace.events if e.type == "run_start"}
    assert max(depths) == MAX_NESTING


def chain(levels: int, *, timeout: float | None = None) -> Agent:
    """``levels`` agents below a top one, each delegating once to the next."""
    agent = leaf(f"a{levels}", "bottom")
    for index in range(levels - 1, -1, -1):
        agent = Agent(
            f"a{index}",
            ScriptedModel([turn(delegate(f"subagent_a{index + 1}")), f"up from {index}"]),
            subagents=[SubAgent(f"a{index + 1}", agent=agent)],
            handoff_policy=HandoffPolicy(max_depth=0, timeout=timeout),
        )
    return agent


@pytest.mark.parametrize("timeout", [None, 60.0], ids=["no-timeout", "timeout"])
def test_item7_a_chain_exactly_at_the_nesting_limit_runs_without_recursion_error(
    timeout: float | None,
) -> None:
    outcome = run_hostile(chain(MAX_NESTING, timeout=timeout))
    assert outcome.result.output == "up from 0"
    assert max(e.depth for e in outcome.trace.events) == MAX_NESTING


def test_item7_one_level_past_the_nesting_limit_is_a_budget_error_not_recursion_error() -> None:
    outcome = run_hostile(chain(MAX_NESTING + 1), expect=BudgetExceededError)
    assert "agent 'a201' would run nested 201 deep under agent 'a200'" in str(outcome.error)
    ends = [e for e in outcome.trace.events if isinstance(e, HandoffEndEvent)]
    assert len(ends) == MAX_NESTING + 1
    assert all(e.status == "failed" and e.attempts == 1 for e in ends)


def test_item7_a_tool_that_runs_its_own_agent_ends_at_the_nesting_limit() -> None:
    holder: list[Agent] = []

    async def again(q: str) -> str:
        return str((await holder[0].arun(q)).output)

    schema = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
    agent = Agent(
        "tooler", always(call("again", {"q": "x"})), tools=[Tool("again", again, parameters=schema)]
    )
    holder.append(agent)
    outcome = run_hostile(agent, expect=BudgetExceededError)
    assert outcome.error.resource == "nesting"  # type: ignore[union-attr]


# -- the budget: model calls and handoffs ------------------------------------------------------


def test_item7_model_calls_are_capped_per_run_with_a_message_saying_how_to_raise_it() -> None:
    noop = Tool("noop", lambda: "ok")
    agent = Agent("busy", always(call("noop")), tools=[noop], max_steps=10_000)
    outcome = run_hostile(agent, expect=BudgetExceededError, max_model_calls=50)
    error = outcome.error
    assert isinstance(error, BudgetExceededError)
    assert (error.resource, error.limit) == ("model_calls", 50)
    message = str(error)
    assert "agent 'busy' asked for model call 51, over max_model_calls=50" in message
    assert "max_model_calls= to simulate(), Simulation() or Agent.run()/arun()" in message
    requests = [e for e in outcome.trace.events if e.type == "model_request"]
    assert len(requests) == 50


def test_item7_handoffs_are_capped_and_a_parallel_fan_out_unwinds_cleanly() -> None:
    outcome = run_hostile(recursing(parallel=3), expect=BudgetExceededError, max_handoffs=40)
    error = outcome.error
    assert isinstance(error, BudgetExceededError)
    assert (error.resource, error.limit) == ("handoffs", 40)
    assert "over max_handoffs=40" in str(error)
    starts = [e for e in outcome.trace.events if e.type == "handoff_start"]
    assert len(starts) == 40  # the refused handoff never started


def test_item7_a_budget_error_in_a_sub_agent_is_never_retried_nor_reported_to_the_model() -> None:
    busy = Agent("busy", always(call("noop")), tools=[Tool("noop", lambda: "ok")], max_steps=100)
    parent = Agent(
        "parent",
        ScriptedModel([turn(delegate("subagent_busy")), "never"]),
        subagents=[SubAgent("busy", agent=busy)],
        handoff_policy=HandoffPolicy(max_retries=3, on_error=FailureAction.REPORT_TO_MODEL),
    )
    outcome = run_hostile(parent, expect=BudgetExceededError, max_model_calls=20)
    (end,) = [e for e in outcome.trace.events if isinstance(e, HandoffEndEvent)]
    assert (end.status, end.attempts) == ("failed", 1)
    parent_requests = [
        e for e in outcome.trace.events if e.type == "model_request" and e.agent == "parent"
    ]
    assert len(parent_requests) == 1


def test_item7_the_budget_of_a_simulation_spans_its_turns() -> None:
    agent = leaf("talker", "one", "two", "three")
    with Simulation(max_model_calls=2) as sim:
        sim.run(agent, "first")
        sim.run(agent, "second")
        with pytest.raises(BudgetExceededError, match="model call 3, over max_model_calls=2"):
            sim.run(agent, "third")
        assert sim.trace.unbalanced() == []


def test_item7_real_time_runs_take_a_budget_too() -> None:
    agent = Agent("rt", always(call("noop")), tools=[Tool("noop", lambda: "ok")], max_steps=100)
    with pytest.raises(BudgetExceededError, match="over max_model_calls=3"):
        agent.run("go", max_model_calls=3)
    with pytest.raises(BudgetExceededError, match="over max_handoffs=2"):
        recursing().run("go", max_handoffs=2)


def test_item7_a_sophi_dispatcher_with_a_huge_depth_cap_ends_with_the_budget() -> None:
    def delegate_again(request: ModelRequest) -> Any:
        return turn(delegation("recursive", "deeper"))

    agent = sophi_agent(
        "main",
        FunctionModel(delegate_again),
        definitions=[definition("recursive", "delegate_to_subagent")],
        max_delegation_depth=10**9,
    )
    outcome = run_hostile(agent, expect=BudgetExceededError, max_handoffs=60)
    assert outcome.error.resource == "handoffs"  # type: ignore[union-attr]
    outcome = run_hostile(agent, expect=BudgetExceededError)
    assert outcome.error.resource == "nesting"  # type: ignore[union-attr]


def test_item7_the_defaults_are_the_documented_ones() -> None:
    assert (DEFAULT_MAX_MODEL_CALLS, DEFAULT_MAX_HANDOFFS, MAX_NESTING) == (10_000, 10_000, 200)
    with Simulation() as sim:
        budget = sim.environment.budget
        assert (budget.max_model_calls, budget.max_handoffs) == (10_000, 10_000)


# -- the budget's own arguments ------------------------------------------------------------------


@pytest.mark.parametrize("value", [0, -1, True, 2.5, "10", None])
@pytest.mark.parametrize("field", ["max_model_calls", "max_handoffs"])
def test_item7_a_budget_that_is_not_a_positive_int_is_refused_naming_it(
    field: str, value: object
) -> None:
    expected = re.escape(f"{field} must be an int >= 1, got {value!r}")
    given: dict[str, Any] = {field: value}
    with pytest.raises(ConfigurationError, match=expected):
        Simulation(**given)
    with pytest.raises(ConfigurationError, match=expected):
        simulate(leaf("a"), "go", **given)
    if value is not None:  # None means "the default" for a real-time run
        with pytest.raises(ConfigurationError, match=expected):
            leaf("a").run("go", **given)


def test_item7_a_run_inside_a_simulation_cannot_set_its_own_budget() -> None:
    agent = leaf("inner")

    async def nested() -> object:
        return await agent.arun("go", max_model_calls=5)

    outcome = run_hostile(nested, expect=ConfigurationError)
    assert "max_model_calls go to simulate()/Simulation" in str(outcome.error)
