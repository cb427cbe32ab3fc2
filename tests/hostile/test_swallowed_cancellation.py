"""Sub-agents that ignore their attempt's cancellation: the deadline holds all the same.

Every case runs in virtual time: under the old code each one ran (virtual) hours past its
deadline or never ended. The attempt is a timeout at its deadline, the next one starts
then, every start gets its end and no task is left on the loop (``run_hostile``). The
tools that resist forever run in a fresh process under an outer limit, which ends it if
the deadline does not hold (under the old code they never ended).
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
from collections.abc import Awaitable, Callable

import pytest

from handoff_sim import (
    Agent,
    FailureAction,
    HandoffDeniedError,
    HandoffPolicy,
    SubAgent,
    Tool,
    check_invariants,
)
from handoff_sim.events import HandoffAttemptEndEvent
from handoff_sim.messages import ModelRequest
from handoff_sim.testing import FunctionModel
from tests._helpers import call, delegate, parent_of, turn
from tests.hostile._support import run_hostile

OUTER_LIMIT = 60  # seconds of wall time for a case that the old code never ended


async def swallows_for_a_year() -> str:
    """Ignores 10,000 cancellations, an hour each: past any deadline or unwinding."""
    for _ in range(10_000):
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            continue
    return "late"


async def returns_whatever_stops_it() -> str:
    """Answers its cancellation, and even the exception that stops it, with a result."""
    try:
        await asyncio.sleep(3600)
    except asyncio.CancelledError:
        try:
            await asyncio.sleep(3600)
        except BaseException:
            return "late"
    return "on time"


FOREVER = {
    "swallows_every_time": "except asyncio.CancelledError",
    "swallows_generator_exit_too": "except (asyncio.CancelledError, GeneratorExit)",
}


def _child(tool: Callable[[], Awaitable[str]], name: str = "child") -> Agent:
    async def always_work(request: ModelRequest) -> dict[str, object]:
        return turn(call("work"))

    return Agent(
        name=name,
        model=FunctionModel(always_work),  # calls the tool in every attempt, every step
        tools=[Tool("work", tool, parameters={"type": "object", "properties": {}})],
    )


def _attempts(trace: object) -> list[tuple[str, str, float, float]]:
    return [
        (e.tool, e.outcome, e.t, e.duration_ms)
        for e in trace  # type: ignore[attr-defined]
        if isinstance(e, HandoffAttemptEndEvent)
    ]


@pytest.mark.parametrize(
    "tool", [returns_whatever_stops_it, swallows_for_a_year], ids=lambda t: t.__name__
)
def test_s12_an_attempt_is_a_timeout_at_its_deadline_however_its_tool_resists(
    tool: Callable[[], Awaitable[str]],
) -> None:
    parent = parent_of(
        [SubAgent("child", agent=_child(tool))],
        turn(delegate("subagent_child")),
        policy=HandoffPolicy(timeout=1, max_retries=2),
    )
    outcome = run_hostile(parent)
    assert _attempts(outcome.trace) == [
        ("subagent_child", "timeout", t, 1000.0) for t in (1.0, 2.0, 3.0)
    ]
    assert outcome.result.elapsed_ms == 3000.0
    assert check_invariants(outcome.trace) == []


def test_a_model_that_swallows_its_cancellation_is_stopped_at_the_deadline() -> None:
    async def swallowing_model(request: ModelRequest) -> str:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            await asyncio.sleep(3600)
        return "late"

    child = Agent(name="child", model=FunctionModel(swallowing_model))
    parent = parent_of(
        [SubAgent("child", agent=child)],
        turn(delegate("subagent_child")),
        policy=HandoffPolicy(timeout="250ms"),
    )
    outcome = run_hostile(parent)
    assert _attempts(outcome.trace) == [("subagent_child", "timeout", 0.25, 250.0)]
    assert check_invariants(outcome.trace) == []


def test_a_swallower_cancelled_by_a_failing_sibling_does_not_hold_up_the_run() -> None:
    swallowing = SubAgent("slow", agent=_child(swallows_for_a_year, "slow"))
    denied = SubAgent("blocked", agent=_child(swallows_for_a_year, "blocked"))
    parent = parent_of(
        [swallowing, denied],
        turn(delegate("subagent_slow"), delegate("subagent_blocked"), latency=0),
        policy=HandoffPolicy(timeout=3600, denied_tools={"subagent_blocked"}),
        parallel_tool_calls=True,
    )
    outcome = run_hostile(parent, expect=HandoffDeniedError)
    assert _attempts(outcome.trace) == [("subagent_slow", "cancelled", 0.0, 0.0)]


def test_a_report_to_model_policy_goes_on_after_the_swallower() -> None:
    parent = parent_of(
        [SubAgent("child", agent=_child(swallows_for_a_year))],
        turn(delegate("subagent_child")),
        policy=HandoffPolicy(timeout=1, on_error=FailureAction.REPORT_TO_MODEL),
    )
    outcome = run_hostile(parent)
    assert outcome.result.output == "done"
    assert outcome.result.elapsed_ms == 1000.0


@pytest.mark.parametrize("name", sorted(FOREVER))
@pytest.mark.slow
def test_s12_a_tool_that_resists_forever_ends_at_its_deadline_in_a_fresh_process(
    name: str,
) -> None:
    """The outer limit ends the process if the deadline does not hold (the old code's hang)."""
    source = textwrap.dedent(
        f"""
        import asyncio
        from handoff_sim import Agent, HandoffPolicy, SubAgent, Tool, simulate
        from handoff_sim import check_invariants
        from handoff_sim.testing import ScriptedModel

        async def resists():
            while True:
                try:
                    await asyncio.sleep(3600)
                {FOREVER[name]}:
                    continue

        child = Agent(
            name="child",
            model=ScriptedModel([{{"tool_calls": [{{"name": "work", "arguments": {{}}}}]}}] * 3),
            tools=[Tool("work", resists, parameters={{"type": "object"}})],
        )
        parent = Agent(
            name="parent",
            model=ScriptedModel([
                {{"tool_calls": [{{"name": "subagent_child", "arguments": {{"task": "x"}}}}]}},
                "done",
            ]),
            subagents=[SubAgent("child", agent=child)],
            handoff_policy=HandoffPolicy(timeout=30, max_retries=2),
        )
        result = simulate(parent, "go")
        print(result.output, result.elapsed_ms, len(check_invariants(result.trace)))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", source], capture_output=True, text=True, timeout=OUTER_LIMIT
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.split() == ["done", "90000.0", "0"]
