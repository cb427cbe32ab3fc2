"""``SimModel`` for the OpenAI Agents SDK: our fake models as an ``agents`` ``Model``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Mapping
from typing import Any

from agents.agent_output import AgentOutputSchemaBase
from agents.handoffs import Handoff
from agents.items import ModelResponse as AgentsModelResponse
from agents.items import TResponseInputItem, TResponseOutputItem, TResponseStreamEvent
from agents.model_settings import ModelSettings
from agents.models.interface import Model, ModelTracing
from agents.tool import FunctionTool, Tool
from agents.usage import Usage
from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseCreatedEvent,
    ResponseFunctionToolCall,
    ResponseOutputItemAddedEvent,
    ResponseOutputItemDoneEvent,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseTextDeltaEvent,
    ResponseUsage,
)
from openai.types.responses.response_prompt_param import ResponsePromptParam
from openai.types.responses.response_usage import InputTokensDetails, OutputTokensDetails

from handoff_sim._models import ModelClient
from handoff_sim.adapters._capture import active_capture, current_record
from handoff_sim.adapters._models import ModelBridge
from handoff_sim.adapters._simulate import note_failure
from handoff_sim.errors import RecordingError
from handoff_sim.messages import Message, ModelResponse, ToolCall, ToolSpec
from handoff_sim.messages import Usage as OurUsage

__all__ = [
    "SimModel",
    "neutral_view",
    "note_offer",
    "stream_events",
    "to_messages",
    "to_output_items",
    "to_usage",
]

_TRACING_OFF = (
    "a run inside capture() had tracing disabled (RunConfig(tracing_disabled=True)), "
    "so capture() could not see its agents and tool calls; leave tracing on inside capture() "
    "(capture() keeps every span in memory and exports nothing)"
)


class SimModel(Model):
    """One of our fake models (``ScriptedModel``, ``FunctionModel``...) as an SDK ``Model``.

    ``Agent(name=..., model=SimModel(ScriptedModel([...])))``. The request the fake
    sees is the conversation in our message form (system instructions, user input,
    assistant text and tool calls, tool results) and the tools and handoffs offered;
    its answer becomes Responses output items: text and function calls, with the raw
    arguments string as given. Latency is the fake's own ``asyncio.sleep``, so it is
    virtual under ``simulate_run``.
    """

    def __init__(self, client: ModelClient) -> None:
        self._bridge = ModelBridge(client, owner="SimModel")

    @property
    def client(self) -> ModelClient:
        """The fake model this model asks."""
        return self._bridge.client

    def __repr__(self) -> str:
        return f"SimModel({self.client!r})"

    async def _answer(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        handoffs: list[Handoff],
        tracing: ModelTracing,
    ) -> tuple[list[TResponseOutputItem], Usage]:
        note_offer(handoffs, tracing)
        messages, specs, parallel = neutral_view(
            system_instructions, input, model_settings, tools, handoffs
        )
        request = self._bridge.request(messages, specs, parallel_tool_calls=parallel)
        try:
            response = await self._bridge.complete(request)
        except RecordingError as error:  # an agent as a tool would hand it to its model
            note_failure(error)
            raise
        return to_output_items(response, self._bridge.calls), to_usage(response.usage)

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
        """Ask the fake model and return its answer as one Responses model response."""
        output, usage = await self._answer(
            system_instructions, input, model_settings, tools, handoffs, tracing
        )
        return AgentsModelResponse(output=output, usage=usage, response_id=None)

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
        """The same answer as a stream: created, each item added (text as one delta), completed."""
        output, usage = await self._answer(
            system_instructions, input, model_settings, tools, handoffs, tracing
        )
        for event in stream_events(output, f"resp_{self._bridge.calls}", usage):
            yield event


def note_offer(handoffs: list[Handoff], tracing: ModelTracing) -> None:
    """Tell a capture which offered tools are control transfers (and if it cannot see the run)."""
    capture = active_capture()
    if capture is not None and tracing.is_disabled():
        capture.problems.append(_TRACING_OFF)
    found = current_record()
    if found is not None:
        found[1].handoff_tools = frozenset(h.tool_name for h in handoffs)


def neutral_view(
    system_instructions: str | None,
    input: str | list[TResponseInputItem],
    model_settings: ModelSettings,
    tools: list[Tool],
    handoffs: list[Handoff],
) -> tuple[list[Message], list[ToolSpec], bool]:
    """The SDK's request in our terms: the messages, the tools offered, ``parallel_tool_calls``.

    What ``SimModel`` shows its fake and what a recording model records: one function,
    so a replay is asked exactly what was recorded.
    """
    parallel = model_settings.parallel_tool_calls
    return (
        to_messages(system_instructions, input),
        [*_tool_specs(tools), *_handoff_specs(handoffs)],
        True if parallel is None else parallel,
    )


def to_usage(usage: OurUsage | None) -> Usage:
    """Our usage (a replayed step's, say) as the SDK's: one request and its tokens."""
    if usage is None:
        return Usage(requests=1, input_tokens=0, output_tokens=0, total_tokens=0)
    return Usage(
        requests=1,
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        total_tokens=usage.input_tokens + usage.output_tokens,
    )


def _text_of(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, Iterable):
        parts = [_as_dict(p) for p in content]
        return "".join(str(p.get("text") or p.get("refusal") or "") for p in parts)
    return "" if content is None else str(content)


def _as_dict(item: object) -> Mapping[str, Any]:
    if isinstance(item, Mapping):
        return item
    dump = getattr(item, "model_dump", None)
    return dump(exclude_unset=True) if callable(dump) else {}


def to_messages(
    system_instructions: str | None, input: str | list[TResponseInputItem]
) -> list[Message]:
    """The framework's input items as our messages (what our fake models read)."""
    out: list[Message] = []
    if system_instructions:
        out.append(Message(role="system", content=system_instructions))
    if isinstance(input, str):
        out.append(Message(role="user", content=input))
        return out
    for raw in input:
        _append_item(out, _as_dict(raw))
    return out


def _append_item(out: list[Message], item: Mapping[str, Any]) -> None:
    kind, role = item.get("type"), item.get("role")
    if kind == "function_call":
        call = ToolCall(
            str(item.get("call_id") or ""), str(item.get("name") or ""), str(item.get("arguments"))
        )
        last = out[-1] if out else None
        if last is not None and last.role == "assistant":
            out[-1] = Message(
                role="assistant", content=last.content, tool_calls=(*last.tool_calls, call)
            )
        else:
            out.append(Message(role="assistant", tool_calls=(call,)))
    elif kind == "function_call_output":
        output = item.get("output")
        text = output if isinstance(output, str) else _text_of(output)
        out.append(Message(role="tool", content=text, tool_call_id=str(item.get("call_id"))))
    elif role == "assistant":
        out.append(Message(role="assistant", content=_text_of(item.get("content"))))
    elif role in ("system", "developer"):
        out.append(Message(role="system", content=_text_of(item.get("content"))))
    elif role == "user":
        out.append(Message(role="user", content=_text_of(item.get("content"))))


def _tool_specs(tools: list[Tool]) -> list[ToolSpec]:
    specs = []
    for tool in tools:
        if isinstance(tool, FunctionTool):
            specs.append(ToolSpec(tool.name, tool.description, tool.params_json_schema))
        else:
            specs.append(ToolSpec(str(getattr(tool, "name", type(tool).__name__)), ""))
    return specs


def _handoff_specs(handoffs: list[Handoff]) -> list[ToolSpec]:
    return [ToolSpec(h.tool_name, h.tool_description, h.input_json_schema) for h in handoffs]


def to_output_items(response: ModelResponse, number: int) -> list[TResponseOutputItem]:
    """Our answer as Responses output items: a message for the text, a function call per call."""
    items: list[TResponseOutputItem] = []
    if response.text is not None and (response.text or not response.tool_calls):
        items.append(
            ResponseOutputMessage(
                id=f"msg_{number}",
                type="message",
                role="assistant",
                status="completed",
                content=[
                    ResponseOutputText(
                        text=response.text, type="output_text", annotations=[], logprobs=[]
                    )
                ],
            )
        )
    for call in response.tool_calls:
        items.append(
            ResponseFunctionToolCall(
                id=call.id,
                call_id=call.id,
                type="function_call",
                name=call.name,
                arguments=call.arguments,
                status="completed",
            )
        )
    return items


def stream_events(
    output: list[TResponseOutputItem], response_id: str, used: Usage | None = None
) -> list[TResponseStreamEvent]:
    """The stream of one answer, ending with ``response.completed`` carrying every item."""
    used = used or to_usage(None)
    usage = ResponseUsage(
        input_tokens=used.input_tokens,
        output_tokens=used.output_tokens,
        total_tokens=used.total_tokens,
        input_tokens_details=InputTokensDetails(cached_tokens=0, cache_write_tokens=0),
        output_tokens_details=OutputTokensDetails(reasoning_tokens=0),
    )
    done = Response(
        id=response_id,
        created_at=0,
        model="handoff-sim",
        object="response",
        output=output,
        tool_choice="auto",
        tools=[],
        top_p=None,
        parallel_tool_calls=True,
        status="completed",
        usage=usage,
    )
    pending = done.model_copy(update={"output": [], "status": "in_progress", "usage": None})
    events: list[TResponseStreamEvent] = [
        ResponseCreatedEvent(type="response.created", response=pending, sequence_number=0)
    ]
    for index, item in enumerate(output):
        events.append(
            ResponseOutputItemAddedEvent(
                type="response.output_item.added",
                item=item,
                output_index=index,
                sequence_number=len(events),
            )
        )
        if isinstance(item, ResponseOutputMessage):
            events.append(
                ResponseTextDeltaEvent(
                    type="response.output_text.delta",
                    item_id=item.id,
                    output_index=index,
                    content_index=0,
                    delta=_text_of(item.content),
                    logprobs=[],
                    sequence_number=len(events),
                )
            )
        events.append(
            ResponseOutputItemDoneEvent(
                type="response.output_item.done",
                item=item,
                output_index=index,
                sequence_number=len(events),
            )
        )
    events.append(
        ResponseCompletedEvent(
            type="response.completed", response=done, sequence_number=len(events)
        )
    )
    return events
