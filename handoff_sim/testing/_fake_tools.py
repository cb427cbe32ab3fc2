"""``FakeTool``: a tool answering by call number and by arguments, from an answers table.

The table's rules are :class:`AnswerTable`'; the sub-agent stub that shares them is in
``_stub``. A fake tool counts its calls, so a test can expect how often it ran.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from handoff_sim._tools import Tool
from handoff_sim.testing._fake_answers import AnswerTable

__all__ = ["FakeTool"]

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
        self.answers = AnswerTable.of(name, answers=answers, sequence=sequence, **extra)
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

    def count(self, arguments: object = _UNSET) -> int:
        """How many calls had arguments fitting the value pattern ``arguments`` (all: none),
        e.g. ``tool.count({"subset": {"q": {"contains": "refund"}}}) == 2``."""
        return self.answers.count() if arguments is _UNSET else self.answers.count(arguments)

    def __repr__(self) -> str:
        return f"FakeTool(name={self.name!r}, calls={self.call_count})"
