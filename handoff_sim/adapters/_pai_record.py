"""Recording a real pydantic-ai run: each model call of the user's real model, as it happened.

``RecordingModel`` wraps any pydantic-ai ``Model`` (any provider) and reports every
request to a recorder in handoff-sim's neutral terms — computed by the same code
``SimModel`` uses, so a replay through ``SimModel`` asks exactly what was recorded —
with its answer (text, tool calls with their raw argument strings, structured output
as the output tool's call, usage) and its start and end on the loop clock. Streams
pass through unchanged; they are recorded with their total latency and the time to
their first chunk.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from pydantic_ai import RunContext
from pydantic_ai.messages import ModelMessage, TextPart, ToolCallPart
from pydantic_ai.messages import ModelResponse as PaiResponse
from pydantic_ai.models import Model, ModelRequestParameters, StreamedResponse, infer_model
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.wrapper import WrapperModel
from pydantic_ai.settings import ModelSettings
from pydantic_ai.usage import RequestUsage

from handoff_sim import ModelRequest, ModelResponse, ToolCall
from handoff_sim._context import current_frame
from handoff_sim.adapters._call_recorder import ModelCallRecorder
from handoff_sim.adapters._capture import current_model_mark, current_record
from handoff_sim.adapters._models import last_user_text
from handoff_sim.adapters._pai_model import SimModel, neutral_view, output_tool_names
from handoff_sim.messages import Usage

__all__ = ["ModelCallRecorder", "RecordingModel", "neutral_response"]


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


_SOME_USAGE = RequestUsage(output_tokens=1)


async def _seen(
    messages: list[ModelMessage],
    settings: ModelSettings | None,
    parameters: ModelRequestParameters,
) -> AgentInfo:
    """What ``SimModel`` would be shown for this request: pydantic-ai prepares it the same way."""
    seen: list[AgentInfo] = []

    async def look(_: list[ModelMessage], info: AgentInfo) -> PaiResponse:
        seen.append(info)
        return PaiResponse(parts=[], usage=_SOME_USAGE)  # with usage: none is estimated

    await FunctionModel(look).request(messages, settings, parameters)
    return seen[0]


@dataclass(slots=True)
class _Call:
    """One model call in flight: what was asked, its place and start, its step in a capture."""

    request: ModelRequest
    order: int
    start: float
    step: int | None
    first_chunk: float | None = None


class RecordingModel(WrapperModel):
    """A pydantic-ai model that records every call of the model it wraps (see module docs).

    ``RecordingModel(OpenAIChatModel("gpt-4o", provider=...), recorder, agent="triage")``;
    without ``agent`` a call is named after the agent whose run makes it, as far as
    pydantic-ai or the capture say. Inside ``capture()`` each call is reported as
    ``SimModel`` reports one, so a recorded run and its replay give the same trace.
    """

    def __init__(
        self, wrapped: Model | str, recorder: ModelCallRecorder, *, agent: str | None = None
    ) -> None:
        super().__init__(infer_model(wrapped))  # a name such as 'openai:gpt-4o' too
        self.recorder = recorder
        self.agent = agent
        self.output_tools: dict[str, set[str]] = {}
        """Agent name -> the output tools its requests offered (structured output)."""
        self.first_requests: dict[str, ModelRequest] = {}
        """Agent name -> its first request (what the recording says of the agent)."""

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

    async def _begin(
        self,
        messages: list[ModelMessage],
        settings: ModelSettings | None,
        parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None,
    ) -> _Call:
        """The neutral request, reported to a capture as ``SimModel`` reports one."""
        info = await _seen(messages, settings, parameters)
        conversation, tools, parallel = neutral_view(messages, info)
        request = ModelRequest(
            agent=self._agent(run_context),
            model=self.model_name,
            messages=tuple(conversation),
            tools=tuple(tools),
            parallel_tool_calls=parallel,
        )
        outputs = output_tool_names([*info.function_tools, *info.output_tools])
        self.first_requests.setdefault(request.agent, request)
        if outputs:
            self.output_tools.setdefault(request.agent, set()).update(outputs)
        # our own SimModel (or a recording model inside) reports the call to a capture itself
        inner = isinstance(self.wrapped, SimModel | RecordingModel)
        step = None if inner else _report_request(request, outputs)
        return _Call(request, self.recorder.ticket(), _now(), step)

    def _end(self, call: _Call, answer: PaiResponse | None, error: BaseException | None) -> None:
        """Report the call's outcome to a capture and to the recorder."""
        end = _now()
        neutral = None if answer is None else neutral_response(answer)
        found = current_record()
        if found is not None and call.step is not None and neutral is not None:
            recorder, record = found
            recorder.model_response(record, call.step, neutral.text, neutral.tool_calls)
        first = None if call.first_chunk is None else call.first_chunk - call.start
        request = call.request
        self.recorder.model_call(
            request.agent,
            request,
            neutral,
            error,
            call.start,
            end,
            first,
            request.model,
            order=call.order,
        )

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> PaiResponse:
        call = await self._begin(messages, model_settings, model_request_parameters, None)
        try:
            answer = await self.wrapped.request(messages, model_settings, model_request_parameters)
        except BaseException as error:  # cancelled too: a call cut off is recorded as such
            self._end(call, None, error)
            raise
        self._end(call, answer, None)
        return answer

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncGenerator[StreamedResponse]:
        call = await self._begin(messages, model_settings, model_request_parameters, run_context)
        stream: StreamedResponse | None = None
        try:
            async with self.wrapped.request_stream(
                messages, model_settings, model_request_parameters, run_context
            ) as stream:
                call.first_chunk = (
                    _now()
                )  # pydantic-ai's models hand a stream over read to its first chunk
                yield stream
        except BaseException as error:
            if stream is None or isinstance(error, asyncio.CancelledError):
                self._end(call, None, error)
            else:  # the reader stopped: what the model said until then is its answer
                self._end(call, stream.get(), None)
            raise
        self._end(call, stream.get(), None)


def _now() -> float:
    """The running loop's clock: virtual under a simulation, real otherwise."""
    return asyncio.get_running_loop().time()


def _report_request(request: ModelRequest, outputs: frozenset[str]) -> int | None:
    """Inside a capture, the call's ``model_request`` (the span's own report is skipped)."""
    found = current_record()
    if found is None:
        return None
    mark = current_model_mark()
    if mark is not None:
        mark.reported = True
    recorder, record = found
    # structured output comes back through these: the run's output, not tool calls
    record.output_tools = outputs
    return recorder.model_request(
        record,
        messages=len(request.messages),
        tools=request.tool_names,
        input=last_user_text(request.messages),
    )
