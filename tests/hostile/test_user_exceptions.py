"""Hostile user code: exceptions whose ``__str__`` raises, and KeyboardInterrupt, SystemExit
or GeneratorExit raised by a tool or a model, at the top or inside (parallel) sub-agents.

The interrupt may propagate (it is the user's), but first every start gets its end, with
status ``cancelled``, every sibling task is cancelled and awaited, and the attempt count is
the true one.
"""

from __future__ import annotations

import asyncio
import gc
import logging
from typing import Any

import pytest

from handoff_sim import (
    Agent,
    FailureAction,
    HandoffPolicy,
    SubAgent,
    Trace,
    hookimpl,
    simulate,
    tool,
)
from handoff_sim._tools import format_tool_error
from handoff_sim.events import Event
from handoff_sim.messages import ModelRequest, ToolCall
from handoff_sim.scenarios._expect import describe_error as describe_scenario_error
from handoff_sim.styles.flink import FlinkSubAgent
from handoff_sim.styles.sophi import AgentDefinition, sophi_agent
from handoff_sim.subagents._executor import safe_message
from handoff_sim.testing import FunctionModel, ScriptedModel
from tests._helpers import call, delegate, leaf, parent_of, turn
from tests.hostile._support import open_starts, run_hostile

UNAVAILABLE = "Unprintable (message unavailable: its __str__ raised RuntimeError)"


class Unprintable(Exception):
    """An exception whose ``__str__`` itself raises."""

    def __str__(self) -> str:
        raise RuntimeError("no text for you")


def fields(trace: Trace, event_type: str) -> list[dict[str, Any]]:
    """The events of one type, as dicts."""
    return [e.to_dict() for e in trace.of_type(event_type)]


def tool_ends(trace: Trace) -> dict[str, tuple[str, str | None]]:
    """``call_id -> (status, output)`` of every top-level and nested ``tool_end``."""
    return {e["call_id"]: (e["status"], e["output"]) for e in fields(trace, "tool_end")}


# -- an exception whose __str__ raises (issue item 2) --------------------------------------


@pytest.mark.parametrize(
    "error",
    [
        Unprintable(),
        type("BadType", (Exception,), {"__str__": lambda self: 42})(),
        type("Recursive", (Exception,), {"__str__": lambda self: str(self)})(),
    ],
    ids=["raises", "not-a-string", "recursive"],
)
def test_the_safe_formatters_never_raise(error: Exception) -> None:
    name = type(error).__name__
    text = f"{name} (message unavailable: its __str__ raised "
    assert format_tool_error(error).startswith(f"Error: {text}")
    assert safe_message(error).startswith(text)
    assert describe_scenario_error(error).startswith(text)


def test_a_tool_whose_exception_cannot_be_printed_is_an_error_result_and_the_run_goes_on() -> None:
    @tool
    def broken(q: str) -> str:
        """Fail with an unprintable error."""
        raise Unprintable

    model = ScriptedModel([turn(call("broken", {"q": "x"}, id="c1")), "went on"])
    outcome = run_hostile(Agent("main", model, tools=[broken]))
    assert outcome.result.output == "went on"
    assert tool_ends(outcome.trace) == {"c1": ("error", f"Error: {UNAVAILABLE}")}


@pytest.mark.parametrize("style", ["default", "flink", "sophi"])
def test_a_sub_agent_failing_with_an_unprintable_error_is_reported_in_every_style(
    style: str,
) -> None:
    child_model = ScriptedModel([Unprintable()])
    if style == "sophi":
        agent = sophi_agent(
            "main",
            ScriptedModel(
                [
                    turn(
                        call(
                            "delegate_to_subagent",
                            {"subagent_type": "helper", "prompt": "p"},
                            id="c1",
                        )
                    ),
                    "went on",
                ]
            ),
            definitions=[AgentDefinition(name="helper", description="h", system_prompt="Help.")],
            models={"helper": child_model},
            handoff_policy=HandoffPolicy(max_depth=0, on_error=FailureAction.REPORT_TO_MODEL),
        )
        expected = f"Error: {UNAVAILABLE}"
    else:
        child = Agent("child", child_model)
        mount = (
            FlinkSubAgent("child", agent=child, input_schema={"type": "object"})
            if style == "flink"
            else SubAgent("child", "c", child, tool_name="subagent_child")
        )
        agent = parent_of([mount], turn(delegate("subagent_child", id="c1")), final="went on")
        expected = (
            f"Sub-agent subagent_child execute failed: {UNAVAILABLE}"
            if style == "flink"
            else f"Error: {UNAVAILABLE}"
        )
    outcome = run_hostile(agent)
    assert outcome.result.output == "went on"
    assert tool_ends(outcome.trace)["c1"] == ("error", expected)
    handoff_end = fields(outcome.trace, "handoff_end")[0]
    assert (handoff_end["status"], handoff_end["error"]) == ("failed", UNAVAILABLE)
    assert fields(outcome.trace, "handoff_attempt_end")[0]["error"] == UNAVAILABLE


