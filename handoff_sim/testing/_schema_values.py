"""Arguments made from a tool's JSON Schema: minimal, valid, and the same for the same seed.

No randomness: the seed picks among alternatives (``enum``, ``anyOf``, a list of types)
and offsets numbers, as pydantic-ai's ``TestModel`` does. A schema this module cannot
satisfy is a :class:`SchemaModelError` naming the tool and the place in its schema.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from handoff_sim.errors import ScriptError

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


class SchemaModelError(ScriptError):
    """The schema-driven fake cannot make arguments for a tool: fix the test or the schema."""


class _Unsupported(Exception):
    """A place in the schema no value is made for; the caller says which tool."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"at {path}: {problem}")


def schema_arguments(
    schema: Mapping[str, Any], *, seed: int, tool: str, include_optional: bool = False
) -> dict[str, Any]:
    """Arguments for ``tool`` valid under ``schema`` (its parameters), made from ``seed``.

    Only required properties are filled unless ``include_optional``.
    """
    if not schema:  # no parameters at all
        return {}
    maker = _Maker(schema, seed, include_optional)
    try:
        value = maker.value(schema, "parameters", 0, "")
    except (TypeError, AttributeError, ValueError) as exc:  # a keyword of the wrong JSON type
        raise SchemaModelError(
            f"SchemaModel cannot make arguments for tool {tool!r}: its parameters schema is "
            f"malformed ({type(exc).__name__}: {exc})"
        ) from None
    except _Unsupported as exc:
        raise SchemaModelError(
            f"SchemaModel cannot make arguments for tool {tool!r}: {exc}; give this tool "
            f"fixed arguments with SchemaModel(arguments={{{tool!r}: {{...}}}}) or leave it "
            "out with call_tools=[...]"
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
        self, root: Mapping[str, Any], seed: int, include_optional: bool, nesting: int = 0
    ) -> None:
        self.root = root
        self.seed = seed
        self.include_optional = include_optional
        self.nesting = nesting

    def pick(self, options: list[Any]) -> Any:
        return options[self.seed % len(options)]

    def value(self, node: object, path: str, refs: int, name: str) -> Any:
        """A value valid under ``node`` (at ``path``, after ``refs`` ``$ref`` expansions)."""
        if self.nesting >= MAX_NESTING:
            raise _Unsupported(path, f"schemas nest deeper than {MAX_NESTING}")
        self.nesting += 1
        try:
            return self.made(node, path, refs, name)
        finally:
            self.nesting -= 1

    def made(self, node: object, path: str, refs: int, name: str) -> Any:
        """``value`` without the nesting guard: dispatch on the keywords ``node`` has."""
        if node is True or node == {}:
            return self.text({}, name)
        if not isinstance(node, Mapping):
            raise _Unsupported(path, f"a schema must be an object or true, got {node!r}")
        given = _given_value(node, self.pick)
        if given:
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

    def ref(self, node: Mapping[str, Any], path: str, refs: int, name: str) -> Any:
        ref = node["$ref"]
        if refs >= MAX_REF_DEPTH:
            raise _Unsupported(
                path, f"$ref {ref!r} nests deeper than {MAX_REF_DEPTH}: a required field recurses"
            )
        target = self.resolve(ref, path)
        rest = {k: v for k, v in node.items() if k != "$ref"}
        merged = {**target, **rest} if rest and isinstance(target, Mapping) else target
        return self.value(merged, f"{path}.$ref({ref})", refs + 1, name)

    def resolve(self, ref: object, path: str) -> object:
        """A local JSON pointer (``#``, ``#/$defs/X``, ``#/definitions/X``, ...)."""
        if not isinstance(ref, str) or not ref.startswith("#"):
            raise _Unsupported(path, f"$ref {ref!r} is not local to the schema (#/...)")
        node: object = self.root
        for raw in [p for p in ref[1:].split("/") if p]:
            part = raw.replace("~1", "/").replace("~0", "~")
            if isinstance(node, Mapping) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                raise _Unsupported(path, f"$ref {ref!r} points at nothing")
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
            except _Unsupported as exc:
                first = first or exc
        assert first is not None
        raise first

    def merged(self, node: Mapping[str, Any], path: str, refs: int) -> dict[str, Any]:
        """``allOf`` folded into one schema: properties and required lists joined."""
        out = {k: v for k, v in node.items() if k != "allOf"}
        for index, part in enumerate(node["allOf"]):
            where = f"{path}.allOf[{index}]"
            while isinstance(part, Mapping) and "$ref" in part and refs < MAX_REF_DEPTH:
                part, refs = self.resolve(part["$ref"], where), refs + 1
            if not isinstance(part, Mapping):
                raise _Unsupported(where, "must be an object schema")
            for key, value in part.items():
                if key == "properties":
                    out["properties"] = {**out.get("properties", {}), **value}
                elif key == "required":
                    out["required"] = [*out.get("required", []), *value]
                elif key in out and out[key] != value:
                    raise _Unsupported(where, f"{key!r} differs between allOf members")
                else:
                    out[key] = value
        return out

    def typed(self, node: Mapping[str, Any], path: str, refs: int, name: str) -> Any:
        kind = node.get("type")
        if isinstance(kind, list) and kind:
            kind = self.pick(kind)
        if kind is None:
            kind = "object" if "properties" in node else "array" if "items" in node else "string"
        make = _TYPED.get(str(kind))
        if make is None:
            raise _Unsupported(path, f"type {kind!r} is not a JSON Schema type")
        return make(self, node, path, refs, name)

    def object(self, node: Mapping[str, Any], path: str, refs: int, name: str) -> dict[str, Any]:
        properties = node.get("properties") or {}
        required = list(node.get("required") or [])
        out: dict[str, Any] = {}
        for key, sub in properties.items():
            if key in required or self.include_optional:
                out[key] = self.value(sub, f"{path}.properties.{key}", refs, key)
        extra = node.get("additionalProperties", True)
        for key in required:
            if key in out:
                continue
            if extra is False:
                raise _Unsupported(path, f"required {key!r} has no schema and no others allowed")
            sub = extra if isinstance(extra, Mapping) else {}
            out[key] = self.value(sub, f"{path}.additionalProperties", refs, key)
        if len(out) < int(node.get("minProperties", 0)):
            raise _Unsupported(path, "keyword 'minProperties' asks for more than the schema gives")
        return out

    def array(self, node: Mapping[str, Any], path: str, refs: int, name: str) -> list[Any]:
        prefix = list(node.get("prefixItems") or [])
        items = node.get("items", {})
        if isinstance(items, list):  # before 2020-12, a tuple was an ``items`` list
            prefix, items = prefix or items, False
        low, high = int(node.get("minItems", 0)), node.get("maxItems")
        if low > MAX_ITEMS:
            raise _Unsupported(path, f"keyword 'minItems' asks for more than {MAX_ITEMS} items")
        count = max(low, len(prefix), 1 if items is not False else 0)
        if high is not None:
            count = min(count, int(high))
        out: list[Any] = []
        for index in range(count):
            sub = prefix[index] if index < len(prefix) else items
            if sub is False:
                break
            maker = _Maker(self.root, self.seed + index, self.include_optional, self.nesting)
            out.append(maker.value(sub, f"{path}.items[{index}]", refs, name or "item"))
        if node.get("uniqueItems") and len({repr(v) for v in out}) < len(out):
            raise _Unsupported(path, "keyword 'uniqueItems': the items made are not unique")
        if len(out) < low:
            raise _Unsupported(path, f"keyword 'minItems': only {len(out)} item(s) can be made")
        return out

    def text(self, node: Mapping[str, Any], name: str, path: str = "") -> str:
        fmt = node.get("format")
        value = _FORMATS.get(fmt, "") if isinstance(fmt, str) else ""
        value = value or f"{name or 'text'}-{self.seed}"
        low, high = int(node.get("minLength", 0)), node.get("maxLength")
        if low > MAX_LENGTH:
            raise _Unsupported(path, f"keyword 'minLength' asks for more than {MAX_LENGTH}")
        if len(value) < low:
            value += "x" * (low - len(value))
        if high is not None and len(value) > int(high):
            value = value[: int(high)]
        return value

    def number(self, node: Mapping[str, Any], path: str, integer: bool) -> int | float:
        low = _bound(node, "minimum", "exclusiveMinimum", +1 if integer else 0.5)
        high = _bound(node, "maximum", "exclusiveMaximum", -1 if integer else -0.5)
        if integer:
            low = None if low is None else math.ceil(low)
            high = None if high is None else math.floor(high)
        if low is not None and high is not None:
            span = high - low
            value = low + (self.seed % (int(span) + 1) if span >= 1 else 0)
        elif low is not None:
            value = low + self.seed
        elif high is not None:
            value = high - self.seed
        else:
            value = self.seed
        step = node.get("multipleOf")
        if step:
            value = (-(-value // step)) * step  # the first multiple at or above
        if (low is not None and value < low) or (high is not None and value > high):
            raise _Unsupported(path, "no number fits its bounds (minimum/maximum/multipleOf)")
        return int(value) if integer else float(value)


def _given_value(node: Mapping[str, Any], pick: Callable[[list[Any]], Any]) -> list[Any]:
    """``[value]`` when the schema spells its values out (const, enum, examples), else ``[]``."""
    if "const" in node:
        return [node["const"]]
    for keyword in ("enum", "examples"):
        options = node.get(keyword)
        if isinstance(options, list) and options:
            return [pick(options)]
    return []


def _bound(node: Mapping[str, Any], inclusive: str, exclusive: str, nudge: float) -> Any:
    """The tightest inclusive bound: ``minimum``, or ``exclusiveMinimum`` nudged inwards."""
    found = node.get(inclusive)
    strict = node.get(exclusive)
    if isinstance(strict, bool) and strict and found is not None:  # draft 4 spelling
        return found + nudge
    if isinstance(strict, int | float) and not isinstance(strict, bool):
        moved = strict + nudge
        if found is None or (moved > found if nudge > 0 else moved < found):
            return moved
    return found


_TYPED: dict[str, Callable[[_Maker, Mapping[str, Any], str, int, str], Any]] = {
    "object": _Maker.object,
    "array": _Maker.array,
    "string": lambda m, node, path, refs, name: m.text(node, name, path),
    "integer": lambda m, node, path, refs, name: m.number(node, path, integer=True),
    "number": lambda m, node, path, refs, name: m.number(node, path, integer=False),
    "boolean": lambda m, node, path, refs, name: bool(m.seed % 2),
    "null": lambda m, node, path, refs, name: None,
}
