"""``SimModel`` for pydantic-ai: our fake models as a pydantic-ai ``Model``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Sequence
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.usage import RequestUsage

from handoff_sim._models import ModelClient
from handoff_sim.adapters._capture import current_record
from handoff_sim.adapters._models import ModelBridge
from handoff_sim.messages import Message, ToolCall, ToolSpec
from handoff_sim.messages import ModelResponse as SimResponse

__all__ = ["SimModel", "neutral_view", "output_tool_names", "to_messages"]


class SimModel(FunctionModel):
    """One of our fake models (``ScriptedModel``, ``FunctionModel``...) as a pydantic-ai Model.

    ``Agent(SimModel(ScriptedModel([...])), name=...)`` or
    ``agent.override(model=SimModel(...))``. The fake sees the conversation in our
    message form and the tools offered (function tools, then output tools); its
    answer becomes a ``TextPart`` and one ``ToolCallPart`` per call, with the raw
    arguments string as given, so pydantic-ai's own validation and retry prompts
    deal with malformed calls. Streaming runs get the same answer as a stream.
    Latency is the fake's own ``asyncio.sleep``, virtual under ``simulate_run``.
    """

    def __init__(self, client: ModelClient, *, model_name: str | None = None) -> None:
        bridge = ModelBridge(client, owner="SimModel")
        self._bridge = bridge
        super().__init__(
            self._respond,
            stream_function=self._stream,
            model_name=model_name or f"handoff-sim:{bridge.model_name}",
        )

    @property
    def client(self) -> ModelClient:
        """The fake model this model asks."""
        return self._bridge.client

    def __repr__(self) -> str:
        return f"SimModel({self.client!r})"

    async def _answer(self, messages: list[ModelMessage], info: AgentInfo) -> SimResponse:
        found = current_record()
        if found is not None:
            # structured output comes back through these: the run's output, not tool calls
            found[1].output_tools = output_tool_names([*info.function_tools, *info.output_tools])
        conversation, tools, parallel = neutral_view(messages, info)
        request = self._bridge.request(conversation, tools, parallel_tool_calls=parallel)
        return await self._bridge.complete(request)

    async def _respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        answer = await self._answer(messages, info)
        parts: list[Any] = []
        if answer.text is not None and (answer.text or not answer.tool_calls):
            parts.append(TextPart(answer.text))
        parts.extend(
            ToolCallPart(c.name, c.arguments, tool_call_id=c.id) for c in answer.tool_calls
        )
        if answer.usage is None:
            return ModelResponse(parts=parts)  # pydantic-ai estimates it
        usage = RequestUsage(
            input_tokens=answer.usage.input_tokens, output_tokens=answer.usage.output_tokens
        )
        return ModelResponse(parts=parts, usage=usage)

    async def _stream(
        self, messages: list[ModelMessage], info: AgentInfo
    ) -> AsyncIterator[str | DeltaToolCalls]:
        answer = await self._answer(messages, info)
        if answer.text:
            yield answer.text
        if answer.tool_calls:
            yield {
                index: DeltaToolCall(c.name, c.arguments, tool_call_id=c.id)
                for index, c in enumerate(answer.tool_calls, start=1)
            }


def neutral_view(
    messages: Sequence[ModelMessage], info: AgentInfo
) -> tuple[list[Message], list[ToolSpec], bool]:
    """A request as our model clients see it: the conversation, the tools offered, parallelism.

    Function tools, then output tools; the recorder computes its requests with this too,
    so a replay through ``SimModel`` sees the very request that was recorded.
    """
    settings = info.model_settings or {}
    tools = [_spec(t) for t in [*info.function_tools, *info.output_tools]]
    parallel = bool(settings.get("parallel_tool_calls", True))
    return to_messages(messages, info.instructions), tools, parallel


def output_tool_names(tools: Iterable[ToolDefinition]) -> frozenset[str]:
    """The offered tools through which pydantic-ai takes the run's output (``kind == 'output'``)."""
    return frozenset(t.name for t in tools if t.kind == "output")


def _spec(tool: ToolDefinition) -> ToolSpec:
    return ToolSpec(tool.name, tool.description or "", tool.parameters_json_schema)


def _text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, Iterable):
        return "".join(c if isinstance(c, str) else str(getattr(c, "content", "")) for c in content)
    return str(content)


def to_messages(messages: Sequence[ModelMessage], instructions: str | None) -> list[Message]:
    """pydantic-ai's message history as our messages (what our fake models read)."""
    out: list[Message] = []
    if instructions:
        out.append(Message(role="system", content=instructions))
    for message in messages:
        if isinstance(message, ModelRequest):
            out.extend(_request_messages(message))
        elif isinstance(message, ModelResponse):
            out.append(_response_message(message))
    return out


def _request_messages(message: ModelRequest) -> list[Message]:
    out: list[Message] = []
    for part in message.parts:
        if isinstance(part, SystemPromptPart):
            out.append(Message(role="system", content=part.content))
        elif isinstance(part, UserPromptPart):
            out.append(Message(role="user", content=_text(part.content)))
        elif isinstance(part, ToolReturnPart):
            out.append(
                Message(
                    role="tool",
                    content=part.model_response_str(),
                    tool_call_id=part.tool_call_id,
                    name=part.tool_name,
                    is_error=part.outcome != "success",
                )
            )
        elif hasattr(part, "tool_call_id") and hasattr(part, "model_response"):
            # a retry prompt of a pydantic-ai version that still has them
            out.append(
                Message(
                    role="tool",
                    content=str(part.model_response()),
                    tool_call_id=str(part.tool_call_id),
                    name=getattr(part, "tool_name", None),
                    is_error=True,
                )
            )
    return out


def _response_message(message: ModelResponse) -> Message:
    texts = [p.content for p in message.parts if isinstance(p, TextPart)]
    calls = tuple(
        ToolCall(p.tool_call_id, p.tool_name, p.args_as_json_str())
        for p in message.parts
        if isinstance(p, ToolCallPart)
    )
    return Message(role="assistant", content="".join(texts) if texts else None, tool_calls=calls)
