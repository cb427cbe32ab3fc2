"""Data-driven fakes: a tool, and a sub-agent stub, answering by call number and arguments.

``FakeTool`` is a :class:`~handoff_sim.Tool` whose body is an :class:`Answers` table;
``StubAgent`` is an :class:`~handoff_sim.Agent` whose model answers its input by the same
rules, so a parent's handoff policy (retries, timeouts, fallbacks) is tested without
scripting the child's model. Both count their calls, so a test can expect how often.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from handoff_sim._agent import Agent
from handoff_sim._tools import Tool
from handoff_sim.messages import ModelRequest
from handoff_sim.testing._fake_answers import Answers
from handoff_sim.testing._scripted import FunctionModel

__all__ = ["FakeTool", "StubAgent", "stub_input"]

_UNSET: Any = object()


class FakeTool(Tool):
    """A tool that answers each call from ``sequence`` (by call number), ``answers`` (the
    first whose ``arguments`` pattern fits) or ``default``.

    An answer or a sequence entry is a value to return or a mapping: ``returns``, or one
    fault — ``raises`` (a message or ``{type, message}``), ``timeout: True`` (never
    answers), ``rate_limit`` (true, a message or ``{message, retry_after}``), ``malformed``
    (true, or the raw text to return) — and ``latency``. ``calls`` keeps every call's
    arguments; ``call_count`` how many there were.
    """

    __slots__ = ("answers",)

    def __init__(
        self,
        name: str,
        *,
        answers: Sequence[Mapping[str, Any]] = (),
        sequence: Sequence[object] = (),
        default: object = _UNSET,
        description: str = "",
        parameters: Mapping[str, Any] | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> None:
        extra = {} if default is _UNSET else {"default": default}
        self.answers = Answers.of(name, answers=answers, sequence=sequence, **extra)
        super().__init__(
            name, self._run, description=description, parameters=parameters, metadata=metadata
        )

    async def _run(self, **arguments: Any) -> str:
        return await self.answers.choose(arguments).play()

    @property
    def calls(self) -> list[object]:
        """The arguments of every call so far, in order."""
        return self.answers.calls

    @property
    def call_count(self) -> int:
        """How many times the tool was called."""
        return len(self.answers.calls)

    def __repr__(self) -> str:
        return f"FakeTool(name={self.name!r}, calls={self.call_count})"


def stub_input(text: str) -> object:
    """What a stub's ``arguments`` patterns see: the delegated input as arguments.

    A sub-agent receives the delegation's ``task`` (with any ``context`` appended), or the
    raw arguments when they hold no task; the stub reads a JSON object back as it was,
    anything else as ``{"task": text}``.
    """
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return {"task": text}
    return value if isinstance(value, dict) else {"task": text}


def _last_input(request: ModelRequest) -> str:
    for message in reversed(request.messages):
        if message.role == "user":
            return message.content or ""
    return ""


class StubAgent(Agent):
    """An agent that answers its input from a table instead of a model's reasoning.

    Each run's input (the delegated task) is matched as :func:`stub_input` reads it; the
    outcome's text is the run's final answer, a fault fails or stalls the run as a broken
    sub-agent would. ``calls`` keeps every input, in order.
    """

    def __init__(
        self,
        name: str,
        *,
        answers: Sequence[Mapping[str, Any]] = (),
        sequence: Sequence[object] = (),
        default: object = _UNSET,
        **agent_options: Any,
    ) -> None:
        extra = {} if default is _UNSET else {"default": default}
        self.answers = Answers.of(name, answers=answers, sequence=sequence, **extra)
        super().__init__(name=name, model=FunctionModel(self._answer), **agent_options)

    async def _answer(self, request: ModelRequest) -> str:
        return await self.answers.choose(stub_input(_last_input(request))).play()

    @property
    def calls(self) -> list[object]:
        """What each run was given, read as arguments, in order."""
        return self.answers.calls

    @property
    def call_count(self) -> int:
        """How many runs the stub answered (a retried attempt is one more)."""
        return len(self.answers.calls)
