"""Pydantic validation errors as Problems at the YAML line and field path they concern."""

from __future__ import annotations

import difflib
import re
import types
import typing
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from handoff_sim.scenarios._errors import Problem
from handoff_sim.scenarios._load._yaml import FieldPath, SourceMap, dotted

__all__ = ["validation_problems"]

_NOUNS = {
    "string_type": "a string",
    "int_type": "an integer",
    "int_from_float": "an integer",
    "int_parsing": "an integer",
    "float_type": "a number",
    "bool_type": "true or false",
    "list_type": "a list",
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
    "none_required": "null",
}
_BOUNDS = {
    "greater_than_equal": ("ge", ">="),
    "greater_than": ("gt", ">"),
    "less_than_equal": ("le", "<="),
    "less_than": ("lt", "<"),
}


def validation_problems(
    exc: ValidationError,
    model: type[BaseModel],
    source: SourceMap,
    prefix: FieldPath,
    path: str,
) -> list[Problem]:
    """One Problem per field: union alternatives merged, the deepest error kept."""
    located: dict[FieldPath, list[tuple[ErrorDetails, FieldPath]]] = {}
    for err in exc.errors(include_url=False):
        field = _field_path(source, prefix, err)
        located.setdefault(field, []).append((err, _model_loc(err)))
    deepest = [f for f in located if not any(o[: len(f)] == f and o != f for o in located)]
    problems = []
    for field in deepest:
        errors = located[field]
        line, column = source.position(field)
        message = _merge([_message(err, model, loc) for err, loc in errors])
        problems.append(Problem(path, line, column, dotted(field), message))
    return problems


def _model_loc(err: ErrorDetails) -> tuple[str | int, ...]:
    return tuple(err["loc"])


def _field_path(source: SourceMap, prefix: FieldPath, err: ErrorDetails) -> FieldPath:
    """The document path of an error: its loc without union tags, missing keys kept."""
    parts: list[str | int] = list(prefix)
    loc = list(err["loc"])
    for index, part in enumerate(loc):
        candidate = (*parts, part)
        if source.exists(candidate) or (index == len(loc) - 1 and err["type"] == "missing"):
            parts.append(part)
        # anything else is a union member tag, not a key in the document
    return tuple(parts)


def _merge(messages: Sequence[str]) -> str:
    """Union alternatives: a specific complaint beats "must be <type>" from another member."""
    unique = list(dict.fromkeys(messages))
    specific = [m for m in unique if not m.startswith("must be ")]
    if specific:
        return "; ".join(specific)
    return "must be " + " or ".join(m.removeprefix("must be ") for m in unique)


def _message(err: ErrorDetails, model: type[BaseModel], loc: tuple[str | int, ...]) -> str:
    kind, ctx = err["type"], err.get("ctx") or {}
    if kind in _NOUNS:
        return f"must be {_NOUNS[kind]}"
    if kind in _BOUNDS:
        key, symbol = _BOUNDS[kind]
        return f"must be {symbol} {ctx.get(key)}"
    if kind == "missing":
        return "is required"
    if kind == "extra_forbidden":
        return _unknown_field(loc, model)
    if kind in ("literal_error", "enum"):
        return f"must be one of {ctx.get('expected')}{_near_miss(err)}"
    if kind == "string_pattern_mismatch":
        return f"must match {ctx.get('pattern')}"
    if kind == "too_short":
        return "must not be empty"
    if kind == "too_long":
        return f"must have at most {ctx.get('max_length')} items"
    if kind == "value_error":
        return str(err["msg"]).removeprefix("Value error, ")
    return str(err["msg"])


def _near_miss(err: ErrorDetails) -> str:
    """`` (did you mean 'timeout'?)`` when the value written is close to an allowed one."""
    given = err.get("input")
    allowed = re.findall(r"'([^']*)'", str((err.get("ctx") or {}).get("expected", "")))
    close = difflib.get_close_matches(given, allowed, n=1) if isinstance(given, str) else []
    return f" (did you mean '{close[0]}'?)" if close else ""


def _unknown_field(loc: tuple[str | int, ...], model: type[BaseModel]) -> str:
    key = str(loc[-1]) if loc else "?"
    allowed = _allowed_fields(model, loc[:-1], key)
    message = f"unknown field '{key}'"
    if not allowed:
        return message
    close = difflib.get_close_matches(key, allowed, n=1)
    if close:
        return f"{message} (did you mean '{close[0]}'?)"
    return f"{message}; allowed: {', '.join(allowed)}"


def _allowed_fields(model: type[BaseModel], loc: tuple[str | int, ...], key: str) -> list[str]:
    """Field names of the model reached by ``loc`` from ``model`` (best effort).

    Of several union members, the first that lacks ``key`` is the one that refused it.
    """
    candidates: list[Any] = [model]
    for part in loc:
        nxt: list[Any] = []
        for typ in candidates:
            nxt.extend(_step(typ, part))
        candidates = nxt
    models = [t for t in candidates if isinstance(t, type) and issubclass(t, BaseModel)]
    for typ in models:
        if key not in typ.model_fields:
            return list(typ.model_fields)
    return list(models[0].model_fields) if models else []


def _options(typ: Any) -> list[Any]:
    """The alternatives of a union or Annotated type."""
    origin = typing.get_origin(typ)
    if origin is typing.Annotated:
        return _options(typing.get_args(typ)[0])
    if origin in (typing.Union, types.UnionType):
        out: list[Any] = []
        for arg in typing.get_args(typ):
            out.extend(_options(arg))
        return out
    return [typ]


def _step(typ: Any, part: str | int) -> list[Any]:
    out: list[Any] = []
    for option in _options(typ):
        origin = typing.get_origin(option)
        if isinstance(option, type) and issubclass(option, BaseModel):
            field = option.model_fields.get(str(part))
            out.extend(_options(field.annotation) if field else [option])  # a tag: stay
        elif origin is list and isinstance(part, int):
            out.extend(_options(typing.get_args(option)[0]))
        elif origin is dict:
            out.extend(_options(typing.get_args(option)[1]))
    return out
