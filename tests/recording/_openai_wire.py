"""OpenAI wire payloads (Responses API and Chat Completions) for the local test server.

Every payload is built from the installed ``openai`` package's own types and dumped to
JSON, so the server speaks exactly the format the installed client parses: a field the
client's models require cannot be forgotten here without the builder failing.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from openai.types.chat import ChatCompletion, ChatCompletionChunk
from openai.types.completion_usage import CompletionUsage
from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseContentPartAddedEvent,
    ResponseContentPartDoneEvent,
    ResponseCreatedEvent,
    ResponseFunctionCallArgumentsDeltaEvent,
    ResponseFunctionCallArgumentsDoneEvent,
    ResponseFunctionToolCall,
    ResponseInProgressEvent,
    ResponseOutputItemAddedEvent,
    ResponseOutputItemDoneEvent,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseTextDeltaEvent,
    ResponseTextDoneEvent,
    ResponseUsage,
)
from openai.types.responses.response_usage import InputTokensDetails, OutputTokensDetails

__all__ = ["Answer", "Call", "Ids", "chat_chunks", "chat_completion", "response", "response_events"]

CREATED_AT = 1_764_633_600  # a fixed server clock: payloads are the same in every run


@dataclass(frozen=True, kw_only=True)
class Call:
    """One function call the model answers with; ``arguments`` is the raw JSON string."""

    name: str
    arguments: str
    call_id: str | None = None


@dataclass(frozen=True, kw_only=True)
class Answer:
    """What the server answers one request with, after sleeping ``delay`` seconds.

    Streamed answers sleep ``delay`` before the first byte (the time to first chunk) and
    ``chunk_gap`` between later chunks; ``text`` is streamed in ``chunks`` pieces.
    """

    text: str | None = None
    calls: tuple[Call, ...] = ()
    delay: float = 0.03
    chunk_gap: float = 0.005
    chunks: int = 3
    input_tokens: int = 11
    output_tokens: int = 7


@dataclass
class Ids:
    """Volatile ids as a real server hands them out: unique per response, per item."""

    _counter: Iterator[int] = field(default_factory=itertools.count)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def new(self, prefix: str) -> str:
        """A fresh id such as ``call_00000000000000000000002a``."""
        with self._lock:
            number = next(self._counter)
        return f"{prefix}_{number:024x}"


def _pieces(text: str, count: int) -> list[str]:
    size = max(1, -(-len(text) // max(1, count)))
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


# Responses API ------------------------------------------------------------------------


def _usage(answer: Answer) -> ResponseUsage:
    return ResponseUsage(
        input_tokens=answer.input_tokens,
        output_tokens=answer.output_tokens,
        total_tokens=answer.input_tokens + answer.output_tokens,
        input_tokens_details=InputTokensDetails(cached_tokens=0, cache_write_tokens=0),
        output_tokens_details=OutputTokensDetails(reasoning_tokens=0),
    )


def _output(answer: Answer, ids: Ids) -> list[ResponseOutputMessage | ResponseFunctionToolCall]:
    items: list[ResponseOutputMessage | ResponseFunctionToolCall] = []
    if answer.text is not None:
        text = ResponseOutputText(type="output_text", text=answer.text, annotations=[])
        items.append(
            ResponseOutputMessage(
                id=ids.new("msg"),
                type="message",
                role="assistant",
                status="completed",
                content=[text],
            )
        )
    for call in answer.calls:
        items.append(
            ResponseFunctionToolCall(
                type="function_call",
                id=ids.new("fc"),
                call_id=call.call_id or ids.new("call"),
                name=call.name,
                arguments=call.arguments,
                status="completed",
            )
        )
    return items


def _response_object(
    body: dict[str, Any], rid: str, output: list[Any], answer: Answer | None
) -> Response:
    return Response(
        id=rid,
        object="response",
        created_at=CREATED_AT,
        model=str(body.get("model", "")),
        status="completed" if answer is not None else "in_progress",
        output=output,
        parallel_tool_calls=bool(body.get("parallel_tool_calls", True)),
        tool_choice="auto",
        tools=[],
        instructions=body.get("instructions"),
        usage=_usage(answer) if answer is not None else None,
    )


def response(body: dict[str, Any], answer: Answer, ids: Ids) -> dict[str, Any]:
    """The JSON body of a non-streamed ``POST /v1/responses``."""
    return _response_object(body, ids.new("resp"), list(_output(answer, ids)), answer).model_dump(
        mode="json"
    )


def _item_events(item: Any, index: int, answer: Answer, seq: Iterator[int]) -> Iterator[Any]:
    """The events that stream one output item: added, its deltas, done."""
    if isinstance(item, ResponseOutputMessage):
        opening = item.model_copy(update={"status": "in_progress", "content": []})
        yield ResponseOutputItemAddedEvent(
            type="response.output_item.added",
            item=opening,
            output_index=index,
            sequence_number=next(seq),
        )
        empty = ResponseOutputText(type="output_text", text="", annotations=[])
        common = {"item_id": item.id, "output_index": index, "content_index": 0}
        yield ResponseContentPartAddedEvent(
            type="response.content_part.added", part=empty, sequence_number=next(seq), **common
        )
        text = answer.text or ""
        for piece in _pieces(text, answer.chunks):
            yield ResponseTextDeltaEvent(
                type="response.output_text.delta",
                delta=piece,
                logprobs=[],
                sequence_number=next(seq),
                **common,
            )
        yield ResponseTextDoneEvent(
            type="response.output_text.done",
            text=text,
            logprobs=[],
            sequence_number=next(seq),
            **common,
        )
        yield ResponseContentPartDoneEvent(
            type="response.content_part.done",
            part=item.content[0],
            sequence_number=next(seq),
            **common,
        )
    else:
        opening = item.model_copy(update={"status": "in_progress", "arguments": ""})
        yield ResponseOutputItemAddedEvent(
            type="response.output_item.added",
            item=opening,
            output_index=index,
            sequence_number=next(seq),
        )
        for piece in _pieces(item.arguments, 2):
            yield ResponseFunctionCallArgumentsDeltaEvent(
                type="response.function_call_arguments.delta",
                item_id=item.id or "",
                output_index=index,
                delta=piece,
                sequence_number=next(seq),
            )
        yield ResponseFunctionCallArgumentsDoneEvent(
            type="response.function_call_arguments.done",
            item_id=item.id or "",
            output_index=index,
            name=item.name,
            arguments=item.arguments,
            sequence_number=next(seq),
        )
    yield ResponseOutputItemDoneEvent(
        type="response.output_item.done", item=item, output_index=index, sequence_number=next(seq)
    )


def response_events(body: dict[str, Any], answer: Answer, ids: Ids) -> Iterator[str]:
    """The server-sent events of a streamed ``POST /v1/responses``, each a full SSE frame."""
    seq = itertools.count()
    rid = ids.new("resp")
    output = _output(answer, ids)
    opening = _response_object(body, rid, [], None)
    events: list[Any] = [
        ResponseCreatedEvent(type="response.created", response=opening, sequence_number=next(seq)),
        ResponseInProgressEvent(
            type="response.in_progress", response=opening, sequence_number=next(seq)
        ),
    ]
    for event in events:
        yield _sse(event.type, event.model_dump(mode="json"))
    for index, item in enumerate(output):
        for event in _item_events(item, index, answer, seq):
            yield _sse(event.type, event.model_dump(mode="json"))
    done = _response_object(body, rid, list(output), answer)
    completed = ResponseCompletedEvent(
        type="response.completed", response=done, sequence_number=next(seq)
    )
    yield _sse(completed.type, completed.model_dump(mode="json"))


def _sse(event: str, data: dict[str, Any]) -> str:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n"


# Chat Completions ---------------------------------------------------------------------


def _chat_usage(answer: Answer) -> CompletionUsage:
    return CompletionUsage(
        prompt_tokens=answer.input_tokens,
        completion_tokens=answer.output_tokens,
        total_tokens=answer.input_tokens + answer.output_tokens,
    )


def _finish(answer: Answer) -> str:
    return "tool_calls" if answer.calls else "stop"


def chat_completion(body: dict[str, Any], answer: Answer, ids: Ids) -> dict[str, Any]:
    """The JSON body of a non-streamed ``POST /v1/chat/completions``."""
    calls = [
        {
            "id": c.call_id or ids.new("call"),
            "type": "function",
            "function": {"name": c.name, "arguments": c.arguments},
        }
        for c in answer.calls
    ]
    message: dict[str, Any] = {
        "role": "assistant",
        "content": answer.text,
        "tool_calls": calls or None,
    }
    completion = ChatCompletion.model_validate(
        {
            "id": ids.new("chatcmpl"),
            "object": "chat.completion",
            "created": CREATED_AT,
            "model": str(body.get("model", "")),
            "choices": [
                {"index": 0, "message": message, "finish_reason": _finish(answer), "logprobs": None}
            ],
            "usage": _chat_usage(answer).model_dump(),
        }
    )
    return completion.model_dump(mode="json")


def chat_chunks(body: dict[str, Any], answer: Answer, ids: Ids) -> Iterator[str]:
    """The ``data:`` frames of a streamed ``POST /v1/chat/completions``, ending in ``[DONE]``."""
    cid = ids.new("chatcmpl")
    model = str(body.get("model", ""))

    def chunk(
        delta: dict[str, Any], finish: str | None = None, usage: CompletionUsage | None = None
    ) -> str:
        choices = (
            [] if usage is not None else [{"index": 0, "delta": delta, "finish_reason": finish}]
        )
        payload = ChatCompletionChunk.model_validate(
            {
                "id": cid,
                "object": "chat.completion.chunk",
                "created": CREATED_AT,
                "model": model,
                "choices": choices,
                "usage": usage.model_dump() if usage is not None else None,
            }
        )
        return f"data: {json.dumps(payload.model_dump(mode='json'))}\n\n"

    yield chunk({"role": "assistant", "content": ""})
    if answer.text is not None:
        for piece in _pieces(answer.text, answer.chunks):
            yield chunk({"content": piece})
    for index, call in enumerate(answer.calls):
        opening = {"name": call.name, "arguments": ""}
        yield chunk(
            {
                "tool_calls": [
                    {
                        "index": index,
                        "id": call.call_id or ids.new("call"),
                        "type": "function",
                        "function": opening,
                    }
                ]
            }
        )
        for piece in _pieces(call.arguments, 2):
            yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    yield chunk({}, finish=_finish(answer))
    if (body.get("stream_options") or {}).get("include_usage"):
        yield chunk({}, usage=_chat_usage(answer))
    yield "data: [DONE]\n\n"
