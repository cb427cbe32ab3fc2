"""Arguments made from a tool's JSON Schema: minimal, valid, and the same for the same seed.

No randomness: the seed picks among alternatives (``enum``, ``anyOf``, a list of types)
and offsets numbers, as pydantic-ai's ``TestModel`` does. A schema this module cannot
satisfy is a :class:`SchemaModelError` naming the tool and the place in its schema, and so
is one whose arguments would pass the budget of one argument set (``MAX_SCHEMA_VALUES``
values, ``MAX_SCHEMA_CHARS`` characters): a ``$ref`` or array fan-out ends in bounded work.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from handoff_sim._durations import shown
from handoff_sim.errors import ScriptError
from handoff_sim.testing._schema_budget import MAX_BOUND, _Refused, _Unsupported
from handoff_sim.testing._schema_budget import Budget as _Budget
from handoff_sim.testing._schema_budget import bound as _bound
from handoff_sim.testing._schema_budget import bounds_text as _bounds_text
from handoff_sim.testing._schema_budget import count as _count
from handoff_sim.testing._schema_budget import finite as _finite
from handoff_sim.testing._schema_budget import multiple as _multiple

__all__ = ["SchemaModelError", "schema_arguments"]

MAX_REF_DEPTH = 16
"""Nested ``$ref`` expansions one value may take; deeper means a required field recurses."""

MAX_NESTING = 64
"""Schemas nested in one another along one value; a deeper one is refused, not a RecursionError."""

MAX_ITEMS = 1_000
MAX_LENGTH = 100_000
"""The most items an array and characters a string may be asked for (``minItems``,
``minLength``): a schema asking more is refused rather than filling memory."""

UNSUPPORTED = (
    "pattern",
    "patternProperties",
    "not",
    "if",
    "dependentRequired",
    "dependentSchemas",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "$dynamicRef",
)
"""Keywords a value cannot be made for without a solver: the tool needs fixed arguments."""

_FORMATS = {
    "date": "2024-01-01",
    "date-time": "2024-01-01T00:00:00Z",
    "time": "00:00:00Z",
    "duration": "PT1S",
    "email": "user@example.com",
    "idn-email": "user@example.com",
    "hostname": "example.com",
    "idn-hostname": "example.com",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "uri": "https://example.com/",
    "iri": "https://example.com/",
    "uri-reference": "https://example.com/",
    "iri-reference": "https://example.com/",
    "url": "https://example.com/",
    "uuid": "00000000-0000-4000-8000-000000000000",
}

_PART_CHARS = 40
"""A property name or ``$ref`` longer than this is cut in the paths of messages."""
_SPAN = 2**63
"""Numbers are offset by the seed within at most this span of their bounds."""
_SUGGESTION = (
    "give this tool fixed arguments with SchemaModel(arguments={{{tool!r}: {{...}}}}) or leave "
    "it out with call_tools=[...]"
)


class SchemaModelError(ScriptError):
    """The schema-driven fake cannot make arguments for a tool: fix the test or the schema."""


def schema_arguments(
    schema: Mapping[str, Any], *, seed: int, tool: str, include_optional: bool = False
) -> dict[str, Any]:
    """Arguments for ``tool`` valid under ``schema`` (its parameters), made from ``seed``.

    Only required properties are filled unless ``include_optional``.
    """
    if not schema:  # no parameters at all
        return {}
    maker = _Maker(schema, seed, include_optional, _Budget())
    try:
        value = maker.value(schema, "parameters", 0, "")
    except (TypeError, AttributeError, ValueError, OverflowError) as exc:  # a wrong JSON type
        raise SchemaModelError(
            f"SchemaModel cannot make arguments for tool {tool!r}: its parameters schema is "
            f"malformed ({type(exc).__name__}: {shown(str(exc), 200)})"
        ) from None
    except _Refused as exc:
        raise SchemaModelError(
            f"SchemaModel cannot make arguments for tool {tool!r}: {exc}; "
            + _SUGGESTION.format(tool=tool)
        ) from None
    if not isinstance(value, dict):
        raise SchemaModelError(
            f"SchemaModel cannot make arguments for tool {tool!r}: its parameters schema "
            f"describes {type(value).__name__}, not an object"
        )
    return value


class _Maker:
    """Walks one schema; ``value`` dispatches on the keywords a node has."""

    def __init__(
        self,
        root: Mapping[str, Any],
        seed: int,
        include_optional: bool,
        budget: _Budget,
        nesting: int = 0,
    ) -> None:
        self.root = root
        self.seed = seed
        self.include_optional = include_optional
        self.budget = budget
        self.nesting = nesting

    def pick(self, options: list[Any]) -> Any:
        return options[self.seed % len(options)]

    def value(self, node: object, path: str, refs: int, name: str) -> Any:
        """A value valid under ``node`` (at ``path``, after ``refs`` ``$ref`` expansions)."""
        if self.nesting >= MAX_NESTING:
            raise _Unsupported(path, f"schemas nest deeper than {MAX_NESTING}")
        self.budget.spend(path)
        self.nesting += 1
        try:
            return self.made(node, path, refs, name)
        finally:
            self.nesting -= 1

    def made(self, node: object, path: str, refs: int, name: str) -> Any:
        """``value`` without the guards: dispatch on the keywords ``node`` has."""
        if node is True or node == {}:
            return self.text({}, name, path)
        if not isinstance(node, Mapping):
            raise _Unsupported(path, f"a schema must be an object or true, got {shown(node)}")
        given = _given_value(node, self.pick)
        if given:
            self.charge(given[0], path)
            return given[0]
        unsupported = next((k for k in UNSUPPORTED if k in node), None)
        if unsupported is not None:
            raise _Unsupported(path, f"keyword {unsupported!r} is not supported")
        if "$ref" in node:
            return self.ref(node, path, refs, name)
        for keyword in ("anyOf", "oneOf"):
            if node.get(keyword) and "type" not in node:
                return self.alternatives(node[keyword], f"{path}.{keyword}", refs, name)
        if node.get("allOf"):
            return self.value(self.merged(node, path, refs), path, refs, name)
        return self.typed(node, path, refs, name)

    def charge(self, given: object, path: str) -> None:
        """Spend the budget on a value the schema spells out; refuse what JSON cannot hold."""
        stack = [given]
        while stack:
            item = stack.pop()
            self.budget.spend(path)
            if isinstance(item, str):
                self.budget.write(path, len(item))
            elif isinstance(item, Mapping):
                self.budget.write(path, sum(len(str(k)) for k in item))
                stack.extend(item.values())
            elif isinstance(item, list | tuple):
                stack.extend(item)
            elif isinstance(item, int | float) and not isinstance(item, bool):
                if not -MAX_BOUND <= item <= MAX_BOUND:  # nan fails both
                    raise _Unsupported(path, f"the value {shown(item)} given is not a JSON number")
            elif item is not None and not isinstance(item, bool):
                raise _Unsupported(path, f"the value {shown(item)} given is not a JSON value")

    def ref(self, node: Mapping[str, Any], path: str, refs: int, name: str) -> Any:
        ref = node["$ref"]
        if refs >= MAX_REF_DEPTH:
            raise _Unsupported(
                path,
                f"$ref {_part(ref)!r} nests deeper than {MAX_REF_DEPTH}: a required field recurses",
            )
        target = self.resolve(ref, path)
        rest = {k: v for k, v in node.items() if k != "$ref"}
        if rest and isinstance(target, Mapping):
            self.budget.spend(path, len(target))
            target = {**target, **rest}
        return self.value(target, f"{path}.$ref({_part(ref)})", refs + 1, name)

    def resolve(self, ref: object, path: str) -> object:
        """A local JSON pointer (``#``, ``#/$defs/X``, ``#/definitions/X``, ...)."""
        if not isinstance(ref, str) or not ref.startswith("#"):
            raise _Unsupported(path, f"$ref {shown(ref)} is not local to the schema (#/...)")
        parts = [p for p in ref[1:].split("/") if p]
        self.budget.spend(path, len(parts))
        node: object = self.root
        for raw in parts:
            part = raw.replace("~1", "/").replace("~0", "~")
            if isinstance(node, Mapping) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                raise _Unsupported(path, f"$ref {_part(ref)!r} points at nothing")
        return node

    def alternatives(self, options: object, path: str, refs: int, name: str) -> Any:
        """The seed's alternative, else the next one a value can be made for."""
        if not isinstance(options, list):
            raise _Unsupported(path, "must be a list of schemas")
        start = self.seed % len(options)
        first: _Unsupported | None = None
        for offset in range(len(options)):
            index = (start + offset) % len(options)
            try:
                return self.value(options[index], f"{path}[{index}]", refs, name)
            except _Unsupported as exc:  # a spent budget is not caught: it ends the set
                first = first or exc
        assert first is not None
        raise first

    def merged(self, node: Mapping[str, Any], path: str, refs: int) -> dict[str, Any]:
        """``allOf`` folded into one schema: properties and required lists joined."""
        out = {k: v for k, v in node.items() if k != "allOf"}
        properties = dict(out.get("properties") or {})
        required = list(out.get("required") or [])
        for index, part in enumerate(node["allOf"]):
            where = f"{path}.allOf[{index}]"
            part = self.member(part, where, refs)
            self.budget.spend(where, 1 + len(part))
            for key, value in part.items():
                if key == "properties":
                    self.budget.spend(where, len(value))
                    properties.update(value)
                elif key == "required":
                    self.budget.spend(where, len(value))
                    required.extend(value)
                elif key in out and out[key] != value:
                    raise _Unsupported(where, f"{key!r} differs between allOf members")
                else:
                    out[key] = value
        if properties:
            out["properties"] = properties
        if required:
            out["required"] = required
        return out

    def member(self, part: object, where: str, refs: int) -> Mapping[str, Any]:
        """One ``allOf`` member, its ``$ref`` chain followed (as far as ``MAX_REF_DEPTH``)."""
        while isinstance(part, Mapping) and "$ref" in part and refs < MAX_REF_DEPTH:
            part, refs = self.resolve(part["$ref"], where), refs + 1
        if not isinstance(part, Mapping):
            raise _Unsupported(where, "must be an object schema")
        return part

    def typed(self, node: Mapping[str, Any], path: str, refs: int, name: str) -> Any:
        kind = node.get("type")
        if isinstance(kind, list) and kind:
            kind = self.pick(kind)
        if kind is None:
            kind = "object" if "properties" in node else "array" if "items" in node else "string"
        make = _TYPED.get(kind) if isinstance(kind, str) else None
        if make is None:
            raise _Unsupported(path, f"type {shown(kind)} is not a JSON Schema type")
        return make(self, node, path, refs, name)

    def object(self, node: Mapping[str, Any], path: str, refs: int, name: str) -> dict[str, Any]:
        properties = node.get("properties") or {}
        required = list(node.get("required") or [])
        self.budget.spend(path, len(properties) + len(required))
        wanted = set(required)
        out: dict[str, Any] = {}
        for key, sub in properties.items():
            if key in wanted or self.include_optional:
                self.budget.write(path, len(str(key)))
                out[key] = self.value(sub, f"{path}.properties.{_part(key)}", refs, key)
        extra = node.get("additionalProperties", True)
        for key in required:
            if key in out:
                continue
            if extra is False:
                raise _Unsupported(
                    path, f"required {_part(key)!r} has no schema and no others allowed"
                )
            sub = extra if isinstance(extra, Mapping) else {}
            self.budget.write(path, len(str(key)))
            out[key] = self.value(sub, f"{path}.additionalProperties", refs, key)
        if len(out) < (_count(node, "minProperties", path) or 0):
            raise _Unsupported(path, "keyword 'minProperties' asks for more than the schema gives")
        return out

    def array(self, node: Mapping[str, Any], path: str, refs: int, name: str) -> list[Any]:
        prefix_key = "prefixItems"
        prefix = list(node.get("prefixItems") or [])
        items = node.get("items", {})
        if isinstance(items, list):  # before 2020-12, a tuple was an ``items`` list
            if not prefix:
                prefix, prefix_key = items, "items"
            items = False
        low = _count(node, "minItems", path) or 0
        if low > MAX_ITEMS:
            raise _Unsupported(path, f"keyword 'minItems' asks for more than {MAX_ITEMS} items")
        self.budget.reserve(path, low)
        count = max(low, len(prefix), 1 if items is not False else 0)
        high = _count(node, "maxItems", path)
        out: list[Any] = []
        for index in range(count if high is None else min(count, high)):
            sub = prefix[index] if index < len(prefix) else items
            if sub is False:
                break
            where = f"{path}.{prefix_key}[{index}]" if index < len(prefix) else f"{path}.items"
            seed = self.seed + index
            maker = _Maker(self.root, seed, self.include_optional, self.budget, self.nesting)
            out.append(maker.value(sub, where, refs, name or "item"))
        if node.get("uniqueItems") and len({repr(v) for v in out}) < len(out):
            raise _Unsupported(path, "keyword 'uniqueItems': the items made are not unique")
        if len(out) < low:
            raise _Unsupported(path, f"keyword 'minItems': only {len(out)} item(s) can be made")
        return out

    def text(self, node: Mapping[str, Any], name: str, path: str) -> str:
        fmt = node.get("format")
        value = _FORMATS.get(fmt, "") if isinstance(fmt, str) else ""
        value = value or f"{name or 'text'}-{self.seed}"
        low = _count(node, "minLength", path) or 0
        if low > MAX_LENGTH:
            raise _Unsupported(path, f"keyword 'minLength' asks for more than {MAX_LENGTH}")
        size = max(low, len(value))
        high = _count(node, "maxLength", path)
        if high is not None:
            size = min(size, high)
        self.budget.write(path, size, "minLength" if size > len(value) else None)
        if len(value) < size:
            value += "x" * (size - len(value))
        return value[:size]

    def number(self, node: Mapping[str, Any], path: str, integer: bool) -> int | float:
        low = _bound(node, path, "minimum", "exclusiveMinimum", +1 if integer else 0.5)
        high = _bound(node, path, "maximum", "exclusiveMaximum", -1 if integer else -0.5)
        step = _finite(node, "multipleOf", path)
        if step is not None and step <= 0:
            raise _Unsupported(path, f"keyword 'multipleOf' must be > 0, got {shown(step)}")
        if integer:
            low = None if low is None else math.ceil(low)
            high = None if high is None else math.floor(high)
        value = self.within(low, high)
        if step:
            value = _multiple(value, step, path)
        if (low is not None and value < low) or (high is not None and value > high):
            raise _Unsupported(path, f"no number fits its bounds ({_bounds_text(node)})")
        return int(value) if integer else float(value)

    def within(self, low: float | None, high: float | None) -> float:
        """The lower bound plus the seed (wrapped below the upper one), or the upper minus it."""
        if low is not None and high is not None:
            span = high - low  # may be inf for two finite bounds of opposite signs
            return low + (self.seed % (int(min(span, _SPAN)) + 1) if span >= 1 else 0)
        if low is not None:
            return low + self.seed
        if high is not None:
            return high - self.seed
        return self.seed


def _part(text: object) -> str:
    """A property name or ``$ref`` for a path in a message, cut when long."""
    value = str(text)
    return value if len(value) <= _PART_CHARS else value[: _PART_CHARS - 3] + "..."


def _given_value(node: Mapping[str, Any], pick: Callable[[list[Any]], Any]) -> list[Any]:
    """``[value]`` when the schema spells its values out (const, enum, examples), else ``[]``."""
    if "const" in node:
        return [node["const"]]
    for keyword in ("enum", "examples"):
        options = node.get(keyword)
        if isinstance(options, list) and options:
            return [pick(options)]
    return []


_TYPED: dict[str, Callable[[_Maker, Mapping[str, Any], str, int, str], Any]] = {
    "object": _Maker.object,
    "array": _Maker.array,
    "string": lambda m, node, path, refs, name: m.text(node, name, path),
    "integer": lambda m, node, path, refs, name: m.number(node, path, integer=True),
    "number": lambda m, node, path, refs, name: m.number(node, path, integer=False),
    "boolean": lambda m, node, path, refs, name: bool(m.seed % 2),
    "null": lambda m, node, path, refs, name: None,
}
