"""Input filters given by an import path, ``package.module:function``.

The module is imported with the given directories put in front of ``sys.path`` for that
import only (a scenario file passes its own directory and its project's root, as pytest
does for test modules). Whatever stops the reference from being a usable filter is an
:class:`InputFilterError` naming it; so is, during a run, a filter that raises or returns
something other than a ``ToolCall`` or ``None``, with the tool and the agent.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from handoff_sim._context import current_frame
from handoff_sim._references import REFERENCE_PATTERN, resolve_reference
from handoff_sim._safe import describe_error
from handoff_sim.errors import InputFilterError
from handoff_sim.messages import ToolCall

__all__ = ["PYTHON_REFERENCE", "PythonFilter", "python_filter"]

PYTHON_REFERENCE = REFERENCE_PATTERN
"""``package.module:function`` (the attribute may be dotted: ``module:Class.method``)."""


class PythonFilter:
    """A filter function, checked on every call: it must give a ``ToolCall`` or ``None``."""

    __slots__ = ("function", "reference")

    def __init__(self, reference: str, function: Callable[[ToolCall], object]) -> None:
        self.reference = reference
        self.function = function

    def __repr__(self) -> str:
        return f"PythonFilter({self.reference!r})"

    def __call__(self, call: ToolCall) -> ToolCall | None:
        """The filtered call; InputFilterError naming the tool and agent when the filter fails."""
        try:
            result = self.function(call)
        except (Exception, SystemExit) as exc:  # a filter calling sys.exit() must not end the run
            raise InputFilterError(
                f"input filter {self.reference} raised on tool '{call.name}' of agent "
                f"'{_agent()}': {describe_error(exc)}"
            ) from exc
        if result is None or (isinstance(result, ToolCall) and isinstance(result.arguments, str)):
            return result
        got = type(result).__name__
        if inspect.iscoroutine(result):  # never awaited: closed, so nothing warns about it later
            result.close()
            got = "a coroutine (an input filter is not awaited)"
        if isinstance(result, ToolCall):
            got = f"a ToolCall whose arguments are {type(result.arguments).__name__}, not text"
        raise InputFilterError(
            f"input filter {self.reference} returned {got} on tool '{call.name}' of agent "
            f"'{_agent()}'; it must return a ToolCall or None"
        )


def _agent() -> str:
    frame = current_frame()
    return frame.agent if frame is not None else "?"


def python_filter(reference: str, search: Sequence[Path] = ()) -> PythonFilter:
    """The filter ``reference`` names, imported with ``search`` in front of ``sys.path``."""
    if re.match(PYTHON_REFERENCE, reference) is None:
        raise InputFilterError(
            f"{reference!r} is not an import path of the form package.module:function"
        )
    found = resolve_reference(reference, search, InputFilterError)
    try:
        function = _checked(reference, found)
    except InputFilterError:
        raise
    except Exception as exc:  # an object that breaks inspection
        raise InputFilterError(f"{reference} cannot be inspected: {describe_error(exc)}") from exc
    return PythonFilter(reference, function)


def _checked(reference: str, found: object) -> Callable[[ToolCall], object]:
    if not callable(found):
        raise InputFilterError(f"{reference} is {type(found).__name__}, not a callable")
    if inspect.iscoroutinefunction(found) or inspect.isasyncgenfunction(found):
        raise InputFilterError(
            f"{reference} is an async function; an input filter is called as a plain "
            "function and returns a ToolCall or None"
        )
    try:
        signature = inspect.signature(found)
    except (TypeError, ValueError):  # a builtin without a signature: tried when called
        return found
    try:
        signature.bind(ToolCall("", ""))
    except TypeError:
        raise InputFilterError(
            f"{reference} cannot be called with one argument (the ToolCall): "
            f"its signature is {signature}"
        ) from None
    return found
