"""The checks an ``Agent`` makes of its arguments: each wrong one named, with what to pass.

Kept apart from the class so ``agent.py`` reads as what an agent does; every message says
the agent, the argument, what was given and what to pass instead.
"""

from __future__ import annotations

import inspect
import reprlib
from collections.abc import Callable, Iterable, Mapping

from handoff_sim._errors._configuration import InvalidNameError
from handoff_sim._errors._families import ConfigurationError
from handoff_sim._limits import MAX_STEPS
from handoff_sim._tools import Tool
from handoff_sim.subagents._policy import HandoffPolicy

__all__ = ["check_model", "check_options", "checked_name", "checked_tools", "describe", "items"]


def describe(value: object) -> str:
    """``int 12``, ``function <lambda>``: what a wrong argument was, briefly."""
    if inspect.isfunction(value) or inspect.ismethod(value) or inspect.isbuiltin(value):
        return f"function {getattr(value, '__name__', '?')}"
    return f"{type(value).__name__} {reprlib.repr(value)}"


def checked_name(name: object) -> str:
    if not isinstance(name, str):
        raise InvalidNameError(f"agent name must be a str, got {describe(name)}")
    if not name.strip():
        raise InvalidNameError("agent name is required")
    return name.strip()


def check_model(name: str, model: object) -> None:
    if model is None or not callable(getattr(model, "complete", None)):
        raise ConfigurationError(
            f"agent {name!r}: model must be a model client with complete(request), "
            f"got {model!r}; use ScriptedModel or FunctionModel from handoff_sim.testing, "
            "or any object with async complete(request)"
        )


def check_options(name: str, **options: object) -> None:
    """Each keyword option has the type it needs; the message says what to pass instead."""
    for option, value in options.items():
        problem = _OPTION_CHECKS[option](value)
        if problem is not None:
            raise ConfigurationError(f"agent {name!r}: {option} {problem}")


def _max_steps_problem(value: object) -> str | None:
    if not isinstance(value, int) or isinstance(value, bool):
        return f"must be an int, got {describe(value)}"
    if value < 1:
        return f"must be >= 1, got {value}"
    if value > MAX_STEPS:
        return f"must be <= {MAX_STEPS}, got {value}"
    return None


def _needs(kind: type | tuple[type, ...], instead: str) -> Callable[[object], str | None]:
    def problem(value: object) -> str | None:
        if value is None or isinstance(value, kind):
            return None
        return f"must be {instead}, got {describe(value)}"

    return problem


def _has_methods(*methods: str, instead: str) -> Callable[[object], str | None]:
    def problem(value: object) -> str | None:
        if value is None or all(callable(getattr(value, m, None)) for m in methods):
            return None
        return f"must be {instead}, got {describe(value)}"

    return problem


def _policy_problem(value: object) -> str | None:
    if value is None or isinstance(value, HandoffPolicy):
        return None
    hint = "; pass HandoffPolicy(**{...})" if isinstance(value, Mapping) else ""
    return f"must be a HandoffPolicy, got {describe(value)}{hint}"


_OPTION_CHECKS: dict[str, Callable[[object], str | None]] = {
    "handoff_policy": _policy_problem,
    "parallel_tool_calls": lambda v: (
        None if isinstance(v, bool) else f"must be True or False, got {describe(v)}"
    ),
    "max_steps": _max_steps_problem,
    "system_prompt": _needs(str, "a str or None"),
    "model_name": _needs(str, "a str or None"),
    "tool_executor": _has_methods(
        "execute", instead="an object with execute(call) (a ToolExecutor) or None"
    ),
    "session_store": _has_methods(
        "save", "load", instead="an object with save(session) and load(id) (a SessionStore)"
    ),
}


def items(name: str, option: str, value: object, what: str) -> tuple[object, ...]:
    """The items of a list-like option; a lone item, a str or a mapping is refused."""
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Iterable):
        raise ConfigurationError(
            f"agent {name!r}: {option} must be a list of {what}, got {describe(value)}"
        )
    return tuple(value)


def checked_tools(name: str, tools: object) -> tuple[Tool, ...]:
    out = []
    for index, item in enumerate(items(name, "tools", tools, "Tool objects")):
        if not isinstance(item, Tool):
            hint = (
                "decorate the function with @tool or wrap it in Tool(name, fn)"
                if callable(item)
                else "pass Tool objects (made with @tool or Tool(name, fn))"
            )
            raise ConfigurationError(
                f"agent {name!r}: tools[{index}] is {describe(item)}, not a Tool; {hint}"
            )
        out.append(item)
    return tuple(out)
