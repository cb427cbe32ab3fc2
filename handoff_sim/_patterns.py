"""Users' regular expressions: checked when a file is loaded, matched in bounded time.

A pattern is written in Python's ``re`` syntax and must compile there, as the docs say;
it is matched by the ``regex`` module (its default, ``re``-compatible mode), which can
stop a match after a time budget. So a pattern that backtracks catastrophically fails
its expectation with a :class:`PatternTimeoutError` instead of hanging the run, and
Ctrl-C still interrupts it (``regex`` checks for signals while it matches).
"""

from __future__ import annotations

import re
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache

import regex

from handoff_sim._durations import shown
from handoff_sim._limits import MAX_PATTERN_SECONDS, MAX_PATTERN_SIZE
from handoff_sim.errors import PatternTimeoutError

__all__ = ["compile_user_pattern", "pattern_budget", "pattern_problem", "search"]

_COUNT = re.compile(r"\{(\d*)(?:,(\d*))?\}")
_DEADLINE: ContextVar[tuple[float, float] | None] = ContextVar("pattern_deadline", default=None)
"""(deadline on the monotonic clock, the budget in seconds) of the enclosing check, if any."""


def pattern_problem(pattern: str) -> str | None:
    """Why ``pattern`` cannot be used (it does not compile, or is too big once unrolled)."""
    return _usable(pattern)[1]


def compile_user_pattern(pattern: str) -> regex.Pattern[str]:
    """``pattern`` compiled for :func:`search`; ``ValueError`` says why it cannot be."""
    compiled, problem = _usable(pattern)
    if compiled is None:
        raise ValueError(problem)
    return compiled


@lru_cache(maxsize=512)
def _usable(pattern: str) -> tuple[regex.Pattern[str] | None, str | None]:
    """``pattern`` compiled by ``regex``, or why it is refused (checked once per pattern)."""
    try:
        re.compile(pattern)
    except re.error as exc:
        return None, f"invalid regular expression {shown(pattern)}: {exc}"
    except (RecursionError, OverflowError, MemoryError) as exc:
        reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        return None, f"invalid regular expression {shown(pattern)}: {reason}"
    size = unrolled_size(pattern)
    if size > MAX_PATTERN_SIZE:
        return None, (
            f"regular expression {shown(pattern)} is too big: its counted repeats written out "
            f"make {size} items, at most {MAX_PATTERN_SIZE}"
        )
    try:
        with warnings.catch_warnings():  # re has warned already (a possible nested set)
            warnings.simplefilter("ignore", FutureWarning)
            return regex.compile(pattern, regex.VERSION0), None
    except (regex.error, RecursionError, OverflowError, MemoryError) as exc:
        return None, f"invalid regular expression {shown(pattern)}: {exc}"


def search(pattern: str, text: str) -> bool:
    """Whether ``pattern`` finds a match in ``text`` (as ``re.search``), in bounded time.

    One match may take :data:`MAX_PATTERN_SECONDS` of real time, and less when the
    enclosing :func:`pattern_budget` has less left; past that a
    :class:`PatternTimeoutError` says which pattern took too long.
    """
    compiled = compile_user_pattern(pattern)
    limit = MAX_PATTERN_SECONDS
    budget = _DEADLINE.get()
    if budget is not None:
        left = budget[0] - time.monotonic()
        if left <= 0:
            raise PatternTimeoutError(pattern, len(text), budget[1], spent=True)
        limit = min(limit, left)
    try:
        return compiled.search(text, timeout=limit) is not None
    except TimeoutError:
        raise PatternTimeoutError(pattern, len(text), limit) from None


@contextmanager
def pattern_budget(seconds: float) -> Iterator[None]:
    """Every :func:`search` inside shares ``seconds`` of real time (one check's patterns)."""
    token = _DEADLINE.set((time.monotonic() + seconds, seconds))
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def unrolled_size(pattern: str) -> int:
    """About how many items ``pattern`` has with each counted repeat written out.

    ``regex`` unrolls the minimum of a counted repeat (``a{1000}`` becomes a thousand
    items), so nested counts multiply: ``(?:a{1000}){1000}`` is a million items and
    hundreds of megabytes. Read on a pattern ``re`` compiled: groups, escapes and sets
    are followed; anything else counts one.
    """
    sizes = [[0, 0]]  # per open group: [total so far, size of the last item]
    index = 0
    while index < len(pattern):
        char = pattern[index]
        index += 1
        if char == "\\":
            index += 1
            _item(sizes, 1)
        elif char == "[":
            index = _end_of_set(pattern, index)
            _item(sizes, 1)
        elif char == "(":
            sizes.append([0, 0])
            index = _past_extension(pattern, index)
        elif char == ")" and len(sizes) > 1:
            _item(sizes, max(sizes.pop()[0], 1))
        elif char == "{" and (count := _COUNT.match(pattern, index - 1)) is not None:
            index = count.end()
            times = int(count[1] or 0)
            if times > 1:
                frame = sizes[-1]
                frame[0] += frame[1] * (times - 1)
                frame[1] *= times
        else:
            _item(sizes, 1)
    return sum(frame[0] for frame in sizes)


def _item(sizes: list[list[int]], size: int) -> None:
    sizes[-1][0] += size
    sizes[-1][1] = size


def _past_extension(pattern: str, index: int) -> int:
    """Past a group's ``?:``, ``?P<name>``, ``?<=`` ... header (at ``index``), if it has one."""
    if not pattern.startswith("?", index):
        return index
    while index < len(pattern) and pattern[index] not in ":=!>)":
        index += 1
    return index + 1 if index < len(pattern) and pattern[index] != ")" else index


def _end_of_set(pattern: str, index: int) -> int:
    """The index just past the ``]`` closing a set that opened before ``index``."""
    if index < len(pattern) and pattern[index] == "^":
        index += 1
    if index < len(pattern) and pattern[index] == "]":
        index += 1  # a ']' first is a member
    while index < len(pattern) and pattern[index] != "]":
        index += 2 if pattern[index] == "\\" else 1
    return index + 1
