"""What a data-driven fake (a tool, a stubbed sub-agent) answers to call N with arguments A.

A call takes the entry for its number in ``sequence`` when there is one, else the first
of ``answers`` whose ``arguments`` pattern fits (any value matcher: a plain mapping is
compared exactly, ``{subset: {...}}`` pins some keys), else ``default``. Nothing fitting
and no default is a :class:`NoFakeAnswerError`, which ends the run: a fake that answered
anything would hide the bug. An outcome returns a value or plays a fault — an error, a
timeout (it never answers: the caller's timeout ends it), a rate-limit error, a
malformed result — after its latency.
"""

from __future__ import annotations

import asyncio
import builtins
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from handoff_sim._durations import parse_duration
from handoff_sim._errors._families import ConfigurationError
from handoff_sim._matchers import value_matches
from handoff_sim.errors import PatternTimeoutError, ScriptError
from handoff_sim.testing._steps import RAISABLE, SimulatedModelError

__all__ = [
    "FAULTS",
    "RAISABLE",
    "AnswerTable",
    "NoFakeAnswerError",
    "Outcome",
    "SimulatedRateLimitError",
    "outcome_of",
]

FAULTS = ("raises", "timeout", "rate_limit", "malformed")
"""The keys of an outcome that play a fault instead of returning."""
MALFORMED = '{"result": '
"""What ``malformed: true`` returns: JSON cut off in the middle."""
_OUTCOME_KEYS = ("returns", *FAULTS, "latency")
_ANSWER_KEYS = ("arguments", *_OUTCOME_KEYS)


class NoFakeAnswerError(ScriptError):
    """A call of a data-driven fake that no answer fits, and the fake has no default; or
    one whose answers could not be matched (a pattern ran out of time)."""

    def __init__(self, fake: str, call: int, arguments: str, reason: str | None = None) -> None:
        why = (
            f"cannot be answered: {reason}"
            if reason is not None
            else "fits no answer and there is no default (add an answer for it, or a default)"
        )
        super().__init__(f"fake {fake!r}: call {call} with arguments {arguments} {why}")
        self.fake = fake
        self.call = call
        self.arguments = arguments


class SimulatedRateLimitError(SimulatedModelError):
    """A fake's rate-limit fault: a service answering 429, ``retry_after`` seconds given."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


@dataclass(frozen=True, slots=True, kw_only=True)
class Outcome:
    """One answer's effect: what it returns, or the fault it plays, after ``latency``."""

    returns: Any = "ok"
    raises: tuple[str, str] | None = None
    """(builtin error type, message)."""
    timeout: bool = False
    rate_limit: tuple[str, float | None] | None = None
    malformed: str | None = None
    latency: float = 0.0

    async def play(self) -> str:
        """Wait the latency, then return the text or raise the fault (never, for a timeout)."""
        if self.latency:
            await asyncio.sleep(self.latency)
        if self.timeout:
            await asyncio.Event().wait()  # never set: only the caller's timeout ends this
        if self.raises is not None:
            error_type: type[Exception] = getattr(builtins, self.raises[0])
            raise error_type(self.raises[1])
        if self.rate_limit is not None:
            raise SimulatedRateLimitError(*self.rate_limit)
        if self.malformed is not None:
            return self.malformed
        value = self.returns
        return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


def _problem(where: str, message: str) -> ConfigurationError:
    return ConfigurationError(f"{where}: {message}")


def _raises(where: str, value: object) -> tuple[str, str]:
    if isinstance(value, str):
        return "RuntimeError", value
    if isinstance(value, Mapping) and set(value) <= {"type", "message"}:
        kind = value.get("type", "RuntimeError")
        if kind not in RAISABLE:
            raise _problem(f"{where}.type", f"must be one of {', '.join(RAISABLE)}")
        return str(kind), str(value.get("message", ""))
    raise _problem(where, "must be a message or {type: ..., message: ...}")


def _rate_limit(where: str, value: object) -> tuple[str, float | None]:
    if value is True:
        return "rate limited (429)", None
    if isinstance(value, str):
        return value, None
    if isinstance(value, Mapping) and set(value) <= {"message", "retry_after"}:
        after = value.get("retry_after")
        seconds = None if after is None else parse_duration(after)
        return str(value.get("message", "rate limited (429)")), seconds
    raise _problem(where, "must be true, a message or {message: ..., retry_after: ...}")


