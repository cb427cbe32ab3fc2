"""Recording a real OpenAI Agents SDK run: each model call of the user's real model, as it happened.

``RecordingModel`` wraps any SDK ``Model`` (``OpenAIResponsesModel``,
``OpenAIChatCompletionsModel``, a LiteLLM model, the user's own) and reports every call
to a recorder in handoff-sim's neutral terms — computed by the same code ``SimModel``
uses, so a replay through ``SimModel`` is asked exactly what was recorded — with its
answer (text, tool calls with their raw argument strings, usage) and its start and end
on the loop clock. Streams pass through chunk for chunk, unchanged; they are recorded
with their total latency and the time to their first chunk. Inside ``capture()`` the
call appears in the trace as a ``SimModel`` call does, so a recorded run and its replay
give the same trace. ``record_models`` wraps every agent of a graph, by name.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any

from agents import Agent
from agents.agent_output import AgentOutputSchemaBase
from agents.handoffs import Handoff
from agents.items import ModelResponse as AgentsModelResponse
from agents.items import TResponseInputItem, TResponseOutputItem, TResponseStreamEvent
from agents.model_settings import ModelSettings
from agents.models.interface import Model, ModelProvider, ModelTracing
from agents.models.multi_provider import MultiProvider
from agents.tool import Tool
from agents.usage import Usage as AgentsUsage
from openai.types.responses import (
    ResponseCompletedEvent,
    ResponseFunctionToolCall,
    ResponseOutputMessage,
)
from openai.types.responses.response_prompt_param import ResponsePromptParam

from handoff_sim._errors._families import ConfigurationError
from handoff_sim.adapters._call_recorder import ModelCallRecorder
from handoff_sim.adapters._capture import ModelMark, current_record, marking_model_call
from handoff_sim.adapters._model_swap import FrameworkTree
from handoff_sim.adapters._models import last_user_text
from handoff_sim.adapters._oai_capture import OpenAIAgentsCapture
from handoff_sim.adapters._oai_graph import SdkGraph, sdk_graph
from handoff_sim.adapters._oai_model import neutral_view, note_offer
from handoff_sim.adapters._oai_overrides import agent_graph
from handoff_sim.adapters._record_tools import wants_tools
from handoff_sim.messages import ModelRequest, ModelResponse, ToolCall, Usage

__all__ = [
    "FrameworkRecording",
    "ModelCallRecorder",
    "RecordingModel",
    "neutral_response",
    "record_models",
    "recording",
]


def neutral_response(output: list[TResponseOutputItem], usage: AgentsUsage | None) -> ModelResponse:
    """The SDK's answer as ours: its text, its function calls with their raw arguments, usage.

    Items a replay cannot give back (reasoning, hosted tool calls) are not part of it;
    the SDK carries them from turn to turn itself.
    """
    texts = [
        str(getattr(part, "text", "") or "")
        for item in output
        if isinstance(item, ResponseOutputMessage)
        for part in item.content
    ]
    calls = tuple(
        ToolCall(item.call_id, item.name, item.arguments)
        for item in output
        if isinstance(item, ResponseFunctionToolCall)
    )
    used = (
        Usage(input_tokens=usage.input_tokens, output_tokens=usage.output_tokens)
        if usage is not None and (usage.input_tokens or usage.output_tokens)
        else None
    )
    return ModelResponse(text="".join(texts) if texts else None, tool_calls=calls, usage=used)


@dataclass(slots=True)
class _Call:
    """One model call in progress: what was asked, when, and its place in a capture."""

    request: ModelRequest
    start: float
    step: int | None
    first_chunk: float | None = None
    """Seconds from ``start`` to the first chunk of a stream."""


def _model_name(model: Model) -> str:
    name = getattr(model, "model", None)
    return name if isinstance(name, str) and name else type(model).__name__


class RecordingModel(Model):
    """An SDK model that records every call of the model it wraps (see the module docs).

    ``RecordingModel(OpenAIResponsesModel("gpt-4o", client), recorder, agent="triage")``.
    The call is asked and answered exactly as the wrapped model asks and answers it.
    """

    def __init__(self, wrapped: Model, recorder: ModelCallRecorder, *, agent: str) -> None:
        if not isinstance(wrapped, Model):
            raise ConfigurationError(
                f"RecordingModel wraps an agents Model, got {type(wrapped).__name__}"
            )
        self.wrapped = wrapped
        self.recorder = recorder
        self.agent = agent
        self.model_name = _model_name(wrapped)

    def __repr__(self) -> str:
        return f"RecordingModel({self.wrapped!r}, agent={self.agent!r})"

    def _begin(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        handoffs: list[Handoff],
        tracing: ModelTracing,
    ) -> _Call:
        """The neutral request, reported to a capture as ``SimModel`` reports one."""
        note_offer(handoffs, tracing)
        messages, specs, parallel = neutral_view(
            system_instructions, input, model_settings, tools, handoffs
        )
        request = ModelRequest(
            agent=self.agent,
            model=self.model_name,
            messages=tuple(messages),
            tools=tuple(specs),
            parallel_tool_calls=parallel,
        )
        step = None
        found = current_record()
        if found is not None:
            recorder, record = found
            step = recorder.model_request(
                record,
                messages=len(request.messages),
                tools=request.tool_names,
                input=last_user_text(request.messages),
            )
        return _Call(request, asyncio.get_running_loop().time(), step)

    def _end(
        self,
        call: _Call,
        answer: ModelResponse | None,
        error: BaseException | None,
        end: float | None = None,
    ) -> None:
        """Report the call's outcome (at ``end``, default now) to a capture and the recorder."""
        end = asyncio.get_running_loop().time() if end is None else end
        found = current_record()
        if found is not None and call.step is not None and answer is not None:
            recorder, record = found
            recorder.model_response(record, call.step, answer.text, answer.tool_calls)
        self.recorder.model_call(
            self.agent,
            call.request,
            answer,
            error,
            call.start,
            end,
            call.first_chunk,
            self.model_name,
        )

    async def get_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None = None,
        conversation_id: str | None = None,
        prompt: ResponsePromptParam | None = None,
        **kwargs: Any,
    ) -> AgentsModelResponse:
        """The wrapped model's answer, recorded."""
        call = self._begin(system_instructions, input, model_settings, tools, handoffs, tracing)
        try:
            with marking_model_call(ModelMark(reported=True)):  # a capture: reported here
                response = await self.wrapped.get_response(
                    system_instructions,
                    input,
                    model_settings,
                    tools,
                    output_schema,
                    handoffs,
                    tracing,
                    previous_response_id=previous_response_id,
                    conversation_id=conversation_id,
                    prompt=prompt,
                    **kwargs,
                )
        except BaseException as error:  # cancelled too: a call cut off is recorded as such
            self._end(call, None, error)
            raise
        self._end(call, neutral_response(response.output, response.usage), None)
        return response

    async def stream_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None = None,
        conversation_id: str | None = None,
        prompt: ResponsePromptParam | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[TResponseStreamEvent]:
        """The wrapped model's stream, every chunk passed on as it came; recorded at its end."""
        call = self._begin(system_instructions, input, model_settings, tools, handoffs, tracing)
        stream = self.wrapped.stream_response(
            system_instructions,
            input,
            model_settings,
            tools,
            output_schema,
            handoffs,
            tracing,
            previous_response_id=previous_response_id,
            conversation_id=conversation_id,
            prompt=prompt,
            **kwargs,
        )
        clock = asyncio.get_running_loop().time
        answer: ModelResponse | None = None
        error: BaseException | None = None
        last = call.start
        try:
            while True:
                # the mark is set only while the wrapped stream runs, never across a yield
                with marking_model_call(ModelMark(reported=True)):
                    try:
                        chunk = await anext(stream)
                    except StopAsyncIteration:
                        break
                last = clock()
                if call.first_chunk is None:
                    call.first_chunk = last - call.start
                if isinstance(chunk, ResponseCompletedEvent):
                    done = chunk.response
                    answer = neutral_response(done.output, _usage_of(done.usage))
                yield chunk
        except GeneratorExit:  # the reader stopped early: what came until then is the call
            raise
        except BaseException as caught:
            error = caught
            raise
        finally:
            closing = getattr(stream, "aclose", None)
            if closing is not None:
                await closing()
            self._finish_stream(call, answer, error, last)

    def _finish_stream(
        self,
        call: _Call,
        answer: ModelResponse | None,
        error: BaseException | None,
        last: float,
    ) -> None:
        """Record a stream's call: its answer, or the error (a stream cut off: cancelled)."""
        if answer is None and error is None:
            error = asyncio.CancelledError("the stream ended before its response.completed event")
        # the model's latency ends with its last chunk, not when the reader lets go
        self._end(call, answer, error, last if error is None else None)


