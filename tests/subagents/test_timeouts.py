"""S12: a timed-out attempt is really cancelled: no task left behind, no session left locked."""

from __future__ import annotations

import asyncio

import pytest

from handoff_sim import Agent, HandoffPolicy, SessionMode, SubAgent, Tool, simulate
from handoff_sim.messages import ModelRequest
from handoff_sim.simulation import Simulation
from handoff_sim.testing import FunctionModel, ScriptedModel
from tests._helpers import call, delegate, leaf, parent_of, turn


class _TaskProbe:
    """A script ``check`` that records the tasks alive besides the one asking."""

    def __init__(self) -> None:
        self.others: list[set[asyncio.Task[object]]] = []

    def __call__(self, request: ModelRequest) -> bool:
        current = asyncio.current_task()
        self.others.append({t for t in asyncio.all_tasks() if t is not current and not t.done()})
        return True


def _slow_fan_out_child(log: list[str], *later: object) -> Agent:
    """A child that starts two slow tools in parallel (each its own task), then ``later`` steps."""

    async def slow(tag: str) -> str:
        log.append(f"start:{tag}")
        try:
            await asyncio.sleep(1_000)
        except asyncio.CancelledError:
            log.append(f"cancelled:{tag}")
            raise
        log.append(f"finished:{tag}")
        return tag

    return Agent(
        name="child",
        model=ScriptedModel([turn(call("slow", {"tag": "a"}), call("slow", {"tag": "b"})), *later]),
        tools=[Tool("slow", slow, parameters={"type": "object", "properties": {}})],
        parallel_tool_calls=True,
    )


@pytest.mark.parametrize("mode", [SessionMode.NEW_SESSION, SessionMode.REUSE_SESSION])
def test_s12_timed_out_attempt_leaves_no_running_task_behind(mode: SessionMode) -> None:
    log: list[str] = []
    probe = _TaskProbe()
    child = _slow_fan_out_child(log)
    parent = parent_of(
        [SubAgent("child", agent=child, session_mode=mode)],
        turn(delegate("subagent_child")),
        {"text": "after", "check": probe, "latency": 5_000},
        final=None,
        policy=HandoffPolicy(timeout=5),
    )
    with Simulation() as sim:
        result = sim.run(parent, "go")
        leftover = sim.run_coroutine(_other_tasks())
    assert probe.others == [set()]
    assert leftover == set()
    assert sorted(log) == ["cancelled:a", "cancelled:b", "start:a", "start:b"]
    assert result.elapsed_ms == 5_005_000


async def _other_tasks() -> set[asyncio.Task[object]]:
    current = asyncio.current_task()
    return {t for t in asyncio.all_tasks() if t is not current}


@pytest.mark.parametrize("mode", [SessionMode.NEW_SESSION, SessionMode.REUSE_SESSION])
def test_s12_each_timed_out_attempt_is_cancelled_before_the_next_starts(mode: SessionMode) -> None:
    events: list[tuple[float, str]] = []

    async def never(request: ModelRequest) -> str:
        loop = asyncio.get_running_loop()
        events.append((loop.time(), "enter"))
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            events.append((loop.time(), "cancelled"))
            raise
        return "unreachable"

    child = Agent(name="child", model=FunctionModel(never))
    parent = parent_of(
        [SubAgent("child", agent=child, session_mode=mode)],
        turn(delegate("subagent_child")),
        policy=HandoffPolicy(timeout=2, max_retries=2),
    )
    simulate(parent, "go")
    assert events == [
        (0.0, "enter"),
        (2.0, "cancelled"),
        (2.0, "enter"),
        (4.0, "cancelled"),
        (4.0, "enter"),
        (6.0, "cancelled"),
    ]


def test_s12_reused_session_is_not_left_locked_after_a_timeout() -> None:
    log: list[str] = []
    child = _slow_fan_out_child(log, {"text": "second-ok"})
    parent = parent_of(
        [SubAgent("child", agent=child, session_mode=SessionMode.REUSE_SESSION)],
        turn(delegate("subagent_child", "first", id="c1")),
        turn(delegate("subagent_child", "second", id="c2")),
        policy=HandoffPolicy(timeout=5),
    )
    result = simulate(parent, "go")
    first, second = result.trace.handoffs()
    assert (first.status, first.reason) == ("failed", "timeout")
    assert (second.status, second.output, second.duration_ms) == ("completed", "second-ok", 0.0)
    assert first.session_id == second.session_id
    assert result.output == "done"


def test_s12_timed_out_attempt_leaves_no_orphan_messages_in_a_reused_session() -> None:
    """SPEC is silent; unlike AI4J (reference §4.2) the runtime rolls the failed attempt back."""
    child = _slow_fan_out_child([], {"text": "second-ok"})
    parent = parent_of(
        [SubAgent("child", agent=child, session_mode=SessionMode.REUSE_SESSION)],
        turn(delegate("subagent_child", "first")),
        turn(delegate("subagent_child", "second")),
        policy=HandoffPolicy(timeout=5),
    )
    simulate(parent, "go")
    assert isinstance(child.model, ScriptedModel)
    contents = [m.content for m in child.model.requests[-1].messages]
    assert contents == ["second"]


def test_s12_timeout_of_a_plain_slow_child_model_stops_it_at_the_deadline() -> None:
    child = leaf("child", {"text": "late", "latency": 3_600})
    parent = parent_of(
        [SubAgent("child", agent=child)],
        turn(delegate("subagent_child")),
        policy=HandoffPolicy(timeout=1.25),
    )
    result = simulate(parent, "go")
    [record] = result.trace.handoffs()
    assert (record.status, record.reason, record.duration_ms) == ("failed", "timeout", 1250.0)
    assert result.elapsed_ms == 1250.0


def test_s12_a_childs_own_timeout_error_is_an_error_not_a_handoff_timeout() -> None:
    async def slow_provider(request: ModelRequest) -> str:
        raise TimeoutError("provider took too long")

    child = Agent(name="child", model=FunctionModel(slow_provider))
    parent = parent_of(
        [SubAgent("child", agent=child)],
        turn(delegate("subagent_child")),
        policy=HandoffPolicy(timeout=10),
    )
    [record] = simulate(parent, "go").trace.handoffs()
    assert (record.status, record.reason, record.error) == (
        "failed",
        "error",
        "provider took too long",
    )
    assert record.attempt_outcomes == ("error",)
