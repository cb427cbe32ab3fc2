"""An OpenAI-compatible HTTP server on 127.0.0.1 that answers from a script, for tests.

Built on pytest-httpserver (werkzeug's threaded server), it answers
``POST /v1/responses`` and ``POST /v1/chat/completions``, streamed (server-sent events,
as openai-python parses them) and not. Each request is parsed into a ``SeenRequest``
and handed to the script, a function of the request, so parallel requests of different
agents get their own answers. The answer's ``delay`` is slept for real in the server's
request thread: a real client sees real latencies.

    server.serve(Lanes({"triage": [Answer(calls=...), Answer(text="done")], ...}))
    client = server.client()       # AsyncOpenAI(base_url=server.base_url, ...)
    ...
    server.stop()                  # a replay must not need it

A script that raises (an unknown agent, a lane run dry) answers HTTP 500 and the error
is kept in ``server.errors``; the ``openai_server`` fixture fails the test on teardown
when any is left.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from ._openai_wire import Answer, Call, Ids, chat_chunks, chat_completion, response, response_events

if TYPE_CHECKING:
    from openai import AsyncOpenAI

__all__ = ["API_KEY", "Answer", "Call", "Lanes", "OpenAIServer", "Script", "SeenRequest"]

API_KEY = "sk-test-0123456789abcdefSECRET"  # what the test clients send; no recording may hold it
POLL_INTERVAL = 0.02  # how soon stop() returns: werkzeug's default poll is half a second


@dataclass(frozen=True, kw_only=True)
class SeenRequest:
    """One request as the script sees it: which API, who asks (instructions) and what."""

    api: Literal["responses", "chat"]
    stream: bool
    model: str
    instructions: str | None
    last_role: str
    last_text: str
    tools: tuple[str, ...]
    parallel_tool_calls: bool | None
    authorization: str | None
    body: Mapping[str, Any] = field(repr=False)


Script = Callable[[SeenRequest], Answer]


def _text(content: Any) -> str:
    """The text of a message's content: a string or a list of text parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return "" if content is None else json.dumps(content)


def _last_of_responses(items: Any) -> tuple[str, str]:
    if isinstance(items, str):
        return "user", items
    last = items[-1] if items else {}
    kind = last.get("type", "message")
    if kind == "function_call_output":
        return "tool", _text(last.get("output"))
    if kind == "function_call":
        return "assistant", f"{last.get('name')}({last.get('arguments')})"
    return str(last.get("role", "user")), _text(last.get("content"))


def _seen_responses(body: dict[str, Any], authorization: str | None) -> SeenRequest:
    role, text = _last_of_responses(body.get("input", []))
    tools = tuple(str(t.get("name")) for t in body.get("tools", []) if t.get("type") == "function")
    return SeenRequest(
        api="responses",
        stream=bool(body.get("stream")),
        model=str(body.get("model", "")),
        instructions=body.get("instructions"),
        last_role=role,
        last_text=text,
        tools=tools,
        parallel_tool_calls=body.get("parallel_tool_calls"),
        authorization=authorization,
        body=body,
    )


def _seen_chat(body: dict[str, Any], authorization: str | None) -> SeenRequest:
    messages: list[dict[str, Any]] = body.get("messages", [])
    system = [_text(m.get("content")) for m in messages if m.get("role") in ("system", "developer")]
    last = messages[-1] if messages else {}
    text = _text(last.get("content"))
    if last.get("role") == "assistant" and last.get("tool_calls"):
        text = ", ".join(
            f"{c['function']['name']}({c['function']['arguments']})" for c in last["tool_calls"]
        )
    tools = tuple(
        str(t["function"]["name"]) for t in body.get("tools", []) if t.get("type") == "function"
    )
    return SeenRequest(
        api="chat",
        stream=bool(body.get("stream")),
        model=str(body.get("model", "")),
        instructions=system[0] if system else None,
        last_role=str(last.get("role", "user")),
        last_text=text,
        tools=tools,
        parallel_tool_calls=body.get("parallel_tool_calls"),
        authorization=authorization,
        body=body,
    )


