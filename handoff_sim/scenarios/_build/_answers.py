"""The tables fake tools answer from: a recording's answers, or a hand-written table.

A hand-written table (``answers`` by argument patterns, ``sequence`` by call number, a
``default``) is served by the data-driven fakes' rules (``handoff_sim.testing.FakeTool``):
the sequence's entry for the call, else the first answer that fits, else the default.

A recording's answers are each served once, in call order:

A call takes the first unused answer whose arguments equal its own (an answer without
``arguments`` matches any call), waits its latency and returns or raises what it says.
A call no unused answer fits — a what-if replay retried it more often than the run did —
gets the last answer that fits again: the same question gets the same answer. A call
nothing fits fails the run with a ``ToolReplayMismatchError`` naming the tool, the call and
its arguments, and the nearest answer left.
"""

from __future__ import annotations

import asyncio
import builtins
import json
from collections.abc import Sequence
from typing import Any

from handoff_sim.errors import ToolReplayMismatchError
from handoff_sim.scenarios._schema import FakeToolSpec, RaisesSpec, ToolAnswerSpec
from handoff_sim.testing._fake_answers import AnswerTable

__all__ = ["RecordedAnswers", "table_of"]


def table_of(name: str, spec: FakeToolSpec) -> AnswerTable:
    """The data-driven table of a fake tool's ``answers``, ``sequence`` and ``default``."""
    answers = [
        {**a.outcome(), **({"arguments": _wanted(a)} if "arguments" in a.model_fields_set else {})}
        for a in spec.answers or ()
    ]
    sequence = [None if step is None else step.outcome() for step in spec.sequence or ()]
    extra = {"default": spec.default.outcome()} if spec.default is not None else {}
    return AnswerTable.of(name, answers=answers, sequence=sequence, **extra)


def _wanted(answer: ToolAnswerSpec) -> object:
    """The arguments an answer fits: raw JSON text read as its mapping, else as written."""
    given = answer.arguments
    if isinstance(given, str):
        try:
            value = json.loads(given) if given.strip() else {}
        except ValueError:
            return given
        return value if isinstance(value, dict) else given
    return given


class RecordedAnswers:
    """The answers of one recorded tool, served in call order."""

    def __init__(self, tool: str, answers: Sequence[ToolAnswerSpec]) -> None:
        self.tool = tool
        self._answers = list(answers)
        self._wanted = [_wanted(a) for a in self._answers]
        self._used = [False] * len(self._answers)
        self._calls = 0

    def _fits(self, index: int, arguments: dict[str, Any]) -> bool:
        wanted = self._wanted[index]
        return wanted is None or wanted == arguments

    def choose(self, arguments: dict[str, Any]) -> ToolAnswerSpec:
        """The answer for a call with ``arguments`` (marked used)."""
        self._calls += 1
        fitting = [i for i in range(len(self._answers)) if self._fits(i, arguments)]
        for index in fitting:
            if not self._used[index]:
                self._used[index] = True
                return self._answers[index]
        if fitting:
            return self._answers[fitting[-1]]
        shown = json.dumps(arguments, separators=(",", ":"), default=str)
        left = [i for i, used in enumerate(self._used) if not used]
        nearest = None
        if left:
            wanted = self._wanted[left[0]]
            nearest = (
                wanted if isinstance(wanted, str) else json.dumps(wanted, separators=(",", ":"))
            )
        raise ToolReplayMismatchError(self.tool, self._calls, shown[:200], nearest)

    async def answer(self, arguments: dict[str, Any]) -> str:
        """Wait the chosen answer's latency, then return or raise what it recorded."""
        chosen = self.choose(arguments)
        if chosen.latency:
            await asyncio.sleep(chosen.latency)
        if chosen.raises is not None:
            raises = (
                chosen.raises
                if isinstance(chosen.raises, RaisesSpec)
                else RaisesSpec(message=chosen.raises)
            )
            error_type: type[Exception] = getattr(builtins, raises.type)
            raise error_type(raises.message)
        value = chosen.returns
        return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
