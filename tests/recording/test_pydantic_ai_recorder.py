"""The pydantic-ai recording model on its own, in virtual time: what each call leaves behind.

The "real" model here is pydantic-ai's own ``FunctionModel`` sleeping on the loop clock,
so latencies and times to first chunk are exact; the HTTP round trip is in
``test_pydantic_ai_round_trip.py``.
"""

# no "from __future__ import annotations": pydantic-ai reads the tool functions' annotations

import asyncio
from typing import Any

import pytest

from tests._helpers import import_extra

import_extra("pydantic-ai", "pydantic_ai")

from pydantic import BaseModel  # noqa: E402
from pydantic_ai import Agent, RunContext  # noqa: E402
from pydantic_ai.messages import ModelMessage, TextPart, ToolCallPart  # noqa: E402
from pydantic_ai.messages import ModelResponse as PaiResponse  # noqa: E402
from pydantic_ai.models.function import AgentInfo, FunctionModel  # noqa: E402

from handoff_sim import ConfigurationError, ModelRequest, ModelResponse, ToolCall  # noqa: E402
from handoff_sim.adapters.pydantic_ai import (  # noqa: E402
    RecordingModel,
    SimModel,
    record_models,
    simulate_run,
)
from handoff_sim.messages import Usage  # noqa: E402
from handoff_sim.recording import Recorder  # noqa: E402
from handoff_sim.testing import FunctionModel as OurFunctionModel  # noqa: E402
from handoff_sim.testing import ScriptedModel  # noqa: E402


class Refund(BaseModel):
    order: int
    approved: bool


def calling_then_answering(messages: list[ModelMessage], info: AgentInfo) -> PaiResponse:
    """First a tool call with arguments written oddly (kept as written), then text."""
    if len(messages) == 1:
        return PaiResponse(parts=[ToolCallPart("lookup", '{ "order" :42 }', tool_call_id="c1")])
    return PaiResponse(parts=[TextPart("shipped")])


def looked_up(agent: Agent[Any, Any]) -> Agent[Any, Any]:
    @agent.tool_plain
    def lookup(order: int) -> str:
        """The shipping status of an order."""
        return f"order {order}: shipped"

    return agent


def test_recorded_request_is_the_request_sim_model_asks_in_replay() -> None:
    recorder = Recorder(runtime="pydantic-ai")
    agent = looked_up(
        Agent(FunctionModel(calling_then_answering), name="clerk", instructions="Be brief.")
    )
    with record_models(agent, recorder):
        simulate_run(lambda: agent.run("where is order 42?"))
    recorded = [c.request for c in recorder.model_calls]

    asked: list[ModelRequest] = []
    answers = iter([c.response for c in recorder.model_calls])

    def replaying(request: ModelRequest) -> ModelResponse:
        asked.append(request)
        answer = next(answers)
        assert answer is not None
        return answer

    with agent.override(model=SimModel(OurFunctionModel(replaying))):
        simulate_run(lambda: agent.run("where is order 42?"))
    assert len(asked) == len(recorded) == 2
    for mine, theirs in zip(recorded, asked, strict=True):
        assert (mine.agent, mine.messages, mine.tools) == (
            theirs.agent,
            theirs.messages,
            theirs.tools,
        )
        assert mine.parallel_tool_calls == theirs.parallel_tool_calls
    assert [m.role for m in recorded[1].messages] == ["system", "user", "assistant", "tool"]


def test_arguments_are_recorded_as_the_model_wrote_them_and_dicts_as_json() -> None:
    def answer(messages: list[ModelMessage], info: AgentInfo) -> PaiResponse:
        if len(messages) > 1:
            return PaiResponse(parts=[TextPart("done")])
        return PaiResponse(
            parts=[
                ToolCallPart("lookup", '{ "order" :42 }', tool_call_id="raw"),
                ToolCallPart("lookup", {"order": 43}, tool_call_id="parsed"),
            ]
        )

    recorder = Recorder(runtime="pydantic-ai")
    agent = looked_up(Agent(FunctionModel(answer), name="clerk"))
    with record_models(agent, recorder):
        simulate_run(lambda: agent.run("orders 42 and 43?"))
    first = recorder.model_calls[0].response
    assert first is not None
    assert first.tool_calls == (
        ToolCall("raw", "lookup", '{ "order" :42 }'),
        ToolCall("parsed", "lookup", '{"order":43}'),
    )


