"""What one set of schema-made arguments may take, and schema keywords read as bounded numbers.

The budget (``MAX_SCHEMA_VALUES`` values, ``MAX_SCHEMA_CHARS`` characters) and the checks
of numeric keywords are what keep a hostile schema to bounded work: a refusal names the
place in the schema.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from typing import Any

from handoff_sim._durations import shown
from handoff_sim._limits import MAX_SCHEMA_CHARS, MAX_SCHEMA_VALUES

__all__ = [
    "MAX_BOUND",
    "Budget",
    "bound",
    "bounds_text",
    "count",
    "finite",
    "multiple",
]

MAX_BOUND = sys.float_info.max
"""The largest magnitude of a numeric keyword (``minimum``, ``multipleOf``, ...) and of a
number in ``const``/``enum``: what a JSON number read as a double holds (``inf``, ``nan``
and ``1e400`` are refused)."""


class _Refused(Exception):
    """A place in the schema where no arguments are made; the caller says which tool."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"at {path}: {problem}")


class _Unsupported(_Refused):
    """No value is made for this schema; another alternative of an ``anyOf`` may still be."""


class _OverBudget(_Refused):
    """The argument set would pass its budget: no alternative is tried, the whole set fails."""


class Budget:
    """What one argument set may still take: values (see ``MAX_SCHEMA_VALUES``), characters."""

    __slots__ = ("chars", "values")

    def __init__(self) -> None:
        self.values = MAX_SCHEMA_VALUES
        self.chars = MAX_SCHEMA_CHARS

    def spend(self, path: str, values: int = 1) -> None:
        """Take ``values`` from the budget; refused at ``path`` once it is spent."""
        self.values -= values
        if self.values < 0:
            raise _OverBudget(
                path,
                f"the arguments would take more than the {MAX_SCHEMA_VALUES:,} values one "
                "argument set may take (each schema entered and each property looked at "
                "counts one): the schema fans out through $ref, arrays or alternatives",
            )

    def reserve(self, path: str, items: int) -> None:
        """Refuse ``minItems`` at once when the items alone would spend what is left."""
        if items > self.values:
            raise _OverBudget(
                path,
                f"keyword 'minItems' asks for {items:,} items, more than the "
                f"{max(self.values, 0):,} values left of the {MAX_SCHEMA_VALUES:,} one "
                "argument set may take",
            )

    def write(self, path: str, chars: int, keyword: str | None = None) -> None:
        """Take ``chars`` characters (before they are made); refused when too few are left."""
        if chars > self.chars:
            what = f"keyword {keyword!r} asks for {chars:,}" if keyword else f"{chars:,} more"
            raise _OverBudget(
                path,
                f"{what} characters, more than the {self.chars:,} left of the "
                f"{MAX_SCHEMA_CHARS:,} one argument set may take",
            )
        self.chars -= chars


def count(node: Mapping[str, Any], keyword: str, path: str) -> int | None:
    """A non-negative integer keyword (``minItems``, ``maxLength``, ...), or None if absent."""
    value = node.get(keyword)
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():  # 3.0 is 3; inf and nan are not
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _Unsupported(
            path, f"keyword {keyword!r} must be a non-negative integer, got {shown(value)}"
        )
    return value


def finite(node: Mapping[str, Any], keyword: str, path: str) -> Any:
    """A numeric keyword as given, refused unless a finite number within ``MAX_BOUND``."""
    value = node.get(keyword)
    if value is None or (isinstance(value, bool) and keyword.startswith("exclusive")):
        return value  # absent, or draft 4's boolean exclusiveMinimum/exclusiveMaximum
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _Unsupported(path, f"keyword {keyword!r} must be a number, got {shown(value)}")
    if not -MAX_BOUND <= value <= MAX_BOUND:  # nan fails both comparisons
        raise _Unsupported(
            path,
            f"keyword {keyword!r} must be a finite number between -{MAX_BOUND:.4g} and "
            f"{MAX_BOUND:.4g}, got {shown(value)}",
        )
    return value


def bound(node: Mapping[str, Any], path: str, inclusive: str, exclusive: str, nudge: float) -> Any:
    """The tightest inclusive bound: ``minimum``, or ``exclusiveMinimum`` nudged inwards."""
    found = finite(node, inclusive, path)
    strict = finite(node, exclusive, path)
    if isinstance(strict, bool):
        return found + nudge if strict and found is not None else found  # draft 4 spelling
    if strict is not None:
        moved = strict + nudge
        if found is None or (moved > found if nudge > 0 else moved < found):
            return moved
    return found


def multiple(value: float, step: float, path: str) -> float:
    """The first multiple of ``step`` at or above ``value``; refused when it is out of reach."""
    try:
        multiple = (-(-value // step)) * step
    except OverflowError:
        multiple = math.inf
    if not -MAX_BOUND <= multiple <= MAX_BOUND:
        raise _Unsupported(
            path, f"keyword 'multipleOf' {shown(step)} has no multiple near {shown(value)}"
        )
    return multiple


def bounds_text(node: Mapping[str, Any]) -> str:
    keywords = ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "multipleOf")
    return ", ".join(f"{k} {shown(node[k])}" for k in keywords if k in node)