class Lanes:
    """A script of one answer list per agent, served in order; the lane is picked by ``key``.

    The default key is the lane named first in the request's instructions, so agents
    whose prompts begin with their names ("You are billing...") need no key at all.
    """

    def __init__(
        self, lanes: Mapping[str, Sequence[Answer]], key: Callable[[SeenRequest], str] | None = None
    ) -> None:
        self._lanes = {name: list(answers) for name, answers in lanes.items()}
        self._used = dict.fromkeys(self._lanes, 0)
        self._key = key or self._named_in_instructions
        self._lock = threading.Lock()

    def _named_in_instructions(self, seen: SeenRequest) -> str:
        text = seen.instructions or ""
        named = sorted((text.find(name), name) for name in self._lanes if name in text)
        if not named:
            raise LookupError(f"instructions {text!r} name none of the lanes {sorted(self._lanes)}")
        return named[0][1]

    def __call__(self, seen: SeenRequest) -> Answer:
        lane = self._key(seen)
        with self._lock:
            if lane not in self._lanes:
                raise LookupError(f"no lane {lane!r} (lanes: {sorted(self._lanes)})")
            index = self._used[lane]
            if index >= len(self._lanes[lane]):
                raise LookupError(f"lane {lane!r} has no answer {index + 1} for {seen.last_text!r}")
            self._used[lane] = index + 1
        return self._lanes[lane][index]

    def unused(self) -> dict[str, int]:
        """Lanes with answers left, and how many."""
        with self._lock:
            return {
                n: len(a) - self._used[n] for n, a in self._lanes.items() if len(a) > self._used[n]
            }


class _ThreadedServer(HTTPServer):
    """pytest-httpserver's server, threaded (parallel requests), quick to stop."""

    def thread_target(self) -> None:
        assert self.server is not None
        self.server.serve_forever(poll_interval=POLL_INTERVAL)


class OpenAIServer:
    """The scripted OpenAI-compatible server; ``base_url`` ends in ``/v1`` as the client wants."""

    def __init__(self) -> None:
        self._http = _ThreadedServer(host="127.0.0.1", port=0, threaded=True)
        self._script: Script | None = None
        self._ids = Ids()
        self._lock = threading.Lock()
        self.requests: list[SeenRequest] = []
        self.errors: list[str] = []
        self._http.expect_request("/v1/responses", method="POST").respond_with_handler(
            self._responses
        )
        self._http.expect_request("/v1/chat/completions", method="POST").respond_with_handler(
            self._chat
        )

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._http.port}/v1"

    @property
    def running(self) -> bool:
        return self._http.is_running()

    def start(self) -> None:
        self._http.start()

    def stop(self) -> None:
        """Stop listening: from now on every request is refused at the socket."""
        if self._http.is_running():
            self._http.stop()

    def serve(self, script: Script) -> None:
        """Answer every following request with ``script(request)``."""
        self._script = script

    def client(self, api_key: str = API_KEY) -> AsyncOpenAI:
        """An ``AsyncOpenAI`` client of this server that never retries (a failure shows at once)."""
        from openai import AsyncOpenAI

        return AsyncOpenAI(base_url=self.base_url, api_key=api_key, max_retries=0)

    def _answer(self, seen: SeenRequest) -> Answer | Response:
        with self._lock:
            self.requests.append(seen)
        try:
            if self._script is None:
                raise LookupError("no script: call serve(script) first")
            return self._script(seen)
        except Exception as error:  # the test sees it on teardown, the client as HTTP 500
            message = f"{seen.api} request of {seen.instructions!r}: {error}"
            with self._lock:
                self.errors.append(message)
            return Response(
                json.dumps({"error": {"message": message, "type": "server_error"}}), 500
            )

    def _handle(
        self,
        request: Request,
        parse: Callable[[dict[str, Any], str | None], SeenRequest],
        whole: Callable[[dict[str, Any], Answer, Ids], dict[str, Any]],
        frames: Callable[[dict[str, Any], Answer, Ids], Iterator[str]],
    ) -> Response:
        body = json.loads(request.get_data(as_text=True))
        seen = parse(body, request.headers.get("Authorization"))
        answer = self._answer(seen)
        if isinstance(answer, Response):
            return answer
        time.sleep(answer.delay)
        if not seen.stream:
            return Response(
                json.dumps(whole(body, answer, self._ids)), content_type="application/json"
            )
        return Response(
            _paced(frames(body, answer, self._ids), answer.chunk_gap),
            content_type="text/event-stream",
        )

    def _responses(self, request: Request) -> Response:
        return self._handle(request, _seen_responses, response, response_events)

    def _chat(self, request: Request) -> Response:
        return self._handle(request, _seen_chat, chat_completion, chat_chunks)


def _paced(frames: Iterator[str], gap: float) -> Iterator[bytes]:
    """The frames as bytes, ``gap`` seconds apart (the first one at once)."""
    for index, frame in enumerate(frames):
        if index:
            time.sleep(gap)
        yield frame.encode()