def test_structured_output_is_recorded_as_its_output_tool_call() -> None:
    def answer(messages: list[ModelMessage], info: AgentInfo) -> PaiResponse:
        (output,) = info.output_tools
        return PaiResponse(
            parts=[ToolCallPart(output.name, '{"order": 42, "approved": true}', tool_call_id="o")]
        )

    recorder = Recorder(runtime="pydantic-ai")
    agent = Agent(FunctionModel(answer), name="judge", output_type=Refund)
    with record_models(agent, recorder) as found:
        result = simulate_run(lambda: agent.run("refund 42?")).result
    assert result is not None
    assert result.output == Refund(order=42, approved=True)
    (call,) = recorder.model_calls
    assert call.request.tool_names == ("final_result",)
    assert call.response is not None
    assert call.response.tool_calls == (
        ToolCall("o", "final_result", '{"order": 42, "approved": true}'),
    )
    assert found.output_tools() == {"judge": {"final_result"}}


def test_usage_is_recorded_and_a_replayed_step_s_usage_reaches_pydantic_ai() -> None:
    def answer(messages: list[ModelMessage], info: AgentInfo) -> PaiResponse:
        from pydantic_ai.usage import RequestUsage

        return PaiResponse(
            parts=[TextPart("ok")], usage=RequestUsage(input_tokens=120, output_tokens=14)
        )

    recorder = Recorder(runtime="pydantic-ai")
    agent = Agent(FunctionModel(answer), name="clerk")
    with record_models(agent, recorder):
        simulate_run(lambda: agent.run("hi"))
    (call,) = recorder.model_calls
    assert call.response is not None
    assert call.response.usage == Usage(input_tokens=120, output_tokens=14)

    replayed = ScriptedModel([call.response])
    with agent.override(model=SimModel(replayed)):
        result = simulate_run(lambda: agent.run("hi")).result
    assert result is not None
    usage = result.usage
    assert (usage.input_tokens, usage.output_tokens) == (120, 14)


def test_streamed_call_is_recorded_with_time_to_first_chunk_and_total_latency() -> None:
    async def stream(messages: list[ModelMessage], info: AgentInfo) -> Any:
        await asyncio.sleep(0.25)
        yield "ship"
        await asyncio.sleep(0.5)
        yield "ped"

    recorder = Recorder(runtime="pydantic-ai")
    agent = Agent(FunctionModel(stream_function=stream), name="clerk")

    async def run() -> str:
        async with agent.run_stream("where is it?") as result:
            return str(await result.get_output())

    with record_models(agent, recorder):
        simulated = simulate_run(run)
    assert simulated.result == "shipped"  # the stream reached the reader unchanged
    (call,) = recorder.model_calls
    assert call.first_chunk == pytest.approx(0.25)
    assert call.end - call.start == pytest.approx(0.75)
    assert call.response is not None
    assert call.response.text == "shipped"


def test_a_call_cut_off_by_a_timeout_is_recorded_as_cancelled_at_the_time_it_ran() -> None:
    async def slow(messages: list[ModelMessage], info: AgentInfo) -> PaiResponse:
        await asyncio.sleep(3600)
        return PaiResponse(parts=[TextPart("too late")])

    recorder = Recorder(runtime="pydantic-ai")
    agent = Agent(FunctionModel(slow), name="clerk")
    with record_models(agent, recorder):
        simulated = simulate_run(
            lambda: asyncio.wait_for(agent.run("hi"), timeout=2), raise_errors=False
        )
    assert isinstance(simulated.error, TimeoutError)
    (call,) = recorder.model_calls
    assert call.cancelled
    assert call.response is None
    assert call.end - call.start == pytest.approx(2.0)