def _usage_of(usage: Any) -> AgentsUsage | None:
    """A Responses usage (of a completed event) as the SDK's usage."""
    if usage is None:
        return None
    return AgentsUsage(
        requests=1,
        input_tokens=int(usage.input_tokens),
        output_tokens=int(usage.output_tokens),
        total_tokens=int(usage.total_tokens),
    )


def _real_model(agent: Agent[Any], provider: ModelProvider) -> Model:
    """The model ``agent`` runs on: its own, or its model name resolved as the SDK does."""
    model = agent.model
    if isinstance(model, RecordingModel):
        raise ConfigurationError(
            f"record_models: the agent {agent.name!r} is recorded already (record blocks nest "
            "only over different agents)"
        )
    if isinstance(model, Model):
        return model
    return provider.get_model(model)


@contextmanager
def record_models(
    root: Agent[Any], recorder: ModelCallRecorder, *, provider: ModelProvider | None = None
) -> Iterator[FrameworkTree]:
    """Every agent of ``root``'s graph records its model calls to ``recorder``, by agent name.

    The graph is found as ``override_models`` finds it (agents as tools, handoffs). An
    agent whose model is a name (or none: the SDK's default model) gets the model the
    SDK would give it: ``provider.get_model(name)``, the SDK's default ``MultiProvider``
    unless given — pass the provider your ``RunConfig(model_provider=...)`` names. A
    ``RunConfig(model=...)`` wins over every agent's model, recorded or not: leave it out
    while recording. The previous models are put back when the block ends.
    """
    if not isinstance(root, Agent):
        raise ConfigurationError(f"record_models: expected an agents.Agent, got {root!r}")
    tree = agent_graph(root)
    if tree.unnamed:
        raise ConfigurationError(
            "record_models: an agent without a name cannot be recorded (a replay finds each "
            "agent's recorded calls by its name)"
        )
    resolve = provider or MultiProvider()
    swaps = [
        (agent, RecordingModel(_real_model(agent, resolve), recorder, agent=name))
        for name, agents in tree.agents.items()
        for agent in agents
    ]
    previous = [(agent, agent.model) for agent, _ in swaps]
    try:
        for agent, model in swaps:
            agent.model = model
        yield tree
    finally:
        for agent, model in reversed(previous):
            agent.model = model


