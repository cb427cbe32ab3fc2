"""Input filters given by an import path, ``package.module:function``.

The module is imported with the given directories put in front of ``sys.path`` for that
import only (a scenario file passes its own directory and its project's root, as pytest
does for test modules). Whatever stops the reference from being a usable filter is an
:class:`InputFilterError` naming it; so is, during a run, a filter that raises or returns
something other than a ``ToolCall`` or ``None``, with the tool and the agent.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import inspect
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

from handoff_sim._context import current_frame
from handoff_sim._safe import describe_error
from handoff_sim.errors import InputFilterError
from handoff_sim.messages import ToolCall

__all__ = ["PYTHON_REFERENCE", "PythonFilter", "python_filter"]

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
PYTHON_REFERENCE = rf"^{_NAME}(\.{_NAME})*:{_NAME}(\.{_NAME})*$"
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
    module_name, attribute = reference.split(":")
    module = _import(module_name, [Path(p) for p in search])
    found: object = module
    for part in attribute.split("."):
        try:
            found = getattr(found, part)
        except AttributeError:
            where = getattr(module, "__file__", None) or module_name
            raise InputFilterError(
                f"module '{module_name}' ({where}) has no attribute '{attribute}'"
            ) from None
        except Exception as exc:  # a property or a module __getattr__ that raises
            raise InputFilterError(
                f"getting '{attribute}' from module '{module_name}' failed: {describe_error(exc)}"
            ) from exc
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


def _import(name: str, search: list[Path]) -> ModuleType:
    _refuse_shadowed(name, search)
    try:
        with _on_path(search):
            return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (name == exc.name or name.startswith(exc.name + ".")):
            places = ", ".join(str(p) for p in search)
            where = f" (searched {places} and sys.path)" if places else " (searched sys.path)"
            raise InputFilterError(f"cannot import module '{name}'{where}") from None
        raise InputFilterError(f"importing module '{name}' failed: {describe_error(exc)}") from exc
    except (Exception, SystemExit) as exc:
        raise InputFilterError(f"importing module '{name}' failed: {describe_error(exc)}") from exc


def _refuse_shadowed(name: str, search: list[Path]) -> None:
    """A top-level module already imported from elsewhere cannot be this scenario's one too."""
    top = name.split(".")[0]
    loaded = sys.modules.get(top)
    if loaded is None or not search:
        return
    local = importlib.machinery.PathFinder.find_spec(top, [str(p) for p in search])
    if local is None:
        return
    here = _location(local.origin, local.submodule_search_locations)
    there = _location(getattr(loaded, "__file__", None), getattr(loaded, "__path__", None))
    if here != there:
        raise InputFilterError(
            f"module '{top}' is already imported from {there or 'a built-in module'}, but "
            f"{here} has the same name; give one of them a unique name (as pytest asks of "
            "test modules)"
        )


def _location(origin: str | None, package: object) -> str | None:
    if origin is not None and origin not in ("namespace", "built-in", "frozen"):
        return str(Path(origin).resolve())
    try:
        paths = list(package) if package is not None else []  # type: ignore[call-overload]
    except TypeError:
        paths = []
    return str(Path(str(paths[0])).resolve()) if paths else None


@contextmanager
def _on_path(search: list[Path]) -> Iterator[None]:
    """``search`` in front of ``sys.path`` for the duration of one import."""
    added = [str(p) for p in search if str(p) not in sys.path]
    sys.path[:0] = added
    importlib.invalidate_caches()
    try:
        yield
    finally:
        for entry in added:
            if entry in sys.path:
                sys.path.remove(entry)
