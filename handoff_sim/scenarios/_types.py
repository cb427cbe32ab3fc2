"""Field types shared by the scenario models: durations, tags, regular expressions.

Each type validates the way the runtime needs and carries a JSON Schema that
accepts the same values, so an editor and the loader agree on what a file may say.
"""

from __future__ import annotations

import math
import re
import sys
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field, WithJsonSchema

from handoff_sim._durations import DURATION_PATTERN, parse_duration, shown
from handoff_sim._limits import MAX_SECONDS

__all__ = [
    "RESERVED_TAGS",
    "TAG_PATTERN",
    "Duration",
    "ExpectedDuration",
    "ExpectedMs",
    "PositiveDuration",
    "Tag",
    "regex_problem",
    "tag_problem",
]

# -- durations -------------------------------------------------------------------

_LARGEST = sys.float_info.max
_ZERO = r"[\t\n\v\f\r ]*(?:0+(?:\.0+)?|\.0+)[\t\n\v\f\r ]*(?:us|ms|s|m|h)?[\t\n\v\f\r ]*$"


def _duration_json(number: dict[str, Any], pattern: str, description: str) -> dict[str, Any]:
    return {
        "anyOf": [{"type": "number", **number}, {"type": "string", "pattern": pattern}],
        "description": description,
    }


def _expected_duration(value: object) -> float:
    return parse_duration(value, maximum=None)


Duration = Annotated[
    float,
    BeforeValidator(parse_duration),
    WithJsonSchema(
        _duration_json(
            {"minimum": 0, "maximum": MAX_SECONDS},
            DURATION_PATTERN,
            "seconds (at most a year), or a number with a unit: 250ms, 2s, 1m",
        )
    ),
]
"""A latency: >= 0 and at most a (virtual) year."""

PositiveDuration = Annotated[
    float,
    BeforeValidator(parse_duration),
    Field(gt=0),
    WithJsonSchema(
        _duration_json(
            {"exclusiveMinimum": 0, "maximum": MAX_SECONDS},
            f"^(?!{_ZERO}){DURATION_PATTERN[1:]}",
            "seconds (> 0, at most a year), or e.g. 250ms, 30s",
        )
    ),
]
"""A timeout: > 0 and at most a (virtual) year."""

ExpectedDuration = Annotated[
    float,
    BeforeValidator(_expected_duration),
    WithJsonSchema(
        _duration_json(
            {"minimum": 0, "maximum": _LARGEST},
            DURATION_PATTERN,
            "seconds, or a number with a unit: 250ms, 2s, 1m",
        )
    ),
]
"""An expected duration: any finite number of seconds >= 0."""


def _finite_ms(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("must be a number")
    try:
        number = float(value)
    except OverflowError:
        raise ValueError(f"too large: {shown(value)}") from None
    if not math.isfinite(number) or number < 0:
        raise ValueError(f"must be a finite number >= 0, got {shown(value)}")
    return number


ExpectedMs = Annotated[
    float,
    BeforeValidator(_finite_ms),
    WithJsonSchema({"type": "number", "minimum": 0, "maximum": _LARGEST}),
]
"""Expected milliseconds: a finite number >= 0."""

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
    """Why ``pattern`` is not a usable regular expression, or None."""
    try:
        re.compile(pattern)
    except re.error as exc:
        return f"invalid regular expression {shown(pattern)}: {exc}"
    except (RecursionError, OverflowError, MemoryError) as exc:
        reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        return f"invalid regular expression {shown(pattern)}: {reason}"
    return None
