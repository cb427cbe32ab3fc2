"""Flink-style input schemas: explicit JSON Schema, or derived from a type.

An explicit schema always wins and is kept verbatim; a blank one is a
construction error. Otherwise the schema is derived from the input type with
pydantic; a type that does not render as an object cannot be a function's
parameters, so that sub-agent is not offered (with a warning).
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Mapping
from typing import Any

from pydantic import TypeAdapter

from handoff_sim._errors._families import ConfigurationError
from handoff_sim._safe import JsonProblem, error_text, parse_json

__all__ = ["SubAgentNotOfferedWarning", "derive_input_schema"]


class SubAgentNotOfferedWarning(UserWarning):
    """A Flink-style sub-agent has no object-shaped input, so its model is never offered it."""


def derive_input_schema(
    name: str, input_schema: Mapping[str, Any] | str | None, input_type: Any
) -> dict[str, Any] | None:
    """The parameters schema of sub-agent ``name``, or None when it cannot be offered."""
    if input_schema is not None:
        return _explicit(name, input_schema)
    if input_type is None or input_type is object:
        raise ConfigurationError(
            f"Sub-agent {name} declares neither an input schema nor an input type, so there "
            "are no arguments for the model to build a call from."
        )
    schema = _render(input_type)
    if schema.get("type") != "object":
        warnings.warn(
            f"Sub-agent {name} input type {_type_name(input_type)} does not render as a JSON "
            "object, so there are no arguments for the model to build a call from and it is "
            "not offered as a callable.",
            SubAgentNotOfferedWarning,
            stacklevel=3,
        )
        return None
    return schema


def _explicit(name: str, schema: Mapping[str, Any] | str) -> dict[str, Any]:
    if isinstance(schema, str):
        if not schema.strip():
            raise ConfigurationError("Sub-agent input schema must not be blank.")
        try:
            schema = parse_json(schema)
        except JsonProblem as exc:
            raise ConfigurationError(f"Sub-agent {name} input schema {exc}") from None
    if not isinstance(schema, Mapping):
        raise ConfigurationError(
            f"Sub-agent {name} input schema must be a JSON object, got {type(schema).__name__}"
        )
    if not schema:
        raise ConfigurationError("Sub-agent input schema must not be blank.")
    return copy.deepcopy(dict(schema))


def _render(input_type: Any) -> dict[str, Any]:
    try:
        schema = TypeAdapter(input_type).json_schema()
    except Exception as exc:
        text = error_text(exc)
        reported = text.splitlines()[0] if text else type(exc).__name__
        raise ConfigurationError(
            f"Sub-agent input type {_type_name(input_type)} cannot be rendered as a JSON Schema, "
            "so it cannot be declared to a chat model. Declare an input schema explicitly, or "
            "use an input type whose fields are all JSON-Schema-renderable. Rendering it "
            f"reported: {reported}"
        ) from None
    return _inline_root_ref(schema)


def _inline_root_ref(schema: dict[str, Any]) -> dict[str, Any]:
    """A self-referential model renders as ``{"$ref": …, "$defs": …}``: make its root an object."""
    ref = schema.get("$ref")
    defs = schema.get("$defs")
    if not isinstance(ref, str) or not isinstance(defs, dict) or not ref.startswith("#/$defs/"):
        return schema
    root = defs.get(ref.removeprefix("#/$defs/"))
    if not isinstance(root, dict):
        return schema
    return {**root, "$defs": defs}


def _type_name(input_type: Any) -> str:
    module = getattr(input_type, "__module__", None)
    qualname = getattr(input_type, "__qualname__", None)
    if module and qualname:
        return f"{module}.{qualname}"
    return repr(input_type)