@dataclass(frozen=True, slots=True)
class FrameworkRecording:
    """What recording an SDK graph gives a recorder: the graph in file form, the live
    capture of the block (its trace, once the block has ended), the framework version."""

    runtime: str
    versions: dict[str, str]
    graph: SdkGraph
    capture: OpenAIAgentsCapture
    tree: FrameworkTree


@contextmanager
def recording(
    root: Agent[Any], recorder: ModelCallRecorder, *, provider: ModelProvider | None = None
) -> Iterator[FrameworkRecording]:
    """Record the block's SDK runs of ``root``'s graph: every model call, and the trace.

    What ``handoff_sim.recording.record`` does for an SDK agent: the models are wrapped
    (:func:`record_models`) and the runs captured; the graph is described as it was
    when the block began.
    """
    graph = sdk_graph(root)
    versions = {"openai-agents": importlib.metadata.version("openai-agents")}
    with (
        record_models(root, recorder, provider=provider) as tree,
        OpenAIAgentsCapture() as captured,
        ExitStack() as stack,
    ):
        if wants_tools(recorder):  # record(..., tools="recorded"): the plain tools' calls too
            from handoff_sim.adapters._oai_record_tools import recorded_tools

            stack.enter_context(recorded_tools(tree, recorder))  # type: ignore[arg-type]
        yield FrameworkRecording("openai-agents", versions, graph, captured, tree)