def test_record_models_names_every_agent_a_delegation_tool_runs() -> None:
    def answer(text: str) -> FunctionModel:
        return FunctionModel(lambda messages, info: PaiResponse(parts=[TextPart(text)]))

    writer = Agent(answer("a draft"), name="writer")
    editor = Agent(FunctionModel(calling_then_answering), name="editor")

    @editor.tool
    async def lookup(ctx: RunContext[None], order: int) -> str:
        return (await writer.run(f"order {order}", usage=ctx.usage)).output

    recorder = Recorder(runtime="pydantic-ai")
    with record_models(editor, recorder) as found:
        assert found.tree.names == ["editor", "writer"]
        assert all(isinstance(a.model, FunctionModel) for a in (writer, editor))  # not replaced
        simulate_run(lambda: editor.run("where is order 42?"))
    assert [c.agent for c in recorder.model_calls] == ["editor", "writer", "editor"]
    assert repr(RecordingModel(writer.model, recorder, agent="writer")).startswith(  # type: ignore[arg-type]
        "RecordingModel("
    )


def test_record_models_refuses_an_agent_without_a_model_of_its_own() -> None:
    helper = Agent(name="helper")  # its model is given per run
    boss = Agent(FunctionModel(calling_then_answering), name="boss")

    @boss.tool
    async def lookup(ctx: RunContext[None], order: int) -> str:
        return (await helper.run(str(order), model="test")).output

    refused = pytest.raises(ConfigurationError, match=r"agent 'helper' has no model of its own")
    with refused, record_models(boss, Recorder()):
        pass


def test_a_recording_model_given_no_agent_name_names_calls_after_the_running_agent() -> None:
    recorder = Recorder(runtime="pydantic-ai")
    real = FunctionModel(lambda messages, info: PaiResponse(parts=[TextPart("hello")]))
    greeter = Agent(RecordingModel(real, recorder), name="greeter")
    simulate_run(lambda: greeter.run("hi"))  # simulate_run captures: the run is greeter's
    (call,) = recorder.model_calls
    assert (call.agent, call.request.agent) == ("greeter", "greeter")
    assert call.model == real.model_name


@pytest.mark.parametrize("recorded", [False, True], ids=["sim-model", "recording-model"])
def test_a_streamed_pydantic_ai_call_is_reported_once_under_capture(recorded: bool) -> None:
    # pydantic-ai runs a streamed request in a task of its own: the chat span cannot see
    # that our model reported the call, and must not report it a second time
    from handoff_sim.events import HandoffStartEvent, ModelRequestEvent, ToolEndEvent

    writer = Agent(SimModel(ScriptedModel([ModelResponse(text="a draft")])), name="writer")
    script = ScriptedModel(
        [
            ModelResponse(tool_calls=(ToolCall("call_1", "draft", '{"topic": "refunds"}'),)),
            ModelResponse(text="done"),
        ]
    )
    editor = Agent(SimModel(script), name="editor")

    @editor.tool
    async def draft(ctx: RunContext[None], topic: str) -> str:
        return (await writer.run(topic, usage=ctx.usage)).output

    async def run() -> str:
        async with editor.run_stream("write about refunds") as result:
            return str(await result.get_output())

    recorder = Recorder(runtime="pydantic-ai")
    if recorded:
        with record_models(editor, recorder):
            simulated = simulate_run(run)
        assert len(recorder.model_calls) == 3
    else:
        simulated = simulate_run(run)
    assert simulated.result == "done"
    trace = simulated.trace
    steps = [e.agent for e in trace.of_type(ModelRequestEvent)]
    assert steps == ["editor", "writer", "editor"]
    assert [e.status for e in trace.of_type(ToolEndEvent)] == ["ok"]  # no phantom call
    assert [e.handoff_id for e in trace.of_type(HandoffStartEvent)] == ["handoff:call_1"]


def test_two_recorders_both_get_every_call_and_the_trace_shows_it_once() -> None:
    from handoff_sim.events import ModelRequestEvent

    first, second = Recorder(runtime="pydantic-ai"), Recorder(runtime="pydantic-ai")
    real = FunctionModel(lambda messages, info: PaiResponse(parts=[TextPart("hello")]))
    greeter = Agent(RecordingModel(real, first, agent="greeter"), name="greeter")
    with record_models(greeter, second):
        simulated = simulate_run(lambda: greeter.run("hi"))
    assert (
        [c.agent for c in first.model_calls] == [c.agent for c in second.model_calls] == ["greeter"]
    )
    assert len(simulated.trace.of_type(ModelRequestEvent)) == 1