def test_a_model_failing_with_an_unprintable_error_ends_the_run_with_a_readable_error() -> None:
    outcome = run_hostile(Agent("main", ScriptedModel([Unprintable()])), expect=Unprintable)
    run_end = fields(outcome.trace, "run_end")[0]
    assert (run_end["status"], run_end["error"]) == ("failed", UNAVAILABLE)


def test_an_input_filter_and_a_fallback_failing_unprintably_are_reported() -> None:
    def input_filter(call: ToolCall) -> ToolCall:
        raise Unprintable

    filtered = parent_of(
        [SubAgent("child", "c", leaf("child"), tool_name="delegate_child")],
        turn(delegate("delegate_child", id="c1")),
        policy=HandoffPolicy(input_filter=input_filter),
    )
    outcome = run_hostile(filtered)
    assert tool_ends(outcome.trace)["c1"] == ("error", f"Error: {UNAVAILABLE}")
    assert fields(outcome.trace, "handoff_end")[0]["error"] == f"input filter failed: {UNAVAILABLE}"

    class Primary:
        def execute(self, call: ToolCall) -> str:
            raise Unprintable

    fallback = parent_of(
        [SubAgent("child", "c", leaf("child", {"error": "down"}), tool_name="delegate_child")],
        turn(delegate("delegate_child", id="c1")),
        policy=HandoffPolicy(on_error=FailureAction.FALLBACK_TO_PRIMARY),
        tool_executor=Primary(),
    )
    outcome = run_hostile(fallback)
    assert tool_ends(outcome.trace)["c1"] == ("error", f"Error: {UNAVAILABLE}")
    assert fields(outcome.trace, "handoff_end")[0]["error"] == UNAVAILABLE


# -- KeyboardInterrupt, SystemExit, GeneratorExit from user code (issue item 3) ----------

INTERRUPTS = [KeyboardInterrupt, SystemExit, GeneratorExit]


def _raising_tool(error: type[BaseException]) -> Any:
    @tool
    async def boom(q: str) -> str:
        """Wait a little, then raise the user's interrupt."""
        await asyncio.sleep(1)
        raise error

    return boom


@tool
async def slow(q: str) -> str:
    """Take a long time."""
    await asyncio.sleep(60)
    return "slow-done"


def _tree(error: type[BaseException], parallel: bool) -> Agent:
    """A parent whose sub-agent calls a tool that raises ``error``, next to slow siblings."""
    child = Agent(
        "child",
        ScriptedModel([turn(call("boom", {"q": "x"}, id="k1"), call("slow", {"q": "y"}))]),
        tools=[_raising_tool(error), slow],
        parallel_tool_calls=parallel,
    )
    return parent_of(
        [SubAgent("child", "c", child, tool_name="delegate_child")],
        turn(delegate("delegate_child", id="c1"), call("slow", {"q": "z"}, id="c2")),
        policy=HandoffPolicy(max_retries=3),
        parallel_tool_calls=parallel,
        tools=[slow],
    )


@pytest.mark.parametrize("parallel", [False, True], ids=["sequential", "parallel"])
@pytest.mark.parametrize("error", INTERRUPTS, ids=lambda e: e.__name__)
def test_an_interrupt_from_a_tool_in_a_sub_agent_closes_every_start_as_cancelled(
    error: type[BaseException], parallel: bool
) -> None:
    outcome = run_hostile(_tree(error, parallel), expect=error)
    ends = tool_ends(outcome.trace)
    assert ends["k1"] == ("cancelled", None)
    assert ends["c1"] == ("cancelled", None)
    if parallel:  # the siblings were running: each was cancelled, and ended so
        assert [s for s, _ in ends.values()] == ["cancelled"] * 4
    else:  # the sibling calls after the interrupted one never started
        assert set(ends) == {"k1", "c1"}
    (attempt_end,) = fields(outcome.trace, "handoff_attempt_end")
    assert attempt_end["outcome"] == "cancelled"
    (handoff_end,) = fields(outcome.trace, "handoff_end")
    assert (handoff_end["status"], handoff_end["attempts"]) == ("cancelled", 1)
    assert handoff_end["error"] == error.__name__
    assert [e["status"] for e in fields(outcome.trace, "run_end")] == ["cancelled"] * 2


