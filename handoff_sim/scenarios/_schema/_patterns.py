"""Value patterns: how a scenario writes an expected value, wherever one is compared.

A value compares by equality. A mapping whose keys are all matcher names
(``match contains subset json equals capture ref``) is a *matcher*: each of its
matchers must hold. Any other mapping is compared exactly, as written, with no
matcher read inside it; ``{equals: ...}`` compares a mapping that happens to use
only matcher names as keys. This module only reads the written form (what is
allowed where, and why not); matching a run lives in the expect phase.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator
from typing import Any

from pydantic.config import JsonDict

from handoff_sim._matchers import MATCHERS, is_matcher
from handoff_sim._matchers import Place as _Place
from handoff_sim.scenarios._schema._types import DEF_KEY, regex_problem

__all__ = [
    "CAPTURE_NAME",
    "MATCHERS",
    "PATTERN_JSON_DEFS",
    "Place",
    "is_matcher",
    "matcher_nodes",
    "pattern_problems",
]

CAPTURE_NAME = r"^[A-Za-z_][A-Za-z0-9_]*$"

Place = _Place
"""Where a pattern stands, which decides what a plain value there means.

``text``: a string, null or a matcher (outputs, descriptions, titles, ids);
``value``: a scalar, a list or a matcher, never a plain mapping (event fields);
``any``: also a plain mapping, compared exactly (tool parameters, ``json``'s target);
``subset``: inside ``subset``, where a plain mapping is itself a subset.
"""

RelPath = tuple[str | int, ...]
Finding = tuple[RelPath, str]


def _children(value: object, place: Place) -> Iterator[tuple[RelPath, object, Place]]:
    """The patterns nested in ``value``: list items, ``subset`` values, ``json``'s target.

    Never inside ``equals`` or a plain mapping compared exactly: nothing there is a pattern.
    """
    if is_matcher(value):
        assert isinstance(value, dict)
        subset, target = value.get("subset"), value.get("json")
        if isinstance(subset, dict):
            yield from ((("subset", k), v, "subset") for k, v in subset.items())
        if "json" in value:
            yield ("json",), target, "any"
    elif isinstance(value, list) and place != "text":
        yield from (((i,), v, place) for i, v in enumerate(value))
    elif isinstance(value, dict) and place == "subset" and not any(k in MATCHERS for k in value):
        yield from (((k,), v, "subset") for k, v in value.items())


def matcher_nodes(value: object, place: Place) -> Iterator[tuple[RelPath, dict[str, Any]]]:
    """Every matcher ``value`` holds (itself included), with its path, in document order."""
    if is_matcher(value):
        assert isinstance(value, dict)
        yield (), value
    for prefix, child, inner in _children(value, place):
        for path, node in matcher_nodes(child, inner):
            yield (*prefix, *path), node


def pattern_problems(value: object, place: Place) -> Iterator[Finding]:
    """Why ``value`` cannot be an expected value at ``place``: (relative path, message)."""
    if is_matcher(value):
        assert isinstance(value, dict)
        yield from _matcher_problems(value)
        if place == "text" and "subset" in value:
            yield (
                ("subset",),
                (
                    "this value is text, never a mapping: to match JSON text write "
                    "{json: {subset: {...}}}"
                ),
            )
    elif isinstance(value, dict):
        yield from _mapping_problems(value, place)
    elif place == "text" and value is not None and not isinstance(value, str):
        yield (), "must be text or a matcher such as {contains: ...} or {match: ...}"
    for prefix, child, inner in _children(value, place):
        yield from (((*prefix, *p), m) for p, m in pattern_problems(child, inner))


def _mapping_problems(value: dict[Any, Any], place: Place) -> Iterator[Finding]:
    """A plain mapping: compared exactly where the value can be one, refused elsewhere."""
    named = [k for k in value if k in MATCHERS]
    others = [k for k in value if k not in MATCHERS]
    if named and others:
        yield (
            (others[0],),
            (
                f"'{others[0]}' is not a matcher, yet {_names(named)} "
                f"{'is' if len(named) == 1 else 'are'}: a mapping is either a matcher "
                "(only matcher names as keys) or a value; to compare this mapping exactly "
                "write {equals: {...}}, to pin some of its keys {subset: {...}}"
            ),
        )
    elif place == "any":
        yield from _literal_problems(value)
    elif place == "subset":
        return
    elif not value:
        yield (), f"an empty mapping is not a matcher; matchers: {', '.join(MATCHERS)}"
    else:
        key = str(others[0])
        close = difflib.get_close_matches(key, MATCHERS, n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else f"; matchers: {', '.join(MATCHERS)}"
        yield (others[0],), f"unknown matcher '{key}'{hint}; a mapping here must be a matcher"


def _literal_problems(value: object) -> Iterator[Finding]:
    """Inside a value compared exactly a matcher is never read: say so where one is written."""
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, item in items:
        if is_matcher(item):
            yield (
                (key,),
                (
                    "this mapping is compared exactly, so the matcher here would be compared as a "
                    "value: write {subset: {...}} around the enclosing mapping to match it, or "
                    "{equals: {...}} to compare a value that holds this mapping"
                ),
            )
        else:
            yield from (((key, *p), m) for p, m in _literal_problems(item))


def _names(keys: list[Any]) -> str:
    return ", ".join(f"'{k}'" for k in keys)


def _matcher_problems(value: dict[str, Any]) -> Iterator[Finding]:
    if "capture" in value and "ref" in value:
        yield ("ref",), "a matcher cannot both capture a value and refer to one"
    for key, argument in value.items():
        problem = _argument_problem(key, argument)
        if problem is not None:
            yield (key,), problem


def _argument_problem(key: str, argument: object) -> str | None:
    if key in ("match", "contains") and not isinstance(argument, str):
        what = "a regular expression" if key == "match" else "text"
        return f"'{key}' takes {what} (to compare a key named '{key}', use subset)"
    if key == "match":
        assert isinstance(argument, str)
        return regex_problem(argument)
    if key in ("capture", "ref") and (
        not isinstance(argument, str) or re.fullmatch(CAPTURE_NAME, argument) is None
    ):
        return f"'{key}' takes a name: a letter or '_' followed by letters, digits or '_'"
    if key == "subset" and not isinstance(argument, dict):
        return "'subset' takes a mapping: the keys the value must hold"
    return None


# -- JSON Schema -------------------------------------------------------------------


def _ref(name: str) -> JsonDict:
    return {DEF_KEY: name}


_SCALAR: JsonDict = {"type": ["string", "number", "boolean", "null"]}
_NAME: JsonDict = {"type": "string", "pattern": CAPTURE_NAME}
_NO_MATCHER_KEY: JsonDict = {"propertyNames": {"not": {"enum": list(MATCHERS)}}}

PATTERN_JSON_DEFS: dict[str, JsonDict] = {
    "Matcher": {
        "type": "object",
        "minProperties": 1,
        "propertyNames": {"enum": list(MATCHERS)},
        "properties": {
            "match": {"type": "string", "description": "a regular expression, searched"},
            "contains": {"type": "string", "description": "a substring, or an item of a list"},
            "subset": {
                "type": "object",
                "additionalProperties": _ref("SubsetValue"),
                "description": "the keys the mapping must hold; nested mappings are subsets",
            },
            "json": {**_ref("AnyValue"), "description": "the text parsed as JSON, then matched"},
            "equals": {"description": "compared exactly, matcher names included"},
            "capture": {**_NAME, "description": "name the value, for {ref: name} later"},
            "ref": {**_NAME, "description": "the value captured under this name"},
        },
        "not": {"required": ["capture", "ref"]},
        "description": "a mapping of matchers (match, contains, subset, json, equals, "
        "capture, ref); each must hold",
    },
    "TextValue": {
        "anyOf": [
            {"type": ["string", "null"]},
            {"allOf": [_ref("Matcher"), {"not": {"required": ["subset"]}}]},
        ],
        "description": "text compared exactly, or a matcher such as {contains: ...}",
    },
    "EventValue": {
        "anyOf": [_SCALAR, {"type": "array", "items": _ref("EventValue")}, _ref("Matcher")],
        "description": "a value compared exactly, or a matcher such as {match: regex}",
    },
    "AnyValue": {
        "anyOf": [
            _SCALAR,
            {"type": "array", "items": _ref("AnyValue")},
            _ref("Matcher"),
            {"type": "object", **_NO_MATCHER_KEY, "additionalProperties": _ref("LiteralValue")},
        ],
        "description": "a value compared exactly (a mapping with no matcher name as a key), "
        "or a matcher",
    },
    "ArgumentsValue": {
        "anyOf": [
            _SCALAR,
            {"type": "array", "items": _ref("AnyValue")},
            _ref("Matcher"),
            {"type": "object", **_NO_MATCHER_KEY, "additionalProperties": _ref("AnyValue")},
        ],
        "description": "a call's arguments as a trajectory compares them: a mapping whose "
        "values may each be a matcher, or a matcher for the whole arguments",
    },
    "LiteralValue": {
        "not": {"type": "object", "minProperties": 1, "propertyNames": {"enum": list(MATCHERS)}},
        "items": _ref("LiteralValue"),
        "additionalProperties": _ref("LiteralValue"),
        "description": "inside a mapping compared exactly: any value but a matcher",
    },
    "SubsetValue": {
        "anyOf": [
            _SCALAR,
            {"type": "array", "items": _ref("SubsetValue")},
            _ref("Matcher"),
            {"type": "object", **_NO_MATCHER_KEY, "additionalProperties": _ref("SubsetValue")},
        ],
        "description": "inside subset: a mapping is itself a subset, a list matches item for item",
    },
}
"""Definitions of the value patterns, for the scenario's JSON Schema."""
