"""Matching one expected value pattern against one actual value, captures included.

The written form is described (and checked at load) in the schema's ``_patterns``;
here a pattern that passed those checks meets a run. Captured values live in a
``Bindings`` mapping the caller owns: a match that fails leaves it untouched.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, MutableMapping

from handoff_sim._patterns import search
from handoff_sim.scenarios._schema import MATCHERS, Place, is_matcher

__all__ = ["Bindings", "resolved", "same", "text_matches", "value_matches"]

Bindings = MutableMapping[str, object]
"""Captured values by name, filled as expectations are checked in order."""


def value_matches(
    expected: object, actual: object, bindings: Bindings | None = None, place: Place = "any"
) -> bool:
    """Whether ``actual`` fits ``expected``; on success the captures join ``bindings``."""
    trial: dict[str, object] = dict(bindings or {})
    if not _match(expected, actual, place, trial):
        return False
    if bindings is not None:
        bindings.update(trial)
    return True


def text_matches(expected: object, actual: str | None) -> bool:
    """Text compared exactly, or by a matcher (``{match: regex}``, ``{contains: ...}``)."""
    pattern = getattr(expected, "match", None)  # a Regex model of the schema
    if isinstance(pattern, str) and not isinstance(expected, dict):
        expected = {"match": pattern}
    return value_matches(expected, actual, None, "text")


def same(expected: object, actual: object) -> bool:
    """Exact equality, except that ``True`` is not ``1`` and a tuple equals a list."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, Mapping) and isinstance(actual, Mapping):
        return expected.keys() == actual.keys() and all(
            same(v, actual[k]) for k, v in expected.items()
        )
    if isinstance(expected, list | tuple) and isinstance(actual, list | tuple):
        return len(expected) == len(actual) and all(map(same, expected, actual))
    return expected == actual


def resolved(expected: object, bindings: Mapping[str, object]) -> object:
    """``expected`` with each bound ``{ref: name}`` replaced by its value, for reports."""
    if is_matcher(expected):
        assert isinstance(expected, dict)
        if set(expected) == {"ref"} and expected["ref"] in bindings:
            return bindings[expected["ref"]]
        return {
            k: resolved(v, bindings) if k in ("subset", "json") else v for k, v in expected.items()
        }
    if isinstance(expected, dict):
        return {k: resolved(v, bindings) for k, v in expected.items()}
    if isinstance(expected, list):
        return [resolved(v, bindings) for v in expected]
    return expected


def _match(expected: object, actual: object, place: Place, bound: dict[str, object]) -> bool:
    if is_matcher(expected):
        assert isinstance(expected, dict)
        return all(_MATCHERS[key](arg, actual, bound) for key, arg in expected.items())
    if isinstance(expected, dict) and place == "subset":
        return _subset(expected, actual, bound)
    if isinstance(expected, list) and place != "text":
        return (
            isinstance(actual, list | tuple)
            and len(actual) == len(expected)
            and all(_match(e, a, place, bound) for e, a in zip(expected, actual, strict=True))
        )
    return same(expected, actual)


def _text_of(actual: object) -> str:
    if isinstance(actual, str):
        return actual
    if isinstance(actual, Mapping | list | tuple):
        try:
            return json.dumps(actual, ensure_ascii=False, default=str)
        except (ValueError, RecursionError):  # nested too deep to write
            return ""
    return str(actual)


def _regex(argument: object, actual: object, bound: dict[str, object]) -> bool:
    """``re.search`` semantics in bounded time: a pattern that takes too long raises
    ``PatternTimeoutError``, which fails the expectation being checked."""
    return actual is not None and search(str(argument), _text_of(actual))


def _contains(argument: object, actual: object, bound: dict[str, object]) -> bool:
    if actual is None:
        return False
    if isinstance(actual, list | tuple):
        return any(same(argument, item) for item in actual)
    if isinstance(actual, Mapping):
        return argument in actual
    return str(argument) in _text_of(actual)


def _subset(argument: object, actual: object, bound: dict[str, object]) -> bool:
    if not isinstance(argument, dict) or not isinstance(actual, Mapping):
        return False
    return all(k in actual and _match(v, actual[k], "subset", bound) for k, v in argument.items())


def _json(argument: object, actual: object, bound: dict[str, object]) -> bool:
    if isinstance(actual, str | bytes):
        try:
            actual = json.loads(actual)
        except (ValueError, RecursionError):  # not JSON, or nested too deep to read
            return False
    return _match(argument, actual, "any", bound)


def _equals(argument: object, actual: object, bound: dict[str, object]) -> bool:
    return same(argument, actual)


def _capture(argument: object, actual: object, bound: dict[str, object]) -> bool:
    bound[str(argument)] = actual
    return True


def _ref(argument: object, actual: object, bound: dict[str, object]) -> bool:
    name = str(argument)
    return name in bound and same(bound[name], actual)


_MATCHERS: dict[str, Callable[[object, object, dict[str, object]], bool]] = {
    "match": _regex,
    "contains": _contains,
    "subset": _subset,
    "json": _json,
    "equals": _equals,
    "capture": _capture,
    "ref": _ref,
}
assert set(_MATCHERS) == set(MATCHERS), "every matcher name of the schema has a matcher"