@pytest.mark.parametrize("error", INTERRUPTS, ids=lambda e: e.__name__)
def test_an_interrupt_from_a_model_on_a_retry_reports_the_true_attempt_count(
    error: type[BaseException],
) -> None:
    # attempt 1: the model fails and is retried; attempt 2: the model raises the interrupt.
    child = Agent("child", ScriptedModel([{"error": "first attempt"}, error()]))
    agent = parent_of(
        [SubAgent("child", "c", child, tool_name="delegate_child")],
        turn(delegate("delegate_child", id="c1"), call("slow", {"q": "z"}, id="c2")),
        policy=HandoffPolicy(max_retries=3),
        parallel_tool_calls=True,
        tools=[slow],
    )
    outcome = run_hostile(agent, expect=error)
    assert [e["outcome"] for e in fields(outcome.trace, "handoff_attempt_end")] == [
        "error",
        "cancelled",
    ]
    (handoff_end,) = fields(outcome.trace, "handoff_end")
    assert (handoff_end["status"], handoff_end["attempts"]) == ("cancelled", 2)
    assert tool_ends(outcome.trace) == {"c1": ("cancelled", None), "c2": ("cancelled", None)}


@pytest.mark.parametrize("error", INTERRUPTS, ids=lambda e: e.__name__)
def test_an_interrupt_in_one_of_several_parallel_sub_agents_cancels_the_others(
    error: type[BaseException],
) -> None:
    async def answer(request: ModelRequest) -> str:
        if "boom" in (request.messages[-1].content or ""):
            raise error
        await asyncio.sleep(30)
        return "late"

    child = Agent("child", FunctionModel(answer, latency=1))
    agent = parent_of(
        [SubAgent("child", "c", child, tool_name="delegate_child")],
        turn(
            delegate("delegate_child", "calm", id="c1"),
            delegate("delegate_child", "boom", id="c2"),
            delegate("delegate_child", "calm", id="c3"),
        ),
        parallel_tool_calls=True,
    )
    outcome = run_hostile(agent, expect=error)
    assert [(e["call_id"], e["status"]) for e in fields(outcome.trace, "handoff_end")] == [
        ("c2", "cancelled"),
        ("c1", "cancelled"),
        ("c3", "cancelled"),
    ]
    assert outcome.trace.events[-1].type == "run_end"


@pytest.mark.parametrize("error", INTERRUPTS, ids=lambda e: e.__name__)
def test_an_interrupt_from_the_top_agents_own_tool_or_model_propagates_after_the_ends(
    error: type[BaseException],
) -> None:
    tool_case = Agent(
        "main",
        ScriptedModel([turn(call("boom", {"q": "x"}, id="c1"), call("slow", {"q": "y"}))]),
        tools=[_raising_tool(error), slow],
        parallel_tool_calls=True,
    )
    outcome = run_hostile(tool_case, expect=error)
    assert [e["status"] for e in fields(outcome.trace, "tool_end")] == ["cancelled"] * 2
    model_case = Agent("main", ScriptedModel([error()]))
    outcome = run_hostile(model_case, expect=error)
    assert [e["status"] for e in fields(outcome.trace, "run_end")] == ["cancelled"]


class Recorder:
    """An observer that keeps every event."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    @hookimpl
    def handoff_sim_event(self, event: Event) -> None:
        self.events.append(event)


@pytest.mark.parametrize("entry", ["simulate", "Agent.run"])
@pytest.mark.parametrize("error", [KeyboardInterrupt, SystemExit], ids=lambda e: e.__name__)
def test_an_interrupt_in_a_parallel_child_is_clean_under_simulate_and_agent_run(
    error: type[BaseException], entry: str, caplog: pytest.LogCaptureFixture
) -> None:
    # Agent.run() uses a real event loop: nothing here sleeps, the siblings wait on an
    # event that is never set, and the interrupt comes straight from the first tool.
    never = asyncio.Event

    @tool
    async def stuck(q: str) -> str:
        """Wait for an event nobody sets."""
        await never().wait()
        return "unreachable"

    @tool
    def boom(q: str) -> str:
        """Raise the user's interrupt at once."""
        raise error

    def build() -> Agent:
        child = Agent(
            "child",
            ScriptedModel([turn(call("stuck", {"q": "a"}), call("boom", {"q": "b"}))]),
            tools=[stuck, boom],
            parallel_tool_calls=True,
        )
        return parent_of(
            [SubAgent("child", "c", child, tool_name="delegate_child")],
            turn(delegate("delegate_child", id="c1"), call("stuck", {"q": "c"}, id="c2")),
            parallel_tool_calls=True,
            tools=[stuck],
        )

    caplog.set_level(logging.DEBUG, logger="asyncio")
    recorder = Recorder()

    def run() -> object:
        if entry == "simulate":
            return simulate(build(), "go", observers=[recorder])
        return build().run("go", observers=[recorder])

    with pytest.raises(error):
        run()
    gc.collect()
    assert open_starts(recorder.events) == []
    assert [e.type for e in recorder.events].count("tool_end") == 4  # two here, two in the child
    assert recorder.events[-1].type == "run_end"
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "destroyed but it is pending" not in logged
    assert "never retrieved" not in logged
