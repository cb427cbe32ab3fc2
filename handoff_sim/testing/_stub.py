"""A sub-agent stub: a model that answers its run's input from an answers table.

``StubModel`` plays the table as a model client (the outcome's text is the run's final
answer, a fault fails or stalls the run as a broken sub-agent would); ``StubAgent`` is an
agent on one, so a parent's handoff policy (retries, timeouts, fallbacks) is tested
without scripting the child's model. A scenario file writes ``model: {kind: stub, ...}``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from handoff_sim._agent import Agent
from handoff_sim.messages import ModelRequest, ModelResponse
from handoff_sim.testing._fake_answers import AnswerTable
from handoff_sim.testing._scripted import FunctionModel

__all__ = ["StubAgent", "StubModel", "StubModelSpec", "stub_input"]

_UNSET: Any = object()


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


class StubModel:
    """A model client answering each run's input from an :class:`AnswerTable` table."""

    model_name = "stub"

    def __init__(
        self,
        name: str = "stub",
        *,
        answers: Sequence[Mapping[str, Any]] = (),
        sequence: Sequence[object] = (),
        default: object = _UNSET,
    ) -> None:
        extra = {} if default is _UNSET else {"default": default}
        self.answers = AnswerTable.of(name, answers=answers, sequence=sequence, **extra)
        self._model = FunctionModel(self._answer)

    async def _answer(self, request: ModelRequest) -> str:
        return await self.answers.choose(stub_input(_last_input(request))).play()

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Answer ``request`` from the table (its last user message is the input)."""
        return await self._model.complete(request)

    @property
    def calls(self) -> list[object]:
        """What each run was given, read as arguments, in order."""
        return self.answers.calls


class StubAgent(Agent):
    """An agent on a :class:`StubModel`: a sub-agent answering by its input.

    ``calls`` keeps every input, in order; ``call_count`` counts the runs answered (a
    retried attempt is one more).
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
        self.stub = StubModel(name, answers=answers, sequence=sequence, **extra)
        super().__init__(name=name, model=self.stub, **agent_options)

    @property
    def calls(self) -> list[object]:
        """What each run was given, read as arguments, in order."""
        return self.stub.calls

    @property
    def call_count(self) -> int:
        """How many runs the stub answered."""
        return len(self.stub.calls)


class StubModelSpec(BaseModel):
    """A stub as a scenario file writes it: ``model: {kind: stub, answers: [...], ...}``."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    KIND: ClassVar[str] = "stub"
    """The ``kind`` that names this model in a scenario file (a plugin cannot take it)."""

    kind: Literal["stub"] = "stub"
    answers: list[dict[str, Any]] = Field(
        default_factory=list,
        description="{arguments: pattern, returns | raises | timeout | rate_limit | malformed, "
        "latency}: the first whose arguments fit the input answers",
    )
    sequence: list[dict[str, Any] | None] = Field(
        default_factory=list, description="by run number from 1; null: answered by answers"
    )
    default: Any = Field(default=None, description="what answers when nothing else fits")

    def build(self, name: str = "stub") -> StubModel:
        """The stub these options describe (a wrong outcome is a ``ConfigurationError``)."""
        extra = {"default": self.default} if "default" in self.model_fields_set else {}
        return StubModel(name, answers=self.answers, sequence=self.sequence, **extra)
