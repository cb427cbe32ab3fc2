"""ReplayModel: one agent's recorded lane played back in virtual time, each request checked."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

import msgspec
import pytest

from handoff_sim import Agent, ConfigurationError, HandoffPolicy, ModelRequest, SubAgent, simulate
from handoff_sim.errors import (
    RecordingFormatError,
    ReplayExhaustedError,
    ReplayMismatchError,
    UnusedRecordingError,
)
from handoff_sim.messages import Message, ToolSpec, Usage
from handoff_sim.recording import ReplayLedger, ReplayModel, fingerprint
from handoff_sim.simulation import Simulation
from handoff_sim.testing import SimulatedModelError


def _request(text: str, *, tools: tuple[str, ...] = (), agent: str = "a") -> ModelRequest:
    return ModelRequest(
        agent=agent,
        model="m",
        messages=[Message(role="user", content=text)],
        tools=[ToolSpec(t, "") for t in tools],
    )


def _asked(text: str, *, tools: tuple[str, ...] = ()) -> dict[str, Any]:
    """The ``request:`` a recording writes for a user message ``text``."""
    found = msgspec.to_builtins(fingerprint(_request(text, tools=tools)))
    assert isinstance(found, dict)
    return found


def _step(answer: str, asked: str, latency: str = "0s", **more: Any) -> dict[str, Any]:
    return {"text": answer, "latency": latency, "request": _asked(asked), **more}


def _run(coro: Coroutine[Any, Any, Any]) -> tuple[Any, float]:
    with Simulation() as sim:
        result = sim.run_coroutine(coro)
        return result, sim.now


def test_answers_at_the_recorded_latency_in_virtual_time_with_its_usage() -> None:
    model = ReplayModel(
        [_step("hello", "hi", "90s", usage={"input_tokens": 5, "output_tokens": 2})], agent="a"
    )
    response, now = _run(model.complete(_request("hi")))
    assert response.text == "hello"
    assert response.usage == Usage(input_tokens=5, output_tokens=2)
    assert now == 90.0
    assert model.requests == [_request("hi")]
    assert model.remaining == 0
    model.assert_complete()


def test_a_recorded_error_is_raised_after_its_latency() -> None:
    model = ReplayModel([{"error": "rate limited", "latency": "2s"}], agent="a")

    async def call() -> float:
        with pytest.raises(SimulatedModelError, match="rate limited"):
            await model.complete(_request("hi"))
        return asyncio.get_running_loop().time()

    assert _run(call())[0] == 2.0


def test_the_model_name_is_the_one_the_recording_names() -> None:
    assert ReplayModel([_step("x", "hi")], agent="a").model_name == "m"
    assert ReplayModel(["x"], agent="a", model_name="gpt-4o").model_name == "gpt-4o"
    assert ReplayModel(["x"], agent="a").model_name == "replay"


def test_r1_parallel_runs_of_one_agent_get_their_own_answers_in_fingerprint_mode() -> None:
    # the worker's lane holds B's answer first: fingerprints, not order, decide
    worker = Agent(
        "worker",
        model=ReplayModel(
            [_step("answer B", "task B", "1s"), _step("answer A", "task A", "3s")],
            agent="worker",
            model_name="m",
        ),
    )
    calls = [
        {"id": "c1", "name": "worker", "arguments": '{"input": "task A"}'},
        {"id": "c2", "name": "worker", "arguments": '{"input": "task B"}'},
    ]
    manager = Agent(
        "manager",
        model=ReplayModel([{"tool_calls": calls}, "done"], agent="manager"),
        subagents=[SubAgent("worker", agent=worker, tool_name="worker")],
        parallel_tool_calls=True,
    )
    result = simulate(manager, "go")
    assert result.output == "done"
    outputs = {h.call_id: h.output for h in result.trace.handoffs()}
    assert outputs == {"c1": "answer A", "c2": "answer B"}
    durations = {h.call_id: h.duration_ms for h in result.trace.handoffs()}
    assert durations == {"c1": 3000.0, "c2": 1000.0}


def test_order_mode_serves_the_next_step_without_looking_at_the_request() -> None:
    model = ReplayModel([_step("one", "first"), _step("two", "second")], agent="a", match="order")

    async def calls() -> list[str | None]:
        return [(await model.complete(_request(t))).text for t in ("other", "else")]

    assert _run(calls())[0] == ["one", "two"]


def test_tools_mode_checks_only_the_offered_tool_names() -> None:
    steps = [{"text": "ok", "request": _asked("recorded words", tools=("lookup",))}]
    model = ReplayModel(steps, agent="a", match="tools")
    assert _run(model.complete(_request("new words", tools=("lookup",))))[0].text == "ok"

    strict = ReplayModel(steps, agent="a", match="tools")
    with pytest.raises(ReplayMismatchError) as caught:
        _run(strict.complete(_request("recorded words", tools=("lookup", "refund"))))
    assert caught.value.differences == ["tool added: refund"]


def test_a_mismatch_names_the_agent_the_call_and_the_nearest_recorded_step() -> None:
    model = ReplayModel(
        [
            {"text": "x", "request": _asked("something else entirely", tools=("a", "b"))},
            {"text": "y", "request": _asked("Refund order 42", tools=("lookup",))},
        ],
        agent="billing",
    )
    with pytest.raises(ReplayMismatchError) as caught:
        _run(model.complete(_request("Reimburse order 42", tools=("lookup",))))
    error = caught.value
    assert (error.agent, error.step, error.nearest) == ("billing", 1, 2)
    assert error.differences == [
        "the last message changed: recorded 'Refund order 42' now 'Reimburse order 42'"
    ]
    assert str(error).startswith("replay of agent 'billing': model call 1 matches no recorded")
    assert "recorded step 2" in str(error)
    assert "\n" not in str(error)


def test_ties_for_the_nearest_step_go_to_the_earliest() -> None:
    model = ReplayModel([_step("x", "one"), _step("y", "two")], agent="a")
    with pytest.raises(ReplayMismatchError) as caught:
        _run(model.complete(_request("three")))
    assert caught.value.nearest == 1


def test_an_exhausted_lane_names_the_agent_and_the_call() -> None:
    model = ReplayModel([_step("x", "hi")], agent="billing")

    async def twice() -> None:
        await model.complete(_request("hi"))
        await model.complete(_request("hi"))

    with pytest.raises(ReplayExhaustedError) as caught:
        _run(twice())
    assert (caught.value.agent, caught.value.step, caught.value.steps) == ("billing", 2, 1)
    assert "replay of agent 'billing' exhausted: model call 2" in str(caught.value)


def test_unused_steps_name_the_agent_and_the_steps() -> None:
    model = ReplayModel([_step("x", "hi"), _step("y", "again"), "z"], agent="billing")
    _run(model.complete(_request("again")))
    assert model.remaining == 2
    with pytest.raises(UnusedRecordingError) as caught:
        model.assert_complete()
    assert caught.value.unused_steps == [1, 3]
    assert "agent 'billing' has 2 unused step(s) of 3: step(s) 1, 3" in str(caught.value)


def test_a_step_without_a_request_matches_any_request() -> None:
    model = ReplayModel(["anything"], agent="a")
    assert _run(model.complete(_request("whatever")))[0].text == "anything"


def test_a_step_without_a_request_answers_only_when_every_step_before_it_was_served() -> None:
    model = ReplayModel([_step("recorded", "first"), "loosened"], agent="a")
    with pytest.raises(ReplayMismatchError) as caught:
        _run(model.complete(_request("changed")))
    assert caught.value.nearest == 1

    model = ReplayModel([_step("recorded", "first"), "loosened"], agent="a")

    async def calls() -> list[str | None]:
        return [(await model.complete(_request(t))).text for t in ("first", "anything")]

    assert _run(calls())[0] == ["recorded", "loosened"]


def test_a_step_recorded_cancelled_never_answers_and_is_spent_once_cut_off() -> None:
    model = ReplayModel(
        [{"cancelled": True, "request": _asked("hi")}, _step("late answer", "hi", "2s")],
        agent="a",
    )

    async def call() -> tuple[str | None, float]:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(model.complete(_request("hi")), timeout=3600)
        # the retry gets the recording's next answer, not the cut-off call again
        response = await model.complete(_request("hi"))
        return response.text, asyncio.get_running_loop().time()

    assert _run(call())[0] == ("late answer", 3602.0)
    model.assert_complete()


def test_a_cut_off_run_gives_its_steps_back_for_the_retry() -> None:
    model = ReplayModel([_step("first", "q1", "1s"), _step("second", "q2", "12s")], agent="a")

    async def attempt() -> list[str | None]:
        return [(await model.complete(_request(q))).text for q in ("q1", "q2")]

    async def retried() -> tuple[list[str | None], float]:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(attempt(), timeout=10)
        again = await asyncio.wait_for(attempt(), timeout=20)
        return again, asyncio.get_running_loop().time()

    assert _run(retried())[0] == (["first", "second"], 23.0)
    model.assert_complete()


def test_steps_never_served_are_preferred_to_steps_given_back() -> None:
    # the recording holds the retry's own answer (3 s): the retry gets it, not the 12 s one
    model = ReplayModel([_step("slow", "q", "12s"), _step("quick", "q", "3s")], agent="a")

    async def retried() -> tuple[str | None, float]:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(model.complete(_request("q")), timeout=10)
        response = await model.complete(_request("q"))
        return response.text, asyncio.get_running_loop().time()

    assert _run(retried())[0] == ("quick", 13.0)
    model.assert_complete()


def test_r1_a_sub_agent_retried_after_a_timeout_replays_the_same_answer() -> None:
    ledger = ReplayLedger()
    worker = Agent(
        "worker",
        model=ReplayModel([_step("late", "go", "12s")], agent="worker", ledger=ledger),
    )
    call = [{"id": "c1", "name": "worker", "arguments": '{"input": "go"}'}]
    manager = Agent(
        "manager",
        model=ReplayModel([{"tool_calls": call}, "gave up"], agent="manager", ledger=ledger),
        subagents=[SubAgent("worker", agent=worker, tool_name="worker")],
        handoff_policy=HandoffPolicy(timeout=10, max_retries=1),
    )
    result = simulate(manager, "go")
    (handoff,) = result.trace.handoffs()
    assert (handoff.status, handoff.attempts, handoff.duration_ms) == ("failed", 2, 20000.0)
    assert result.output == "gave up"
    asked = [fingerprint(r).key() for r in worker.model.requests]  # type: ignore[attr-defined]
    assert asked == [fingerprint(_request("go")).key()] * 2


def test_a_run_cut_off_while_it_waits_for_its_own_sub_agent_gives_its_steps_back() -> None:
    ledger = ReplayLedger()
    deep = Agent("deep", model=ReplayModel([_step("found", "dig", "12s")], agent="deep"))
    dig = [{"id": "d1", "name": "deep", "arguments": '{"input": "dig"}'}]
    worker = Agent(
        "worker",
        model=ReplayModel([{"tool_calls": dig}, "worked"], agent="worker", ledger=ledger),
        subagents=[SubAgent("deep", agent=deep, tool_name="deep")],
        handoff_policy=HandoffPolicy(max_depth=2),
    )
    call = [{"id": "c1", "name": "worker", "arguments": '{"input": "go"}'}]
    manager = Agent(
        "manager",
        model=ReplayModel([{"tool_calls": call}, "gave up"], agent="manager", ledger=ledger),
        subagents=[SubAgent("worker", agent=worker, tool_name="worker")],
        handoff_policy=HandoffPolicy(timeout=10, max_retries=1),
    )
    result = simulate(manager, "go")
    worker_handoff = next(h for h in result.trace.handoffs() if h.tool == "worker")
    assert (worker_handoff.status, worker_handoff.attempts) == ("failed", 2)
    assert "timeout" in (worker_handoff.error or "")
    assert len(worker.model.requests) == 2  # type: ignore[attr-defined]


def test_an_unknown_match_mode_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="fingerprint, tools, order"):
        ReplayModel(["x"], agent="a", match="exact")  # type: ignore[arg-type]


def test_a_malformed_recorded_request_is_refused_naming_the_agent_and_step() -> None:
    steps = [_step("x", "hi"), {"text": "y", "request": {"role": "user", "sha256": "zz"}}]
    with pytest.raises(RecordingFormatError, match="agent 'billing', recorded step 2: request"):
        ReplayModel(steps, agent="billing")
