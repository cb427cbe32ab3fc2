"""A framework's plain tools recorded at their call, or answered from a recording (both frameworks).

``record(agent, path, tools="recorded")`` on openai-agents or pydantic-ai puts each plain
tool's call through :func:`recorded_call`: its raw arguments, its result text or error
and its start and end on the loop clock go to the recorder's ``tool_call``. A call during
which a model of the recorded graph was asked (:func:`note_model_call`) ran another agent:
it is a delegation, not a plain tool, and its entry is dropped (it stays live in a replay).
:func:`served_answer` is the replay side: the recorded answer for the call's arguments.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from handoff_sim.messages import ModelRequest, ModelResponse

__all__ = [
    "NoticingRecorder",
    "ToolCallRecorder",
    "note_model_call",
    "recorded_call",
    "served_answer",
    "wants_tools",
]

T = TypeVar("T")


class ToolCallRecorder(Protocol):
    """Where a recorded tool call goes (``handoff_sim.recording.Recorder``)."""

    def ticket(self) -> int:
        """A number ordering a call among calls that start at the same instant."""

    def tool_call(
        self,
        agent: str,
        name: str,
        arguments: str,
        result: str | None,
        error: BaseException | None,
        start: float,
        end: float,
        *,
        order: int | None = None,
    ) -> object:
        """One plain-tool call: its raw arguments, its result text or error, and when."""


@dataclass(slots=True)
class _Call:
    """A plain-tool call in progress; ``delegated`` once a model of the graph was asked in it."""

    delegated: bool = False


_IN_CALL: ContextVar[_Call | None] = ContextVar("handoff_recorded_tool_call", default=None)


def wants_tools(recorder: object) -> bool:
    """Whether ``recorder`` records plain tools too (``record(..., tools="recorded")``)."""
    return getattr(recorder, "tools", "live") == "recorded"


def note_model_call() -> None:
    """A recorded model was asked: the plain-tool call this task runs, if any, delegated."""
    call = _IN_CALL.get()
    if call is not None:
        call.delegated = True


async def recorded_call(
    recorder: ToolCallRecorder,
    agent: str,
    name: str,
    arguments: str,
    invoke: Callable[[], Awaitable[T]],
    outcome: Callable[[T], tuple[str, BaseException | None]],
    passes: tuple[type[BaseException], ...] = (),
) -> T:
    """``await invoke()``, recorded: ``outcome`` turns its result into (text, handled error).

    An exception is recorded and raised again, unless it is one of ``passes`` (the
    framework's control flow, not an answer). A delegated call is not recorded.
    """
    loop = asyncio.get_running_loop()
    ticket = recorder.ticket()
    start = loop.time()
    call = _Call()
    token = _IN_CALL.set(call)
    try:
        result = await invoke()
    except BaseException as exc:
        if not call.delegated and not isinstance(exc, passes):
            recorder.tool_call(agent, name, arguments, None, exc, start, loop.time(), order=ticket)
        raise
    finally:
        _IN_CALL.reset(token)
    if not call.delegated:
        text, error = outcome(result)
        kept = None if error is not None else text
        recorder.tool_call(agent, name, arguments, kept, error, start, loop.time(), order=ticket)
    return result


def _arguments(raw: str) -> Any:
    """A call's raw arguments as the recording's answers are matched: a mapping, else the text."""
    try:
        value = json.loads(raw) if raw.strip() else {}
    except (ValueError, RecursionError):
        return raw
    return value if isinstance(value, dict) else raw


async def served_answer(answers: Any, raw: str) -> str:
    """The recorded answer (``RecordedAnswers``) for a call with raw arguments ``raw``.

    Waits its latency; returns its text or raises its exception, and raises
    ``ToolReplayMismatchError`` for arguments no recorded call had.
    """
    text: str = await answers.answer(_arguments(raw))
    return text


class NoticingRecorder:
    """A recorder for a graph's models that also tells a running plain-tool call it delegated."""

    def __init__(self, recorder: Any) -> None:
        self.recorder = recorder

    def ticket(self) -> int:
        """The real recorder's ticket."""
        number: int = self.recorder.ticket()
        return number

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
        *,
        order: int | None = None,
    ) -> object:
        """Note the call for a plain tool running it, then record it as the real recorder does."""
        note_model_call()
        return self.recorder.model_call(
            agent, request, response, error, start, end, first_chunk, model, order=order
        )
