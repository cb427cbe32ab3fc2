"""Issue 9, item 19: misuse at construction is a typed error that says what to do instead.

Each wrong argument is refused where it is given, naming the agent (or sub-agent), the
argument and what to pass; nothing is accepted now only to fail obscurely during a run.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from handoff_sim import (
    Agent,
    ConfigurationError,
    DuplicateToolNameError,
    SubAgent,
    Tool,
    simulate,
    tool,
)
from handoff_sim._errors._configuration import InvalidNameError
from handoff_sim._limits import MAX_STEPS
from handoff_sim.errors import FunctionModelError, ScriptError
from handoff_sim.messages import ModelRequest, ToolCall
from handoff_sim.simulation import Simulation
from handoff_sim.testing import FunctionModel, ScriptedModel
from pytest_handoff import assert_duplicate_tool_names
from tests._helpers import call, delegate, leaf, turn
from tests.hostile._support import run_hostile


@tool
def lookup(q: str) -> str:
    """Look something up."""
    return f"found {q}"


def model() -> ScriptedModel:
    return ScriptedModel(["hi"])


# -- SubAgent -----------------------------------------------------------------------------------


def test_item19_a_subagent_given_an_agent_name_is_refused_at_construction() -> None:
    with pytest.raises(ConfigurationError) as info:
        SubAgent("reviewer", agent="reviewer")  # type: ignore[arg-type]
    assert str(info.value) == (
        "subagent 'reviewer': agent must be an Agent, got str 'reviewer' "
        "(a name is not looked up: pass the Agent object itself)"
    )


def test_item19_a_subagent_given_a_model_instead_of_an_agent_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="agent must be an Agent, got ScriptedModel"):
        SubAgent("reviewer", agent=model())  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"name": 7}, "subagent name must be a str, got int 7"),
        ({"description": 3}, "subagent 'reviewer': description must be a str, got int 3"),
        ({"tool_name": ["x"]}, "subagent 'reviewer': tool_name must be a str, got list ['x']"),
    ],
)
def test_item19_subagent_text_arguments_must_be_text(kwargs: dict[str, Any], message: str) -> None:
    given: dict[str, Any] = {"name": "reviewer", "agent": leaf("reviewer"), **kwargs}
    with pytest.raises(ConfigurationError, match=re.escape(message)):
        SubAgent(**given)


# -- Agent: tools and sub-agents ----------------------------------------------------------------


def test_item19_a_bare_function_as_a_tool_says_to_use_the_tool_decorator() -> None:
    with pytest.raises(ConfigurationError) as info:
        Agent("bot", model(), tools=[lambda q: q])  # type: ignore[list-item]
    assert str(info.value) == (
        "agent 'bot': tools[0] is function <lambda>, not a Tool; "
        "decorate the function with @tool or wrap it in Tool(name, fn)"
    )


@pytest.mark.parametrize(
    ("tools", "message"),
    [
        (["lookup"], "tools[0] is str 'lookup', not a Tool; pass Tool objects"),
        ([lookup, 3], "tools[1] is int 3, not a Tool"),
        (lookup, "tools must be a list of Tool objects, got Tool"),
        ("lookup", "tools must be a list of Tool objects, got str 'lookup'"),
        ({"lookup": lookup}, "tools must be a list of Tool objects, got dict"),
    ],
)
def test_item19_tools_must_be_a_list_of_tool_objects(tools: Any, message: str) -> None:
    with pytest.raises(ConfigurationError, match=re.escape(f"agent 'bot': {message}")):
        Agent("bot", model(), tools=tools)


def test_item19_a_plain_agent_in_subagents_is_mounted_under_its_own_name() -> None:
    reviewer = leaf("code reviewer", "LGTM")
    manager = Agent(
        "manager",
        ScriptedModel([turn(delegate("subagent_code_reviewer", "review")), "shipped"]),
        subagents=[reviewer],
    )
    (mount,) = manager.subagents
    assert (mount.name, mount.tool_name, mount.agent) == (
        "code reviewer",
        "subagent_code_reviewer",
        reviewer,
    )
    outcome = run_hostile(manager)
    assert outcome.result.output == "shipped"
    (record,) = outcome.trace.handoffs()
    assert (record.subagent, record.status) == ("code reviewer", "completed")


@pytest.mark.parametrize(
    ("subagents", "message"),
    [
        (["reviewer"], "subagents[0] is str 'reviewer', not a SubAgent"),
        ([lookup], "subagents[0] is Tool"),
        ("reviewer", "subagents must be a list of SubAgent objects, got str 'reviewer'"),
    ],
)
def test_item19_subagents_must_be_subagents_or_agents(subagents: Any, message: str) -> None:
    with pytest.raises(ConfigurationError) as info:
        Agent("manager", model(), subagents=subagents)
    assert f"agent 'manager': {message}" in str(info.value)
    if "not a SubAgent" in message:
        assert "pass SubAgent(name, description, agent=...) or an Agent" in str(info.value)


# -- Agent: the other arguments -----------------------------------------------------------------


class NoMethods:
    """An object that is neither a store nor an executor."""


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"handoff_policy": {"max_depth": 2}},
            "handoff_policy must be a HandoffPolicy, got dict {'max_depth': 2}; "
            "pass HandoffPolicy(**{...})",
        ),
        ({"parallel_tool_calls": "yes"}, "parallel_tool_calls must be True or False, got str"),
        ({"system_prompt": 5}, "system_prompt must be a str or None, got int 5"),
        ({"model_name": 5}, "model_name must be a str or None, got int 5"),
        ({"max_steps": True}, "max_steps must be an int, got bool True"),
        ({"max_steps": 2.5}, "max_steps must be an int, got float 2.5"),
        ({"max_steps": 0}, "max_steps must be >= 1, got 0"),
        ({"max_steps": MAX_STEPS + 1}, f"max_steps must be <= {MAX_STEPS}, got {MAX_STEPS + 1}"),
        (
            {"session_store": NoMethods()},
            "session_store must be an object with save(session) and load(id) (a SessionStore)",
        ),
        (
            {"tool_executor": NoMethods()},
            "tool_executor must be an object with execute(call) (a ToolExecutor) or None",
        ),
    ],
    ids=lambda value: next(iter(value)) if isinstance(value, dict) else "",
)
def test_item19_each_agent_argument_of_the_wrong_kind_is_named_with_what_to_pass(
    kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigurationError) as info:
        Agent("bot", model(), **kwargs)
    assert str(info.value).startswith(f"agent 'bot': {message}")


def test_item19_max_steps_at_its_bound_is_accepted() -> None:
    assert Agent("bot", model(), max_steps=MAX_STEPS).max_steps == MAX_STEPS


@pytest.mark.parametrize("name", [7, None, b"bot"])
def test_item19_an_agent_name_that_is_not_text_is_an_invalid_name(name: Any) -> None:
    with pytest.raises(InvalidNameError, match="agent name must be a str, got"):
        Agent(name, model())


def test_item19_a_missing_model_says_which_fakes_to_use() -> None:
    with pytest.raises(ConfigurationError, match="use ScriptedModel or FunctionModel"):
        Agent("bot", "gpt-4o")  # type: ignore[arg-type]


# -- entry points -------------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["a", None, lookup])
def test_item19_simulate_and_simulation_run_take_an_agent_first(target: Any) -> None:
    with pytest.raises(ConfigurationError, match=r"simulate\(\): the first argument must be"):
        simulate(target, "go")
    with Simulation() as sim, pytest.raises(ConfigurationError, match="must be an Agent"):
        sim.run(target, "go")


@pytest.mark.parametrize(("user_input", "shown"), [(None, "NoneType None"), (5, "int 5")])
def test_item19_a_run_input_that_is_not_text_is_refused(user_input: Any, shown: str) -> None:
    with pytest.raises(ConfigurationError, match=f"user_input must be a str, got {shown}"):
        simulate(leaf("a"), user_input)


def test_item19_a_session_that_is_neither_session_nor_id_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="session must be a Session, a session id or None"):
        simulate(leaf("a"), "go", session=42)  # type: ignore[arg-type]


# -- fake models --------------------------------------------------------------------------------


def test_item19_a_scripted_model_given_one_string_is_refused_with_the_list_to_write() -> None:
    with pytest.raises(ConfigurationError) as info:
        ScriptedModel("hi")
    assert str(info.value) == (
        "ScriptedModel takes a list of steps, got str 'hi' (it would be read one character "
        "per step); write ScriptedModel(['hi']) for one text answer"
    )


@pytest.mark.parametrize(
    ("steps", "message"),
    [
        ({"text": "hi"}, "got one dict; write ScriptedModel([{...}]) for a script of one step"),
        (5, "got int 5"),
        (b"hi", "got bytes b'hi'"),
    ],
)
def test_item19_a_scripted_model_takes_a_list_of_steps(steps: Any, message: str) -> None:
    with pytest.raises(ConfigurationError, match=re.escape(message)):
        ScriptedModel(steps)


def test_item19_a_scripted_model_takes_any_iterable_of_steps() -> None:
    model = ScriptedModel(step for step in ["one", "two"])
    assert model.remaining == 2


def test_item19_a_function_model_returning_an_int_names_the_function_and_the_step() -> None:
    def answer(request: ModelRequest) -> Any:
        return turn(call("lookup", {"q": "x"})) if len(request.messages) < 3 else 42

    outcome = run_hostile(Agent("bot", FunctionModel(answer), tools=[lookup]), expect=ScriptError)
    assert isinstance(outcome.error, FunctionModelError)
    message = str(outcome.error)
    assert message.startswith(
        "agent 'bot', function step 2: the FunctionModel function returned int 42; return "
    )
    assert "script" not in message


def test_item19_a_bad_step_dict_from_a_function_model_names_the_function_step() -> None:
    agent = Agent("bot", FunctionModel(lambda request: {"txt": "typo"}))
    outcome = run_hostile(agent, expect=FunctionModelError)
    assert str(outcome.error) == (
        "agent 'bot', function step 1: unknown key(s) ['txt'] "
        "(returned by the FunctionModel function)"
    )


def test_item19_a_function_model_error_in_a_sub_agent_aborts_instead_of_being_retried() -> None:
    from handoff_sim import HandoffPolicy

    child = Agent("child", FunctionModel(lambda request: 3.5))
    parent = Agent(
        "parent",
        ScriptedModel([turn(delegate("subagent_child")), "never"]),
        subagents=[child],
        handoff_policy=HandoffPolicy(max_retries=2),
    )
    outcome = run_hostile(parent, expect=FunctionModelError)
    (record,) = outcome.trace.handoffs()
    assert (record.status, record.attempts) == ("failed", 1)


def test_item19_a_function_model_step_dict_keeps_its_latency() -> None:
    agent = Agent("bot", FunctionModel(lambda request: {"text": "late", "latency": "2s"}))
    result = simulate(agent, "go")
    assert (result.output, result.elapsed_ms) == ("late", 2000)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"fn": "answer"}, "FunctionModel takes a function of the request, got str 'answer'"),
        ({"fn": len, "latency": -1}, "FunctionModel latency: invalid duration -1"),
    ],
)
def test_item19_function_model_arguments_are_checked(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigurationError, match=re.escape(message)):
        FunctionModel(**kwargs)


# -- duplicate names ----------------------------------------------------------------------------


def test_item19_two_plain_tools_with_one_name_are_not_called_subagent_tools() -> None:
    twin = Tool("lookup", lambda q: q)
    with pytest.raises(DuplicateToolNameError) as info:
        Agent("bot", model(), tools=[lookup, twin])
    assert (str(info.value), info.value.name, info.value.subagent) == (
        "duplicate tool name: lookup",
        "lookup",
        False,
    )


def test_item19_a_plain_tool_clashing_with_a_subagent_tool_keeps_the_pinned_message() -> None:
    clash = Tool("review", lambda q: q)
    mount = SubAgent("reviewer", agent=leaf("reviewer"), tool_name="review")
    with pytest.raises(DuplicateToolNameError) as info:
        Agent("bot", model(), tools=[clash], subagents=[mount])
    assert (str(info.value), info.value.subagent) == ("duplicate subagent tool name: review", True)


def test_item19_the_plugin_assertion_accepts_both_duplicate_messages() -> None:
    twin = Tool("lookup", lambda q: q)
    error = assert_duplicate_tool_names(Agent, "bot", model(), tools=[lookup, twin])
    assert error.name == "lookup"
    mounts = [SubAgent("a", agent=leaf("a")), SubAgent("A", agent=leaf("b"))]
    error = assert_duplicate_tool_names(
        Agent, "bot", model(), subagents=mounts, duplicate="subagent_a"
    )
    assert str(error) == "duplicate subagent tool name: subagent_a"


class StandInMount(SubAgent):
    """A mount whose target finds the real agent per call, as the framework adapters do."""

    __slots__ = ()
    mounts_stand_in = True

    def target(self, call: ToolCall) -> tuple[Agent, str]:
        return leaf("real", "from the real agent"), "task"


class StandIn:
    """Only a name: what a framework adapter mounts before a call picks the real agent."""

    name = "framework agent"


def test_item19_only_a_mount_that_picks_its_agent_per_call_takes_a_stand_in() -> None:
    with pytest.raises(ConfigurationError, match="agent must be an Agent, got StandIn"):
        SubAgent("framework", agent=StandIn())  # type: ignore[arg-type]
    mount = StandInMount("framework", agent=StandIn())  # type: ignore[arg-type]
    parent = Agent(
        "parent", ScriptedModel([turn(delegate("subagent_framework")), "done"]), subagents=[mount]
    )
    outcome = run_hostile(parent)
    assert outcome.result.output == "done"
    (record,) = outcome.trace.handoffs()
    assert record.output == "from the real agent"
