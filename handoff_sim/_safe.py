"""Untrusted values handled without surprises: JSON in and out, and the text of an exception.

Model output and user code reach the runtime as arbitrary values. These helpers turn
every way they can fail (nested too deeply, not text, not serialisable, a ``__str__``
that raises) into one typed outcome, so no caller needs its own copy of the guards.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

__all__ = [
    "JsonProblem",
    "ascii_json_lines",
    "describe_error",
    "dump_json",
    "error_message",
    "error_text",
    "json_lines",
    "parse_arguments",
    "parse_json",
    "text_of",
]


class JsonProblem(ValueError):
    """A value could not be read or written as JSON.

    The message is a predicate to put after the value's name (``"is not valid JSON:
    ..."``); ``too_deep`` tells nesting beyond what the interpreter's stack allows
    apart from text that is simply not JSON.
    """

    def __init__(self, message: str, *, too_deep: bool = False) -> None:
        super().__init__(message)
        self.too_deep = too_deep


def parse_json(text: object) -> Any:
    """``json.loads(text)`` that fails only with :class:`JsonProblem` (a ``ValueError``).

    Covers invalid JSON, integers with too many digits, nesting too deep for the
    stack (``RecursionError``) and values that are not ``str`` (``bytes`` included).
    """
    if not isinstance(text, str):
        raise JsonProblem(f"is not JSON text (a str) but {type(text).__name__}")
    try:
        return json.loads(text)
    except RecursionError:
        raise JsonProblem("is nested too deeply to read", too_deep=True) from None
    except ValueError as exc:
        raise JsonProblem(f"is not valid JSON: {error_text(exc)}") from None


_JSON_WHITESPACE = " \t\r\n"


def json_lines(text: str) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` of each non-blank line of JSON lines text, split on ``"\\n"`` only.

    ``str.splitlines()`` also splits at U+2028, U+2029 and U+0085, which a JSON string
    may hold raw, and so would cut one record in two. A line is blank when it holds
    only JSON whitespace (the ``\\r`` of a CRLF line end included); any other line is a
    record, so nothing that is not JSON is skipped unseen.
    """
    for number, line in enumerate(text.split("\n"), 1):
        if line.strip(_JSON_WHITESPACE):
            yield number, line


def ascii_json_lines(records: Iterable[object]) -> str:
    """One compact JSON record a line, every character past ASCII as a ``\\\\u`` escape.

    For text sent between processes (xdist's workers and controller): it holds no
    line separator but ``"\\\\n"``, and no lone surrogate, which UTF-8 cannot encode.
    """
    return "".join(json.dumps(r, ensure_ascii=True, separators=(",", ":")) + "\n" for r in records)


# The last short arguments text parse_arguments read, and its value: one tuple, so a
# thread swapping it in never pairs one text with another's value.
_last_arguments: tuple[object, Any] = (None, None)
_REMEMBERED_UP_TO = 4096  # characters: longer texts are parsed each time, never kept


def parse_arguments(text: object) -> Any:
    """:func:`parse_json` of a tool call's arguments, remembered for the same string object.

    A delegation's arguments are read twice, checked as a JSON object when the call
    arrives, then read for the task; the second read of the very same ``str`` object
    reuses the first. The value is shared: callers read it and never change it.
    """
    global _last_arguments
    last = _last_arguments
    if text is last[0] and text is not None:
        return last[1]
    value = parse_json(text)
    if isinstance(text, str) and len(text) <= _REMEMBERED_UP_TO:
        _last_arguments = (text, value)
    return value


def dump_json(value: object, **options: Any) -> str:
    """``json.dumps(value, **options)`` that fails only with :class:`JsonProblem`.

    Covers values JSON cannot express (``bytes``, sets, cycles, non-finite numbers
    under ``allow_nan=False``), nesting too deep for the stack, and a ``default``
    hook that raises.
    """
    try:
        return json.dumps(value, **options)
    except RecursionError:
        raise JsonProblem("is nested too deeply to write as JSON", too_deep=True) from None
    except Exception as exc:
        raise JsonProblem(f"cannot be written as JSON: {describe_error(exc)}") from None


def _rendered(exc: BaseException) -> tuple[str, bool]:
    """``(stripped message, True)``, or ``(a stand-in naming the type, False)`` when
    ``__str__`` raised."""
    try:
        return str(exc).strip(), True
    except Exception as inner:
        name, why = _type_name(exc), _type_name(inner)
        return f"{name} (message unavailable: its __str__ raised {why})", False


def error_text(exc: BaseException) -> str:
    """The stripped message of ``exc`` (may be blank); never raises.

    When ``__str__`` raises, the text names the type and says the message was
    unavailable, so an error never hides behind a broken ``__str__``.
    """
    return _rendered(exc)[0]


def error_message(exc: BaseException) -> str:
    """The message of ``exc``, or its type name when it has none; never raises."""
    return error_text(exc) or _type_name(exc)


def describe_error(exc: BaseException) -> str:
    """``<Type>: <message>``, or ``<Type>`` when there is no message; never raises."""
    message, ok = _rendered(exc)
    if not ok:
        return message
    name = _type_name(exc)
    return f"{name}: {message}" if message else name


def text_of(value: object) -> str:
    """``value`` as text: a ``str`` as it is, anything else through ``str()``; never raises."""
    if isinstance(value, str):
        return value
    try:
        return str(value)
    except Exception as inner:
        return f"<{_type_name(value)}: its __str__ raised {_type_name(inner)}>"


def _type_name(value: object) -> str:
    name = getattr(type(value), "__name__", None)
    return name if isinstance(name, str) else "object"
