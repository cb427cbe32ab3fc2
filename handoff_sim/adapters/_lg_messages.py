"""LangChain messages and tools in our neutral terms, and our answers as LangChain messages.

The fake model reads LangChain's conversation as our ``Message`` list (``system``,
``user``, ``assistant`` with its tool calls, ``tool`` results) and the bound tools as
``ToolSpec``; its answer becomes an ``AIMessage`` (or a stream of chunks) whose tool
calls LangChain parses as it parses a provider's: arguments that are not a JSON
object become ``invalid_tool_calls``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from langchain_core.exceptions import OutputParserException
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    InvalidToolCall,
    SystemMessage,
    ToolMessage,
)
from langchain_core.messages.ai import UsageMetadata
from langchain_core.messages.tool import ToolCall as LcToolCall
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.output_parsers.openai_tools import make_invalid_tool_call, parse_tool_call

from handoff_sim.messages import Message, ModelResponse, ToolCall, ToolSpec

__all__ = [
    "answer_chunks",
    "answer_message",
    "to_messages",
    "tool_specs",
    "usage_of",
]


def _text(message: BaseMessage) -> str:
    """A message's text (its text blocks joined), whatever shape its content has."""
    content = message.content
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, Mapping) and block.get("type") == "text":
            parts.append(str(block.get("text") or ""))
    return "".join(parts)


def _arguments(args: object) -> str:
    return json.dumps(args, ensure_ascii=False, sort_keys=False)


def _assistant(message: AIMessage) -> Message:
    calls = [
        ToolCall(str(c.get("id") or ""), c["name"], _arguments(c["args"]))
        for c in message.tool_calls
    ]
    calls.extend(
        ToolCall(str(c.get("id") or ""), str(c.get("name") or ""), str(c.get("args") or ""))
        for c in message.invalid_tool_calls
    )
    text = _text(message)
    return Message(role="assistant", content=text or None, tool_calls=tuple(calls))


def to_messages(messages: Iterable[BaseMessage]) -> list[Message]:
    """LangChain's conversation as our messages (what our fake models read)."""
    out: list[Message] = []
    for message in messages:
        if isinstance(message, AIMessage):
            out.append(_assistant(message))
        elif isinstance(message, ToolMessage):
            out.append(
                Message(
                    role="tool",
                    content=_text(message),
                    tool_call_id=message.tool_call_id,
                    name=message.name,
                    is_error=message.status == "error",
                )
            )
        elif isinstance(message, SystemMessage):
            out.append(Message(role="system", content=_text(message)))
        elif isinstance(message, HumanMessage) or message.type in ("human", "user"):
            out.append(Message(role="user", content=_text(message)))
        else:  # a chat or function message of another kind: shown as the user's words
            out.append(Message(role="user", content=_text(message)))
    return out


def tool_specs(tools: object) -> list[ToolSpec]:
    """The tools ``bind_tools`` bound (OpenAI tool dicts) as our tool specs, by name.

    By name, not in the order bound: langgraph-supervisor makes its handoff tools from a
    set of agent names, so that order changes with ``PYTHONHASHSEED`` from one process
    to the next, and a model's tools have no order that means anything.
    """
    specs: list[ToolSpec] = []
    for tool in tools if isinstance(tools, Sequence) else ():
        if not isinstance(tool, Mapping):
            continue
        function = tool.get("function") if tool.get("type") == "function" else tool
        if not isinstance(function, Mapping) or not function.get("name"):
            continue
        parameters = function.get("parameters")
        specs.append(
            ToolSpec(
                str(function["name"]),
                str(function.get("description") or ""),
                dict(parameters) if isinstance(parameters, Mapping) else {},
            )
        )
    return sorted(specs, key=lambda spec: spec.name)


def _raw(call: ToolCall) -> dict[str, Any]:
    return {"id": call.id, "function": {"name": call.name, "arguments": call.arguments}}


def _parsed(calls: Sequence[ToolCall]) -> tuple[list[LcToolCall], list[InvalidToolCall]]:
    """Our calls parsed as LangChain parses a provider's: bad JSON becomes an invalid call."""
    valid: list[LcToolCall] = []
    invalid: list[InvalidToolCall] = []
    for call in calls:
        raw = _raw(call)
        try:
            parsed = parse_tool_call(raw, return_id=True)
        except OutputParserException as exc:
            invalid.append(make_invalid_tool_call(raw, str(exc)))
            continue
        if parsed is None or not isinstance(parsed.get("args"), dict):
            invalid.append(make_invalid_tool_call(raw, "arguments are not a JSON object"))
            continue
        valid.append(parsed)  # type: ignore[arg-type]  # parse_tool_call returns a ToolCall
    return valid, invalid


def usage_of(answer: ModelResponse) -> UsageMetadata:
    """The answer's token usage as LangChain's ``usage_metadata`` (zero when not given)."""
    usage = answer.usage
    given_in = usage.input_tokens if usage is not None else 0
    given_out = usage.output_tokens if usage is not None else 0
    return UsageMetadata(
        input_tokens=given_in, output_tokens=given_out, total_tokens=given_in + given_out
    )


def answer_message(answer: ModelResponse, *, name: str | None = None) -> AIMessage:
    """Our answer as an ``AIMessage`` with its tool calls, invalid calls and usage."""
    valid, invalid = _parsed(answer.tool_calls)
    return AIMessage(
        content=answer.text or "",
        tool_calls=valid,
        invalid_tool_calls=invalid,
        usage_metadata=usage_of(answer),
        name=name,
    )


def answer_chunks(answer: ModelResponse) -> list[AIMessageChunk]:
    """Our answer as a stream: the text, one chunk per tool call, then the usage (last)."""
    chunks: list[AIMessageChunk] = []
    if answer.text:
        chunks.append(AIMessageChunk(content=answer.text))
    for index, call in enumerate(answer.tool_calls):
        chunks.append(
            AIMessageChunk(
                content="",
                tool_call_chunks=[
                    tool_call_chunk(name=call.name, args=call.arguments, id=call.id, index=index)
                ],
            )
        )
    chunks.append(
        AIMessageChunk(content="", usage_metadata=usage_of(answer), chunk_position="last")
    )
    return chunks