def outcome_of(value: object, where: str = "answer") -> Outcome:
    """An :class:`Outcome` from a mapping (``returns`` or one fault, ``latency``) or a value."""
    if isinstance(value, Outcome):
        return value
    if not isinstance(value, Mapping):
        return Outcome(returns=value)
    unknown = [k for k in value if k not in _ANSWER_KEYS]
    if unknown:
        raise _problem(f"{where}.{unknown[0]}", f"unknown key; known: {', '.join(_OUTCOME_KEYS)}")
    given = [k for k in ("returns", *FAULTS) if k in value and value[k] not in (None, False)]
    if len(given) > 1:
        raise _problem(where, f"give one of returns, {', '.join(FAULTS)}; got {', '.join(given)}")
    try:
        latency = parse_duration(value.get("latency", 0))
    except ValueError as exc:
        raise _problem(f"{where}.latency", str(exc)) from None
    malformed = value.get("malformed")
    return Outcome(
        returns=value.get("returns", ""),
        raises=None if value.get("raises") is None else _raises(f"{where}.raises", value["raises"]),
        timeout=value.get("timeout") is True,
        rate_limit=None
        if value.get("rate_limit") in (None, False)
        else _rate_limit(f"{where}.rate_limit", value["rate_limit"]),
        malformed=None
        if malformed in (None, False)
        else MALFORMED
        if malformed is True
        else str(malformed),
        latency=latency,
    )


_ANY = object()


@dataclass(slots=True)
class AnswerTable:
    """The answers of one fake: a sequence by call number, answers by arguments, a default."""

    fake: str
    sequence: Sequence[Outcome | None] = ()
    """By call number from 1; ``None``: that call is answered by ``answers`` or ``default``."""
    answers: Sequence[tuple[object, Outcome]] = ()
    """(arguments pattern, outcome); a pattern of ``_ANY`` fits any call."""
    default: Outcome | None = None
    calls: list[object] = field(default_factory=list)
    """The arguments of every call so far, in order."""

    @classmethod
    def of(
        cls,
        fake: str,
        *,
        answers: Sequence[object] = (),
        sequence: Sequence[object] = (),
        default: object = _ANY,
    ) -> AnswerTable:
        """Read plain data: answers are mappings with ``arguments`` plus an outcome."""
        chosen = []
        for index, answer in enumerate(answers):
            if not isinstance(answer, Mapping):
                raise _problem(
                    f"answers.{index}", "must be a mapping: {arguments: ..., returns: ...}"
                )
            pattern = answer.get("arguments", _ANY)
            chosen.append((pattern, outcome_of(answer, f"answers.{index}")))
        steps = [
            None if s is None else outcome_of(s, f"sequence.{i}") for i, s in enumerate(sequence)
        ]
        fallback = None if default is _ANY else outcome_of(default, "default")
        if not chosen and not steps and fallback is None:
            fallback = Outcome()
        return cls(fake, steps, chosen, fallback)

    def choose(self, arguments: object) -> Outcome:
        """The outcome for the next call, with ``arguments`` (its parsed arguments)."""
        self.calls.append(arguments)
        number = len(self.calls)
        step = self.sequence[number - 1] if number <= len(self.sequence) else None
        if step is not None:
            return step
        try:
            for pattern, outcome in self.answers:
                if pattern is _ANY or value_matches(pattern, arguments, None, "any"):
                    return outcome
        except PatternTimeoutError as exc:  # a fake that cannot choose must not answer
            raise NoFakeAnswerError(self.fake, number, self._shown(arguments), str(exc)) from None
        if self.default is not None:
            return self.default
        raise NoFakeAnswerError(self.fake, number, self._shown(arguments))

    def count(self, arguments: object = _ANY) -> int:
        """How many calls so far had arguments that fit the pattern ``arguments`` (all: none)."""
        if arguments is _ANY:
            return len(self.calls)
        return sum(value_matches(arguments, given, None, "any") for given in self.calls)

    @staticmethod
    def _shown(arguments: object) -> str:
        return json.dumps(arguments, separators=(",", ":"), default=str)[:200]
