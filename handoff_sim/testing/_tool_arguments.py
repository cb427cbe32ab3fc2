"""The arguments the adversarial model sends, made from each offered tool's JSON Schema.

Valid ones come from the schema-driven fake's generator (``schema_arguments``), so a
delegation is called the way its own parameters say (``{"input": ...}`` for an SDK agent
tool, ``{"count": 3}`` for a pydantic-ai delegation tool), not only as ``{"task": ...}``.
Near-valid ones break one thing about valid ones: a required field left out, a field of the
wrong JSON type, a field the schema does not have.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from typing import Any

from handoff_sim.messages import ToolSpec
from handoff_sim.testing._schema_values import SchemaModelError, schema_arguments

__all__ = ["EXTRA_FIELD", "SEED_SPAN", "ToolArguments"]

SEED_SPAN = 1_000
"""Schema seeds are the model's seed plus the turn number, modulo this: small numbers."""

EXTRA_FIELD = "unexpected_field"
"""The field a near-valid call adds (with a suffix when the schema has a field of that name)."""

_WRONG_VALUES: tuple[object, ...] = (123, 1.5, None, True, "not the right type", ["a"], {"x": 1})
"""Replacements for a field's value; one of another JSON type than the value is chosen."""


class ToolArguments:
    """Valid arguments for the tools of one request, made once per tool and seed.

    A tool not offered, or one whose schema no value can be made for, gets ``{"task": ...}``,
    the shape of handoff-sim's own sub-agent tools.
    """

    def __init__(self, tools: Mapping[str, ToolSpec], seed: int) -> None:
        self.tools = tools
        self.seed = seed % SEED_SPAN
        self._made: dict[str, dict[str, Any] | None] = {}

    def valid(self, name: str, task: str) -> dict[str, Any]:
        """Arguments valid under ``name``'s schema; a string ``task`` field says ``task``."""
        made = self._made[name] if name in self._made else self._make(name)
        if made is None:
            return {"task": task}
        arguments = dict(made)
        if isinstance(arguments.get("task"), str):
            arguments["task"] = task
        return arguments

    def near_valid(self, name: str, task: str, rng: random.Random) -> str:
        """Valid arguments with one thing wrong, as JSON: a field missing, mistyped or extra."""
        arguments = self.valid(name, task)
        spec = self.tools.get(name)
        schema = spec.parameters if spec is not None else {}
        required = schema.get("required") if isinstance(schema, Mapping) else None
        present = [k for k in required if k in arguments] if isinstance(required, list) else []
        ways = ["extra"] + (["missing"] if present else []) + (["mistyped"] if arguments else [])
        way = rng.choice(ways)
        if way == "missing":
            del arguments[rng.choice(present)]
        elif way == "mistyped":
            key = rng.choice(present or list(arguments))
            wrong = [v for v in _WRONG_VALUES if _kind(v) != _kind(arguments[key])]
            arguments[key] = rng.choice(wrong)
        else:
            arguments[_extra_name(schema, arguments)] = "a field the schema does not have"
        return json.dumps(arguments)

    def _make(self, name: str) -> dict[str, Any] | None:
        spec = self.tools.get(name)
        made: dict[str, Any] | None = None
        if spec is not None:
            try:
                made = schema_arguments(spec.parameters or {}, seed=self.seed, tool=name)
            except SchemaModelError:
                made = None
        self._made[name] = made
        return made


def _extra_name(schema: object, arguments: Mapping[str, Any]) -> str:
    """``EXTRA_FIELD``, with underscores added until neither the schema nor ``arguments`` has it."""
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    known = set(properties) if isinstance(properties, Mapping) else set()
    name = EXTRA_FIELD
    while name in known or name in arguments:
        name += "_"
    return name


def _kind(value: object) -> str:
    """The JSON type of ``value`` (an int and a float are both a number)."""
    if value is None or isinstance(value, bool | str | list | dict):
        return type(value).__name__
    return "number" if isinstance(value, int | float) else "other"
