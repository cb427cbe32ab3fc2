"""Field types shared by the scenario models: durations, tags, regular expressions.

Each type validates the way the runtime needs and carries a JSON Schema that
accepts the same values, so an editor and the loader agree on what a file may say.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Annotated

from pydantic import AfterValidator, BeforeValidator, Field, JsonValue, WithJsonSchema
from pydantic.config import JsonDict

from handoff_sim._durations import SPACE, UNITS, parse_duration, shown
from handoff_sim._limits import MAX_SECONDS
from handoff_sim._patterns import pattern_problem

__all__ = [
    "DEF_KEY",
    "DURATION_JSON",
    "DURATION_STRING_JSON",
    "JSON_DEFS",
    "MAX_MS",
    "MS_JSON",
    "RESERVED_TAGS",
    "RETURNS_OR_RAISES",
    "TAG_PATTERN",
    "Duration",
    "Milliseconds",
    "PositiveDuration",
    "Tag",
    "json_given",
    "json_set",
    "milliseconds_problem",
    "regex_problem",
    "tag_problem",
]

# -- rules of the JSON Schema that a model validator states for the loader ----------


def json_given(*keys: str) -> list[JsonValue]:
    """JSON Schema: one alternative per key, "this key is written"."""
    return [{"required": [key]} for key in keys]


def json_set(key: str) -> JsonDict:
    """JSON Schema: ``key`` is written with a value other than null."""
    return {"required": [key], "properties": {key: {"not": {"type": "null"}}}}


RETURNS_OR_RAISES: JsonDict = {"not": {"allOf": [{"required": ["returns"]}, json_set("raises")]}}
"""JSON Schema: not both ``returns`` and a ``raises`` other than null."""

# -- durations -------------------------------------------------------------------

MAX_MS = MAX_SECONDS * 1000
_ZERO = rf"{SPACE}(?:0+(?:\.0+)?|\.0+){SPACE}(?:us|ms|s|m|h)?{SPACE}$"


def _at_most(limit: int) -> str:
    """A regex for the decimals from 0 to ``limit`` (leading zeros allowed), fractions included."""
    digits = str(limit)
    below = [f"[1-9][0-9]{{0,{len(digits) - 2}}}"] if len(digits) > 1 else []
    for i, digit in enumerate(digits):  # same length, smaller from position i on
        low = 1 if i == 0 else 0
        if int(digit) > low:
            rest = len(digits) - i - 1
            below.append(f"{digits[:i]}[{low}-{int(digit) - 1}][0-9]{{{rest}}}")
    alternatives = [r"0+(?:\.[0-9]+)?", r"\.[0-9]+", rf"0*{digits}(?:\.0+)?"]
    if below:
        alternatives.insert(0, rf"0*(?:{'|'.join(below)})(?:\.[0-9]+)?")
    return "(?:" + "|".join(alternatives) + ")"


def _duration_pattern(*, positive: bool) -> str:
    """The duration strings the loader accepts, up to ``MAX_SECONDS`` in every unit, exactly."""
    forms = []
    for unit, seconds in UNITS.items():
        limit = Decimal(MAX_SECONDS) / seconds
        assert limit == limit.to_integral_value(), "the bound is a whole number in every unit"
        suffix = "(?:s)?" if unit == "s" else unit
        forms.append(f"{_at_most(int(limit))}{SPACE}{suffix}")
    head = f"^(?!{_ZERO})" if positive else "^"
    return f"{head}{SPACE}(?:{'|'.join(forms)}){SPACE}$"


DEF_KEY = "x-handoff-def"
"""Marks where a definition of :data:`JSON_DEFS` is meant; the exported schema turns it into a
``$ref`` (pydantic resolves every ``$ref`` it sees against its own definitions)."""


def _ref(name: str) -> JsonDict:
    return {DEF_KEY: name}


JSON_DEFS: dict[str, JsonDict] = {
    "DurationString": {
        "type": "string",
        "pattern": _duration_pattern(positive=False),
        "description": "a number with a unit (us, ms, s, m, h; default s), at most a year",
    },
    "Duration": {
        "anyOf": [
            {"type": "number", "minimum": 0, "maximum": MAX_SECONDS},
            _ref("DurationString"),
        ],
        "description": "seconds (at most a year), or a number with a unit: 250ms, 2s, 1m, 1h",
    },
    "PositiveDuration": {
        "anyOf": [
            {"type": "number", "exclusiveMinimum": 0, "maximum": MAX_SECONDS},
            {"type": "string", "pattern": _duration_pattern(positive=True)},
        ],
        "description": "seconds (> 0, at most a year), or e.g. 250ms, 30s",
    },
    "Milliseconds": {
        "type": "number",
        "minimum": 0,
        "maximum": MAX_MS,
        "description": "milliseconds, at most a year's",
    },
}
"""JSON Schema definitions the scenario schema refers to (each written once, by name)."""

DURATION_JSON = _ref("Duration")
"""A duration, exact to the loader (bounds included)."""
DURATION_STRING_JSON = _ref("DurationString")
"""A duration written as a string."""
MS_JSON = _ref("Milliseconds")
"""Milliseconds from 0 to a year."""

Duration = Annotated[float, BeforeValidator(parse_duration), WithJsonSchema(DURATION_JSON)]
"""A duration: >= 0 and at most a (virtual) year."""

PositiveDuration = Annotated[
    float,
    BeforeValidator(parse_duration),
    Field(gt=0),
    WithJsonSchema(_ref("PositiveDuration")),
]
"""A timeout: > 0 and at most a (virtual) year."""


def milliseconds_problem(value: object) -> str | None:
    """Why ``value`` is not a number of milliseconds from 0 to a year, or None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "must be a number"
    if not 0 <= value <= MAX_MS:  # False for nan
        return f"must be from 0 to {MAX_MS:.0f} milliseconds (a year), got {shown(value)}"
    return None


