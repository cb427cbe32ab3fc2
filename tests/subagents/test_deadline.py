"""A timed-out attempt ends at its deadline whatever the sub-agent does with its cancellation."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from handoff_sim import (
    Agent,
    HandoffPolicy,
    RunResult,
    SessionMode,
    SubAgent,
    Tool,
    check_invariants,
    simulate,
)
from handoff_sim.events import HandoffAttemptEndEvent, RunEndEvent
from handoff_sim.simulation import Simulation
from handoff_sim.testing import ScriptedModel
from tests._helpers import call, delegate, ends, parent_of, tool_results, turn

STOPPED = (
    "the sub-agent ignored its cancellation and was stopped at the deadline: anything it "
    "returns later is discarded"
)
LATE = (
    "the sub-agent ignored its cancellation and finished after the deadline: what it "
    "returned or raised was discarded"
)
TIMEOUT = "handoff timeout for subagent tool subagent_child after 1000 ms"


async def swallows_then_sleeps() -> str:
    """The issue's tool: it catches its cancellation and goes on for 400 more seconds."""
    try:
        await asyncio.sleep(400)
    except asyncio.CancelledError:
        await asyncio.sleep(400)
    return "late"


async def swallows_then_returns() -> str:
    """A tool that answers its cancellation with a result, at once."""
    try:
        await asyncio.sleep(400)
    except asyncio.CancelledError:
        return "late"
    return "on time"


def _child(tool: Callable[[], Awaitable[str]], *, retried: bool = False) -> Agent:
    """A child that calls ``tool`` (then answers ``late-answer``); ``child-ok`` when retried."""
    steps: list[object] = [turn(call("work")), {"text": "late-answer"}]
    if retried:
        steps.append({"text": "child-ok"})
    return Agent(
        name="child",
        model=ScriptedModel(steps),
        tools=[Tool("work", tool, parameters={"type": "object", "properties": {}})],
    )


def _run(child: Agent, policy: HandoffPolicy, **mount: object) -> RunResult:
    sub = SubAgent("child", agent=child, **mount)  # type: ignore[arg-type]
    parent = parent_of([sub], turn(delegate("subagent_child")), policy=policy)
    return simulate(parent, "go")


def _attempt_ends(result: RunResult) -> list[HandoffAttemptEndEvent]:
    return [e for e in result.trace if isinstance(e, HandoffAttemptEndEvent)]


def test_s12_a_tool_that_swallows_its_cancellation_times_out_at_the_deadline() -> None:
    result = _run(_child(swallows_then_sleeps), HandoffPolicy(timeout=1))
    [attempt] = _attempt_ends(result)
    assert (attempt.outcome, attempt.t, attempt.duration_ms) == ("timeout", 1.0, 1000.0)
    assert attempt.error == f"{TIMEOUT}; {STOPPED}"
    [end] = ends(result.trace)
    assert (end.status, end.reason, end.attempts, end.duration_ms) == (
        "failed",
        "timeout",
        1,
        1000.0,
    )
    assert end.error == TIMEOUT
    assert tool_results(result.messages)[0].content == f"Error: HandoffTimeoutError: {TIMEOUT}"
    assert result.elapsed_ms == 1000.0
    assert '"late"' not in result.trace.to_jsonl()
    assert "late-answer" not in result.trace.to_jsonl()
    assert check_invariants(result.trace) == []


def test_the_child_run_and_its_tool_end_cancelled_at_the_deadline() -> None:
    result = _run(_child(swallows_then_sleeps), HandoffPolicy(timeout=1))
    [tool_end] = [e for e in result.trace.of_type("tool_end") if e.agent == "child"]
    [run_end] = [e for e in result.trace if isinstance(e, RunEndEvent) and e.agent == "child"]
    assert (tool_end.status, tool_end.t) == ("cancelled", 1.0)  # type: ignore[attr-defined]
    assert (run_end.status, run_end.t) == ("cancelled", 1.0)


