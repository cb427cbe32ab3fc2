"""The scripted OpenAI-compatible test server, as the installed openai client sees it."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

import pytest

from tests._helpers import needs_extra

if TYPE_CHECKING:
    from ._openai_server import OpenAIServer

pytestmark = needs_extra("openai-agents", "openai")

TOOL = {"type": "function", "name": "lookup", "parameters": {"type": "object", "properties": {}}}
CHAT_TOOL = {"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}


def _script() -> Any:
    from ._openai_server import Answer, Call, Lanes

    return Lanes(
        {
            "asker": [
                Answer(calls=(Call(name="lookup", arguments='{"order": 42}'),), input_tokens=5)
            ],
            "talker": [Answer(text="hello there, friend", delay=0.06, output_tokens=9)],
        }
    )


def test_responses_api_answers_text_and_tool_calls_with_usage(openai_server: OpenAIServer) -> None:
    openai_server.serve(_script())

    async def main() -> None:
        client = openai_server.client()
        try:
            asked = await client.responses.create(
                model="m", instructions="asker", input="find 42", tools=[TOOL]
            )  # type: ignore[list-item]
            said = await client.responses.create(model="m", instructions="talker", input="hi")
        finally:
            await client.close()
        assert [
            (c.type, getattr(c, "name", None), getattr(c, "arguments", None)) for c in asked.output
        ] == [("function_call", "lookup", '{"order": 42}')]
        assert asked.usage is not None
        assert asked.usage.input_tokens == 5
        assert said.output_text == "hello there, friend"
        assert said.usage is not None
        assert said.usage.output_tokens == 9

    asyncio.run(main())
    assert [r.tools for r in openai_server.requests] == [("lookup",), ()]


def test_streamed_responses_end_in_a_completed_event_holding_the_whole_answer(
    openai_server: OpenAIServer,
) -> None:
    openai_server.serve(_script())

    async def main() -> list[Any]:
        client = openai_server.client()
        try:
            stream = await client.responses.create(
                model="m", instructions="talker", input="hi", stream=True
            )
            return [event async for event in stream]
        finally:
            await client.close()

    events = asyncio.run(main())
    deltas = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    assert deltas == "hello there, friend"
    assert events[0].type == "response.created"
    assert events[-1].type == "response.completed"
    assert events[-1].response.output_text == "hello there, friend"
    assert [e.sequence_number for e in events] == list(range(len(events)))


def test_chat_completions_stream_tool_calls_and_usage(openai_server: OpenAIServer) -> None:
    openai_server.serve(_script())

    async def main() -> list[Any]:
        client = openai_server.client()
        try:
            stream = await client.chat.completions.create(
                model="m",
                messages=[
                    {"role": "system", "content": "asker"},
                    {"role": "user", "content": "find 42"},
                ],
                tools=[CHAT_TOOL],  # type: ignore[list-item]
                stream=True,
                stream_options={"include_usage": True},
            )
            return [chunk async for chunk in stream]
        finally:
            await client.close()

    chunks = asyncio.run(main())
    arguments = "".join(
        call.function.arguments or ""
        for chunk in chunks
        for choice in chunk.choices
        for call in choice.delta.tool_calls or []
        if call.function is not None
    )
    assert arguments == '{"order": 42}'
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "tool_calls"
    assert chunks[-1].usage is not None
    assert chunks[-1].usage.prompt_tokens == 5
    assert openai_server.requests[0].instructions == "asker"


def test_chat_completions_answer_whole(openai_server: OpenAIServer) -> None:
    openai_server.serve(_script())

    async def main() -> Any:
        client = openai_server.client()
        try:
            return await client.chat.completions.create(
                model="m",
                messages=[
                    {"role": "system", "content": "talker"},
                    {"role": "user", "content": "hi"},
                ],
            )
        finally:
            await client.close()

    completion = asyncio.run(main())
    assert completion.choices[0].message.content == "hello there, friend"
    assert completion.usage is not None
    assert completion.usage.completion_tokens == 9


def test_each_answer_waits_its_delay_for_real(openai_server: OpenAIServer) -> None:
    openai_server.serve(_script())

    async def main() -> float:
        client = openai_server.client()
        try:
            start = time.perf_counter()
            await client.responses.create(model="m", instructions="talker", input="hi")
            return time.perf_counter() - start
        finally:
            await client.close()

    assert asyncio.run(main()) >= 0.06  # a lower bound only: the server slept that long


def test_a_request_the_script_cannot_answer_is_an_http_error_kept_for_the_test(
    openai_server: OpenAIServer,
) -> None:
    from openai import InternalServerError

    openai_server.serve(_script())

    async def main() -> None:
        client = openai_server.client()
        try:
            await client.responses.create(model="m", instructions="stranger", input="hi")
        finally:
            await client.close()

    with pytest.raises(InternalServerError, match="name none of the lanes"):
        asyncio.run(main())
    assert len(openai_server.errors) == 1
    openai_server.errors.clear()  # seen: the fixture would fail the test otherwise


def test_a_stopped_server_refuses_connections(openai_server: OpenAIServer) -> None:
    from openai import APIConnectionError

    openai_server.serve(_script())
    openai_server.stop()

    async def main() -> None:
        client = openai_server.client()
        try:
            await client.responses.create(model="m", instructions="talker", input="hi")
        finally:
            await client.close()

    with pytest.raises(APIConnectionError):
        asyncio.run(main())
    assert openai_server.requests == []
