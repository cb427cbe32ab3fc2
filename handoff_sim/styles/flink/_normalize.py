"""Flink-style result normalisation: any sub-agent result as JSON-generic values.

A result travels in a tool message, so whatever JSON cannot express is refused
with the path where it was found (rooted at ``result``), never dropped or
stringified. A declared result type first narrows the value (extra fields
dropped), and the narrowed value is checked again.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pydantic import TypeAdapter, ValidationError

from handoff_sim._safe import JsonProblem, dump_json, parse_json
from handoff_sim.errors import ToolCallError

__all__ = [
    "JsonValue",
    "ResultNormalizationError",
    "decode_output",
    "normalize_result",
    "render_result",
]

JsonValue = None | bool | int | float | str | list[Any] | dict[str, Any]

ROOT = "result"
_TOO_DEEP = "Sub-agent result is cyclic or too deeply nested to normalize as JSON"


class ResultNormalizationError(ToolCallError, TypeError, ValueError):
    """A sub-agent result JSON cannot express; ``path`` says where (``result.a[2].b``)."""

    def __init__(self, message: str, path: str) -> None:
        super().__init__(message)
        self.path = path


def decode_output(output: str | None) -> object:
    """The default raw result of an agent's final text: its JSON value, else the text.

    Text that is not JSON, or is nested too deeply to read, is the text itself.
    """
    if output is None:
        return None
    try:
        return parse_json(output)
    except JsonProblem:
        return output


def normalize_result(value: object, result_type: Any = None) -> JsonValue:
    """``value`` as plain dicts, lists and scalars, or :class:`ResultNormalizationError`.

    ``result_type`` (anything pydantic can validate; ``None``/``object`` mean
    undeclared) narrows the value first: it is read through the type, fields the
    type does not declare are dropped, and the typed value is checked again.
    """
    if result_type is not None and result_type is not object:
        value = _narrow(value, result_type)
    try:
        return _walk(value, ROOT, set())
    except RecursionError:
        raise ResultNormalizationError(_TOO_DEEP, ROOT) from None


def render_result(value: JsonValue) -> str:
    """The tool-message text of a normalised result: strings as they are, the rest as JSON.

    A value too deeply nested to write is refused like any other at the root.
    """
    if isinstance(value, str):
        return value
    try:
        return dump_json(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except JsonProblem:
        raise ResultNormalizationError(_TOO_DEEP, ROOT) from None


_ADAPTERS: dict[Any, TypeAdapter[Any]] = {}


def _adapter(result_type: Any) -> TypeAdapter[Any]:
    try:
        found = _ADAPTERS.get(result_type)
    except TypeError:  # an unhashable type expression: no caching
        return TypeAdapter(result_type)
    if found is None:
        found = _ADAPTERS[result_type] = TypeAdapter(result_type)
    return found


def _narrow(value: object, result_type: Any) -> object:
    adapter = _adapter(result_type)
    try:
        typed = adapter.validate_python(value)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = _loc_path(first["loc"])
        name = getattr(result_type, "__name__", repr(result_type))
        raise ResultNormalizationError(
            f"Sub-agent result does not fit the declared result type {name} at {where}: "
            f"{first['msg']}",
            where,
        ) from None
    return adapter.dump_python(typed, mode="json")


def _loc_path(loc: tuple[int | str, ...]) -> str:
    path = ROOT
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def _walk(value: object, path: str, on_path: set[int]) -> JsonValue:
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return value if type(value) is str else str.__str__(value)
    if isinstance(value, int):
        return value if type(value) is int else int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ResultNormalizationError(f"Non-finite number in sub-agent result at {path}", path)
        return value if type(value) is float else float(value)
    if isinstance(value, Mapping | list | tuple):
        return _walk_container(value, path, on_path)
    raise ResultNormalizationError(
        f"Sub-agent result must be JSON-compatible at {path}, found {type(value).__name__}", path
    )


def _walk_container(
    value: Mapping[Any, Any] | list[Any] | tuple[Any, ...], path: str, on_path: set[int]
) -> JsonValue:
    """Walk a dict or list; a container met again on the same path is a cycle."""
    marker = id(value)
    if marker in on_path:
        raise ResultNormalizationError(
            f"Sub-agent result must be JSON-compatible at {path}, cycle detected", path
        )
    on_path.add(marker)
    try:
        if isinstance(value, Mapping):
            if not all(isinstance(key, str) for key in value):
                raise ResultNormalizationError(
                    f"Map keys in sub-agent result must be strings at {path}", path
                )
            return {str(k): _walk(v, f"{path}.{k}", on_path) for k, v in value.items()}
        return [_walk(item, f"{path}[{i}]", on_path) for i, item in enumerate(value)]
    finally:
        on_path.discard(marker)
