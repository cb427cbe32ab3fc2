"""Recording a real pydantic-ai run: each model call of the user's real model, as it happened.

``RecordingModel`` wraps any pydantic-ai ``Model`` (any provider) and reports every
request to a recorder in handoff-sim's neutral terms — computed by the same code
``SimModel`` uses, so a replay through ``SimModel`` asks exactly what was recorded —
with its answer (text, tool calls with their raw argument strings, structured output
as the output tool's call, usage) and its start and end on the loop clock. Streams
pass through unchanged; they are recorded with their total latency and the time to
their first chunk. ``record_models`` wraps every agent of a graph, by name.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Iterator
from contextlib import ExitStack, asynccontextmanager, contextmanager
from typing import Any, Protocol

from pydantic_ai import Agent, RunContext
from pydantic_ai.messages import ModelMessage, TextPart, ToolCallPart
from pydantic_ai.messages import ModelResponse as PaiResponse
from pydantic_ai.models import Model, ModelRequestParameters, StreamedResponse, infer_model
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.wrapper import WrapperModel
from pydantic_ai.settings import ModelSettings

from handoff_sim._context import current_frame
from handoff_sim.adapters._model_swap import FrameworkTree
from handoff_sim.adapters._pai_model import neutral_view
from handoff_sim.adapters._pai_overrides import agent_graph
from handoff_sim.errors import ConfigurationError
from handoff_sim.messages import ModelRequest, ModelResponse, ToolCall, Usage

__all__ = ["ModelCallRecorder", "RecordingModel", "neutral_response", "record_models"]


class ModelCallRecorder(Protocol):
    """Where a recording model reports its calls (``handoff_sim.recording.Recorder``)."""

    def model_call(
        self,
        agent: str,
        request: ModelRequest,
        response: ModelResponse | None,
        error: BaseException | None,
        start: float,
        end: float,
        first_chunk: float | None,
        model: str,
    ) -> object:
        """One model call: what was asked, what came back (or the error), and when."""


def neutral_response(response: PaiResponse) -> ModelResponse:
    """pydantic-ai's answer as ours: its text, its tool calls with their raw arguments, its usage.

    A call whose arguments the model gave as a string keeps that string as it came;
    structured output is the call of its output tool, like any other call.
    """
    texts = [p.content for p in response.parts if isinstance(p, TextPart)]
    calls = tuple(
        ToolCall(p.tool_call_id, p.tool_name, _raw_arguments(p))
        for p in response.parts
        if isinstance(p, ToolCallPart)
    )
    used = response.usage
    usage = (
        Usage(input_tokens=used.input_tokens, output_tokens=used.output_tokens)
        if used.input_tokens or used.output_tokens
        else None
    )
    return ModelResponse(text="".join(texts) if texts else None, tool_calls=calls, usage=usage)


def _raw_arguments(part: ToolCallPart) -> str:
    """The arguments as the model wrote them; a dict (some providers parse them) as JSON."""
    return part.args if isinstance(part.args, str) else part.args_as_json_str()


async def _seen(
    messages: list[ModelMessage],
    settings: ModelSettings | None,
    parameters: ModelRequestParameters,
) -> AgentInfo:
    """What ``SimModel`` would be shown for this request: pydantic-ai prepares it the same way."""
    seen: list[AgentInfo] = []

    async def look(_: list[ModelMessage], info: AgentInfo) -> PaiResponse:
        seen.append(info)
        return PaiResponse(parts=[])

    await FunctionModel(look).request(messages, settings, parameters)
    return seen[0]


class RecordingModel(WrapperModel):
    """A pydantic-ai model that records every call of the model it wraps (see module docs).

    ``RecordingModel(OpenAIChatModel("gpt-4o", provider=...), recorder, agent="triage")``;
    without ``agent`` a call is named after the agent whose run makes it, as far as
    pydantic-ai or the capture say.
    """

    def __init__(
        self, wrapped: Model | str, recorder: ModelCallRecorder, *, agent: str | None = None
    ) -> None:
        super().__init__(infer_model(wrapped))  # a name such as 'openai:gpt-4o' too
        self.recorder = recorder
        self.agent = agent

    def __repr__(self) -> str:
        return f"RecordingModel({self.wrapped!r}, agent={self.agent!r})"

    def _agent(self, run_context: RunContext[Any] | None) -> str:
        if self.agent:
            return self.agent
        named = getattr(getattr(run_context, "agent", None), "name", None)
        if isinstance(named, str) and named:
            return named
        frame = current_frame()
        return frame.agent if frame is not None else "agent"

    async def _request(
        self,
        messages: list[ModelMessage],
        settings: ModelSettings | None,
        parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None,
    ) -> ModelRequest:
        conversation, tools, parallel = neutral_view(
            messages, await _seen(messages, settings, parameters)
        )
        return ModelRequest(
            agent=self._agent(run_context),
            model=self.model_name,
            messages=tuple(conversation),
            tools=tuple(tools),
            parallel_tool_calls=parallel,
        )

    def _report(
        self,
        request: ModelRequest,
        answer: PaiResponse | None,
        error: BaseException | None,
        times: tuple[float, float, float | None],
    ) -> None:
        start, end, first_chunk = times
        self.recorder.model_call(
            request.agent,
            request,
            None if answer is None else neutral_response(answer),
            error,
            start,
            end,
            first_chunk,
            request.model,
        )

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> PaiResponse:
        asked = await self._request(messages, model_settings, model_request_parameters, None)
        clock = asyncio.get_running_loop().time
        start = clock()
        try:
            answer = await self.wrapped.request(messages, model_settings, model_request_parameters)
        except BaseException as error:  # cancelled too: a call cut off is recorded as such
            self._report(asked, None, error, (start, clock(), None))
            raise
        self._report(asked, answer, None, (start, clock(), None))
        return answer

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncGenerator[StreamedResponse]:
        asked = await self._request(messages, model_settings, model_request_parameters, run_context)
        clock = asyncio.get_running_loop().time
        start = clock()
        first: float | None = None
        stream: StreamedResponse | None = None
        try:
            async with self.wrapped.request_stream(
                messages, model_settings, model_request_parameters, run_context
            ) as stream:
                first = clock()  # pydantic-ai's models hand a stream over with its first chunk read
                yield stream
        except BaseException as error:
            if stream is None or isinstance(error, asyncio.CancelledError):
                self._report(asked, None, error, (start, clock(), first))
            else:  # the reader stopped: what the model said until then is its answer
                self._report(asked, stream.get(), None, (start, clock(), first))
            raise
        self._report(asked, stream.get(), None, (start, clock(), first))


def _recording(name: str | None, agent: Agent[Any, Any], recorder: ModelCallRecorder) -> Model:
    model = agent.model
    if model is None:
        raise ConfigurationError(
            f"record_models: the pydantic-ai agent {name or 'without a name'!r} has no model "
            "of its own (it gets one per run); give it one with Agent(model=...) to record it"
        )
    if isinstance(model, RecordingModel):
        return model
    return RecordingModel(model, recorder, agent=name)


@contextmanager
def record_models(root: Agent[Any, Any], recorder: ModelCallRecorder) -> Iterator[FrameworkTree]:
    """Every agent of ``root``'s graph records its model calls to ``recorder``, by agent name.

    The graph is found as ``override_models`` finds it; each agent runs on its own model
    wrapped in :class:`RecordingModel` (``agent.override(model=...)``) inside the block.
    """
    if not isinstance(root, Agent):
        raise ConfigurationError(f"record_models: expected a pydantic_ai.Agent, got {root!r}")
    tree = agent_graph(root)
    with ExitStack() as stack:
        for name, agents in tree.agents.items():
            for agent in agents:
                stack.enter_context(agent.override(model=_recording(name, agent, recorder)))
        for agent in tree.unnamed:
            stack.enter_context(agent.override(model=_recording(None, agent, recorder)))
        yield tree
