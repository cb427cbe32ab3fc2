"""The recorder: every model call per agent, in start order, with its times and outcome."""

from __future__ import annotations

import asyncio
import threading

import pytest

from handoff_sim import (
    Agent,
    HandoffPolicy,
    ModelRequest,
    ModelResponse,
    SubAgent,
    ToolCall,
    simulate,
    tool,
)
from handoff_sim.messages import Message
from handoff_sim.recording import Recorder, RecordingModel
from handoff_sim.simulation import Simulation
from handoff_sim.testing import ScriptedModel


def _request(agent: str, text: str) -> ModelRequest:
    return ModelRequest(agent=agent, model="m", messages=(Message(role="user", content=text),))


def test_calls_are_kept_per_agent_in_the_order_they_started_not_ended() -> None:
    recorder = Recorder()
    slow = RecordingModel(ScriptedModel([{"text": "slow", "latency": 5}]), recorder)
    fast = RecordingModel(ScriptedModel([{"text": "fast", "latency": 1}]), recorder)

    async def both() -> None:
        await asyncio.gather(
            slow.complete(_request("worker", "first")), fast.complete(_request("worker", "second"))
        )

    with Simulation() as sim:
        sim.run_coroutine(both())
    lane = recorder.lanes()["worker"]
    assert [c.request.messages[-1].content for c in lane] == ["first", "second"]
    assert [c.end - c.start for c in lane] == [5, 1]
    assert [c.response.text for c in lane if c.response] == ["slow", "fast"]


def test_calls_starting_at_the_same_instant_keep_their_start_order() -> None:
    recorder = Recorder()
    model = RecordingModel(ScriptedModel([{"text": "a", "latency": 2}, {"text": "b"}]), recorder)

    async def both() -> None:
        await asyncio.gather(
            model.complete(_request("w", "one")), model.complete(_request("w", "two"))
        )

    with Simulation() as sim:
        sim.run_coroutine(both())
    assert [c.request.messages[-1].content for c in recorder.lanes()["w"]] == ["one", "two"]


def test_an_error_is_recorded_and_raised_again() -> None:
    recorder = Recorder()
    model = RecordingModel(ScriptedModel([{"error": "provider down", "latency": 3}]), recorder)
    with Simulation() as sim, pytest.raises(RuntimeError, match="provider down"):
        sim.run_coroutine(model.complete(_request("a", "hi")))
    (call,) = recorder.model_calls
    assert call.response is None
    assert not call.cancelled
    assert str(call.error) == "provider down"
    assert call.end - call.start == 3


def test_a_cancelled_call_is_recorded_as_cancelled_with_the_time_it_ran() -> None:
    stuck = Agent("stuck", ScriptedModel([{"text": "never", "latency": 3600}]))
    root = Agent(
        "root",
        ScriptedModel(
            [{"tool_calls": [{"id": "c1", "name": "go", "arguments": {"task": "x"}}]}, "gave up"]
        ),
        subagents=[SubAgent("stuck", agent=stuck, tool_name="go")],
        handoff_policy=HandoffPolicy(timeout=30),
    )
    recorder = Recorder()
    with stuck.override(model=RecordingModel(stuck.model, recorder)):
        simulate(root, "go")
    (call,) = recorder.lanes()["stuck"]
    assert call.cancelled
    assert call.response is None
    assert call.end - call.start == 30


def test_recording_model_sends_the_real_models_name_and_keeps_its_attributes() -> None:
    real = ScriptedModel(["hi"])
    real.model_name = "gpt-test"
    agent = Agent("a", real)
    recorder = Recorder()
    wrapped = RecordingModel(real, recorder)
    with agent.override(model=wrapped):
        simulate(agent, "hello")
    assert recorder.model_calls[0].model == agent.model_name == "gpt-test"
    assert wrapped.requests == real.requests  # what a test reads off the real model


def test_calls_recorded_from_many_threads_are_all_kept_in_start_order() -> None:
    recorder = Recorder()
    response = ModelResponse(text="ok")

    def report(worker: int) -> None:
        for index in range(200):
            start = float(index * 8 + worker)
            recorder.model_call(
                "a", _request("a", f"{worker}"), response, None, start, start + 1, None, "m"
            )

    threads = [threading.Thread(target=report, args=(w,)) for w in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    starts = [c.start for c in recorder.lanes()["a"]]
    assert starts == sorted(starts)
    assert len(starts) == 1600


def test_recorded_tools_keep_arguments_result_error_and_duration() -> None:
    from handoff_sim.recording import record

    @tool
    async def lookup(order: int) -> str:
        """Look an order up."""
        await asyncio.sleep(2)
        if order == 0:
            raise KeyError("no order 0")
        return f"order {order}"

    agent = Agent(
        "a",
        ScriptedModel(
            [
                {"tool_calls": [{"id": "c1", "name": "lookup", "arguments": {"order": 7}}]},
                {"tool_calls": [{"id": "c2", "name": "lookup", "arguments": {"order": 0}}]},
                "done",
            ]
        ),
        tools=[lookup],
    )
    import tempfile
    from pathlib import Path

    with (
        tempfile.TemporaryDirectory() as folder,
        record(agent, Path(folder) / "r.yaml", tools="recorded") as recorder,
    ):
        simulate(agent, "go")
    calls = recorder.tool_calls
    assert [(c.name, c.arguments, c.result) for c in calls] == [
        ("lookup", '{"order":7}', "order 7"),
        ("lookup", '{"order":0}', None),
    ]
    assert isinstance(calls[1].error, KeyError)
    assert [c.end - c.start for c in calls] == [2, 2]
    assert lookup.fn.__name__ == "lookup"  # the tool's own function is back after the block


def test_tool_call_records_keep_the_agent_they_ran_in() -> None:
    recorder = Recorder()
    recorder.tool_call("billing", "refund", "{}", "ok", None, 1.0, 2.0)
    (call,) = recorder.tool_calls
    assert (call.agent, call.name, call.result, call.end - call.start) == (
        "billing",
        "refund",
        "ok",
        1,
    )
    assert ToolCall("x", "refund").name == call.name
