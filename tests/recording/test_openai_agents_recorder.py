"""The openai-agents recording model alone: what it records, what it passes on, what it refuses."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any

import pytest

from handoff_sim import ConfigurationError
from handoff_sim.testing import FunctionModel, ScriptedModel
from tests._helpers import needs_extra

if TYPE_CHECKING:
    from agents import Agent

    from handoff_sim.messages import ModelRequest, ModelResponse

pytestmark = needs_extra("openai-agents", "agents")


def _agent(name: str, model: Any, **kwargs: Any) -> Agent[None]:
    from agents import Agent

    return Agent(name=name, instructions=f"You are {name}.", model=model, **kwargs)


def _sim(*steps: Any) -> Any:
    from handoff_sim.adapters.openai_agents import SimModel

    return SimModel(ScriptedModel(list(steps)))


def _virtually(coroutine: Any) -> Any:
    """Run ``coroutine`` on the virtual-time loop."""
    from handoff_sim.simulation import Simulation

    with Simulation() as sim:
        return sim.run_coroutine(coroutine)


def test_a_call_is_recorded_with_its_request_answer_usage_and_virtual_latency() -> None:
    from agents import Runner

    from handoff_sim.adapters.openai_agents import record_models, simulate_run
    from handoff_sim.recording import Recorder

    recorder = Recorder(runtime="openai-agents")
    step = {"text": "42", "latency": 2.5, "usage": {"input_tokens": 9, "output_tokens": 1}}
    helper = _agent("helper", _sim(step))
    with record_models(helper, recorder):
        run = simulate_run(Runner.run(helper, "the question"))
    assert run.result.final_output == "42"
    (call,) = recorder.model_calls
    assert call.agent == "helper"
    assert [(m.role, m.content) for m in call.request.messages] == [
        ("system", "You are helper."),
        ("user", "the question"),
    ]
    assert call.response is not None
    assert call.response.text == "42"
    assert call.response.usage is not None
    assert (call.response.usage.input_tokens, call.response.usage.output_tokens) == (9, 1)
    assert call.end - call.start == 2.5
    assert call.first_chunk is None


def test_a_failing_call_is_recorded_with_its_error_and_still_raised() -> None:
    from agents import Runner

    from handoff_sim.adapters.openai_agents import SimModel, record_models, simulate_run
    from handoff_sim.recording import Recorder

    async def down(request: ModelRequest) -> ModelResponse:
        await asyncio.sleep(1)
        raise RuntimeError("provider down")

    recorder = Recorder(runtime="openai-agents")
    helper = _agent("helper", SimModel(FunctionModel(down)))
    with record_models(helper, recorder), pytest.raises(RuntimeError, match="provider down"):
        simulate_run(Runner.run(helper, "hi"))
    (call,) = recorder.model_calls
    assert call.response is None
    assert str(call.error) == "provider down"
    assert call.end - call.start == 1


class _Stream:
    """An SDK model whose stream is a fixed list of event objects (to check identity)."""

    def __init__(self, events: list[Any]) -> None:
        self.events = events

    async def stream(self) -> AsyncIterator[Any]:
        for event in self.events:
            await asyncio.sleep(0.5)
            yield event


def _streaming_model(events: list[Any]) -> Any:
    from agents.models.interface import Model

    class Streaming(Model):
        model = "streaming-test"

        async def get_response(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

        def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
            return _Stream(events).stream()

    return Streaming()


def _events(text: str) -> list[Any]:
    from openai.types.responses import ResponseOutputMessage, ResponseOutputText

    from handoff_sim.adapters._oai_model import stream_events

    message = ResponseOutputMessage(
        id="msg_1",
        type="message",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
    )
    return list(stream_events([message], "resp_1"))


def test_a_stream_passes_every_event_through_and_keeps_its_time_to_first_chunk() -> None:
    from agents import ModelSettings, ModelTracing

    from handoff_sim.adapters.openai_agents import RecordingModel
    from handoff_sim.recording import Recorder

    events = _events("streamed")
    recorder = Recorder(runtime="openai-agents")
    model = RecordingModel(_streaming_model(events), recorder, agent="helper")

    async def main() -> list[Any]:
        stream = model.stream_response(
            None, "hi", ModelSettings(), [], None, [], ModelTracing.DISABLED
        )
        return [event async for event in stream]

    seen = _virtually(main())
    assert len(seen) == len(events)
    assert all(a is b for a, b in zip(seen, events, strict=True))
    (call,) = recorder.model_calls
    assert call.response is not None
    assert call.response.text == "streamed"
    assert call.first_chunk == 0.5
    assert call.end - call.start == 0.5 * len(events)


def test_a_stream_left_before_its_completed_event_is_recorded_as_cut_off() -> None:
    from agents import ModelSettings, ModelTracing

    from handoff_sim.adapters.openai_agents import RecordingModel
    from handoff_sim.recording import Recorder

    recorder = Recorder(runtime="openai-agents")
    model = RecordingModel(_streaming_model(_events("never done")), recorder, agent="helper")

    async def main() -> None:
        stream = model.stream_response(
            None, "hi", ModelSettings(), [], None, [], ModelTracing.DISABLED
        )
        async for _ in stream:
            break
        await stream.aclose()  # type: ignore[attr-defined]

    _virtually(main())
    (call,) = recorder.model_calls
    assert call.response is None
    assert call.cancelled


def test_record_models_records_every_agent_and_puts_each_model_back() -> None:
    from agents.models.interface import Model, ModelProvider

    from handoff_sim.adapters.openai_agents import RecordingModel, record_models
    from handoff_sim.recording import Recorder

    resolved: list[str | None] = []
    named = _sim({"text": "from the provider"})

    class Provider(ModelProvider):
        def get_model(self, model_name: str | None) -> Model:
            resolved.append(model_name)
            return named  # type: ignore[no-any-return]

    own = _sim({"text": "own"})
    leaf = _agent("leaf", "gpt-4o")
    root = _agent("root", own, tools=[leaf.as_tool(tool_name="leaf", tool_description="")])
    with record_models(root, Recorder(), provider=Provider()) as tree:
        assert tree.names == ["leaf", "root"]
        assert isinstance(root.model, RecordingModel)
        assert root.model.wrapped is own
        assert isinstance(leaf.model, RecordingModel)
        assert leaf.model.wrapped is named
    assert resolved == ["gpt-4o"]
    assert root.model is own
    assert leaf.model == "gpt-4o"


def test_an_agent_recorded_twice_is_refused_naming_it() -> None:
    from handoff_sim.adapters.openai_agents import RecordingModel, record_models
    from handoff_sim.recording import Recorder

    helper = _agent("helper", _sim({"text": "x"}))
    with record_models(helper, Recorder()), ExitStack() as inner:
        with pytest.raises(ConfigurationError, match="'helper' is recorded already"):
            inner.enter_context(record_models(helper, Recorder()))
        assert isinstance(helper.model, RecordingModel)  # the outer block's wrapper, intact


def test_recording_wraps_only_sdk_models() -> None:
    from handoff_sim.adapters.openai_agents import RecordingModel
    from handoff_sim.recording import Recorder

    with pytest.raises(ConfigurationError, match="wraps an agents Model, got ScriptedModel"):
        RecordingModel(ScriptedModel([]), Recorder(), agent="x")  # type: ignore[arg-type]


def test_record_inside_a_running_event_loop_writes_a_file_that_replays(tmp_path: Any) -> None:
    from agents import Runner

    from handoff_sim.adapters.openai_agents import simulate_run
    from handoff_sim.recording import record, replay
    from handoff_sim.scenarios import load_path

    helper = _agent("helper", _sim({"text": "answer", "latency": 0.01}))
    path = tmp_path / "async.yaml"

    async def an_async_test() -> None:
        with record(helper, path):
            await Runner.run(helper, "q")

    asyncio.run(an_async_test())
    assert load_path(path)[0].spec.recorded is not None
    with replay(helper, path):
        run = simulate_run(Runner.run(helper, "q"))
    assert run.result.final_output == "answer"