def test_the_next_attempt_starts_at_the_deadline_not_after_the_swallower() -> None:
    result = _run(
        _child(swallows_then_sleeps, retried=True), HandoffPolicy(timeout=1, max_retries=1)
    )
    first, second = _attempt_ends(result)
    assert (first.outcome, first.duration_ms, second.outcome, second.t) == (
        "timeout",
        1000.0,
        "ok",
        1.0,
    )
    [end] = ends(result.trace)
    assert (end.status, end.attempts, end.output, end.duration_ms) == (
        "completed",
        2,
        "late-answer",
        1000.0,
    )
    assert check_invariants(result.trace) == []


def test_a_result_given_after_a_swallowed_cancellation_is_discarded() -> None:
    result = _run(_child(swallows_then_returns), HandoffPolicy(timeout=1))
    [attempt] = _attempt_ends(result)
    assert (attempt.outcome, attempt.duration_ms, attempt.error) == (
        "timeout",
        1000.0,
        f"{TIMEOUT}; {LATE}",
    )
    [end] = ends(result.trace)
    assert (end.status, end.reason, end.output) == ("failed", "timeout", None)
    assert "late-answer" not in tool_results(result.messages)[0].content
    assert check_invariants(result.trace) == []


def test_an_attempt_that_honours_its_cancellation_gets_no_note() -> None:
    async def slow() -> str:
        await asyncio.sleep(400)
        return "never"

    [attempt] = _attempt_ends(_run(_child(slow), HandoffPolicy(timeout=1)))
    assert attempt.error == TIMEOUT


def test_a_reused_session_is_rolled_back_and_unlocked_after_a_swallower() -> None:
    child = _child(swallows_then_sleeps, retried=True)
    policy = HandoffPolicy(timeout=1, max_retries=1)
    result = _run(child, policy, session_mode=SessionMode.REUSE_SESSION)
    [end] = ends(result.trace)
    assert (end.status, end.attempts, result.elapsed_ms) == ("completed", 2, 1000.0)
    session = child.session_store.load(result.trace.of_type("handoff_start")[0].session_id)  # type: ignore[attr-defined]
    assert session is not None
    assert [m.role for m in session.messages] == ["user", "assistant"]  # one attempt's turn


def test_a_swallower_two_levels_down_ends_both_deadlines_on_time() -> None:
    grandchild = _child(swallows_then_sleeps)
    middle = parent_of(
        [SubAgent("child", agent=grandchild)],
        turn(delegate("subagent_child")),
        name="middle",
        final=None,
        policy=HandoffPolicy(timeout=5, max_depth=2),
    )
    outer = parent_of(
        [SubAgent("middle", agent=middle)],
        turn(delegate("subagent_middle")),
        policy=HandoffPolicy(timeout=1, max_depth=2),
    )
    with Simulation() as sim:
        result = sim.run(outer, "go")
    outcomes = sorted((e.tool, e.outcome, e.duration_ms) for e in _attempt_ends(result))
    assert outcomes == [
        ("subagent_child", "cancelled", 1000.0),
        ("subagent_middle", "timeout", 1000.0),
    ]
    assert result.elapsed_ms == 1000.0
    assert check_invariants(result.trace) == []


@pytest.mark.parametrize("parallel", [False, True])
def test_s12_no_task_is_left_behind_a_swallower(parallel: bool) -> None:
    calls = [call("work"), call("work")] if parallel else [call("work")]
    child = Agent(
        name="child",
        model=ScriptedModel([turn(*calls), {"text": "late-answer"}]),
        tools=[Tool("work", swallows_then_sleeps, parameters={"type": "object", "properties": {}})],
        parallel_tool_calls=parallel,
    )
    parent = parent_of(
        [SubAgent("child", agent=child)],
        turn(delegate("subagent_child")),
        policy=HandoffPolicy(timeout=1),
    )
    with Simulation() as sim:
        result = sim.run(parent, "go")
        left = sim.run_coroutine(_other_tasks())
    assert (left, result.elapsed_ms) == (set(), 1000.0)
    assert check_invariants(result.trace) == []


async def _other_tasks() -> set[asyncio.Task[object]]:
    current = asyncio.current_task()
    return {t for t in asyncio.all_tasks() if t is not current}