def _milliseconds(value: object) -> float:
    problem = milliseconds_problem(value)
    if problem is not None:
        raise ValueError(problem)
    assert isinstance(value, int | float)
    return float(value)


Milliseconds = Annotated[float, BeforeValidator(_milliseconds), WithJsonSchema(MS_JSON)]
"""Milliseconds from 0 to a (virtual) year."""

# -- tags --------------------------------------------------------------------------

TAG_PATTERN = r"^[A-Za-z][A-Za-z0-9_]*$"

RESERVED_TAGS: frozenset[str] = frozenset(
    {
        # pytest's own markers, and the misspellings of parametrize it stops on
        "skip",
        "skipif",
        "xfail",
        "parametrize",
        "parameterize",
        "parametrise",
        "parameterise",
        "usefixtures",
        "filterwarnings",
        "tryfirst",
        "trylast",
        "pytester_example_path",
        # this plugin's own markers
        "handoff_scenario",
        "handoff_simulation",
        # markers of widely used plugins that change whether, how often or how a test runs
        "flaky",
        "timeout",
        "asyncio",
        "anyio",
        "trio",
        "hypothesis",
        "xdist_group",
        "forked",
        "repeat",
        "order",
        "dependency",
        "django_db",
        "syrupy_snapshot",
    }
)
"""Tag names refused in any letter case: as pytest markers they would change a test's result."""


def tag_problem(tag: object) -> str | None:
    """Why ``tag`` cannot be a scenario tag (and so a pytest marker), or None."""
    if not isinstance(tag, str) or re.fullmatch(TAG_PATTERN, tag) is None:
        return f"tag {shown(tag)} must be a letter followed by letters, digits or '_'"
    if tag.lower() in RESERVED_TAGS:
        return (
            f"tag '{tag}' is reserved: as a pytest marker it would change how the scenario "
            "runs or what it reports; choose another name"
        )
    return None


def _not_reserved(tag: str) -> str:
    problem = tag_problem(tag)
    if problem is not None:
        raise ValueError(problem)
    return tag


def _any_case(name: str) -> str:
    return "".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else re.escape(c) for c in name)


_TAG_JSON_PATTERN = (
    "^(?!(?:" + "|".join(_any_case(n) for n in sorted(RESERVED_TAGS)) + ")$)" + TAG_PATTERN[1:]
)

Tag = Annotated[
    str,
    Field(pattern=TAG_PATTERN),
    AfterValidator(_not_reserved),
    WithJsonSchema(
        {
            "type": "string",
            "pattern": _TAG_JSON_PATTERN,
            "description": "an identifier; names of pytest markers (xfail, skip, ...) are reserved",
        }
    ),
]
"""A scenario tag: an identifier that is safe to apply as a pytest marker."""

# -- regular expressions -----------------------------------------------------------


def regex_problem(pattern: str) -> str | None:
    """Why ``pattern`` is not a usable regular expression (in ``re`` syntax, compiled by the
    engine that matches it, not too big once its counted repeats are unrolled), or None."""
    return pattern_problem(pattern)
