"""Load-time checks of what a scenario expects: event patterns, value patterns, captures.

Each finding is a (field path, message) pair relative to one scenario; the load phase
turns it into ``path:line:col``. Nothing here runs the scenario.
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Iterator, Sequence
from typing import Any

from handoff_sim._durations import parse_duration
from handoff_sim.events import EVENT_TYPES
from handoff_sim.scenarios._expect._captures import capture_findings, matrix_capture_findings
from handoff_sim.scenarios._expect._fake_findings import fake_findings
from handoff_sim.scenarios._expect._places import (
    Finding,
    Position,
    RelPath,
    expect_positions,
    step_positions,
    trace_base,
    turn_positions,
)
from handoff_sim.scenarios._expect._trajectory import trajectory_findings
from handoff_sim.scenarios._schema import (
    EnumField,
    ExpectSpec,
    ScenarioSpec,
    event_enums,
    is_matcher,
    matcher_nodes,
    milliseconds_problem,
    pattern_problems,
)

__all__ = ["event_fields", "expect_findings"]


@functools.cache
def event_fields(event_type: str) -> tuple[str, ...]:
    """The fields a pattern may name for ``event_type`` (``type`` included)."""
    return ("type", *EVENT_TYPES[event_type].__struct_fields__)


def expect_findings(spec: ScenarioSpec) -> list[Finding]:
    """Every problem of the expectations of ``spec`` and of its matrix variants, once each."""
    found: list[Finding] = []
    turns, base = turn_positions(spec), expect_positions(spec.expect, ("expect",))
    found += _shape_findings(turns)
    found += _event_findings(spec.expect, ("expect",))
    found += trajectory_findings(spec.expect, ("expect",))
    found += fake_findings(spec)
    found += _shape_findings(_flat(base))
    for position in step_positions(spec):
        found += _shape_findings([position])
        at, value, where = position
        for path, node in matcher_nodes(value, "value" if where == "event" else where):
            if "capture" in node or "ref" in node:
                found.append(
                    (
                        (*at, *path, "capture" if "capture" in node else "ref"),
                        "a script step's checks run while the scenario runs: they cannot "
                        "capture or refer to values (expectations under 'expect' can)",
                    )
                )
    # with a matrix only the variants run, each with its own expectations
    if spec.matrix:
        found += matrix_capture_findings(spec)
    else:
        found += capture_findings(spec, None, turns, base)
    for index, variant in enumerate(spec.matrix or ()):
        if variant.expect is not None:
            own: RelPath = ("matrix", index, "expect")
            found += _event_findings(variant.expect, own)
            found += trajectory_findings(variant.expect, own)
            found += _shape_findings(_flat(expect_positions(variant.expect, own)))
    return list(dict.fromkeys(found))


def _flat(groups: dict[str, list[Position]]) -> list[Position]:
    return [p for group in groups.values() for p in group]


def _shape_findings(positions: list[Position]) -> Iterator[Finding]:
    for at, value, place in positions:
        if place == "event" or value is None or isinstance(value, str):
            continue  # an event field is checked with its event type; text is always fine
        for path, message in pattern_problems(value, place):
            yield (*at, *path), message


def _event_findings(expect: ExpectSpec, at: RelPath) -> Iterator[Finding]:
    trace = expect.trace_spec()
    if trace is None:
        return
    base = trace_base(expect, at)
    for index, pattern in enumerate(trace.events):
        yield from _pattern_findings(pattern, (*base, index))


def _did_you_mean(word: object, choices: Sequence[str]) -> str:
    """A hint naming the closest choice, or the only one ``word`` begins (``reuse``)."""
    if not isinstance(word, str) or not word:
        return ""
    close = difflib.get_close_matches(word, choices, n=1)
    starting = [c for c in choices if c.startswith(word)]
    best = close[0] if close else starting[0] if len(starting) == 1 else None
    return f" (did you mean '{best}'?)" if best else ""


def _pattern_findings(pattern: dict[str, Any], at: RelPath) -> Iterator[Finding]:
    kind = pattern.get("type")
    if kind is None:
        yield at, "an event pattern needs 'type'"
        return
    if not isinstance(kind, str) or kind not in EVENT_TYPES:
        known = list(EVENT_TYPES)
        hint = _did_you_mean(kind, known)
        yield (*at, "type"), f"unknown event type {kind!r}{hint}; known: {', '.join(known)}"
        return
    allowed = event_fields(kind)
    enums = event_enums(kind)
    for key, value in pattern.items():
        if key == "type":
            continue
        if key not in allowed:
            hint = _did_you_mean(key, allowed)
            yield (
                (*at, key),
                f"unknown field '{key}' for event type '{kind}'{hint}; allowed: "
                f"{', '.join(allowed)}",
            )
        elif key in enums and not is_matcher(value):
            yield from _enum_findings(kind, key, value, enums[key], (*at, key))
        else:
            yield from _value_findings(key, value, (*at, key))


def _enum_findings(
    kind: str, key: str, value: object, enum: EnumField, at: RelPath
) -> Iterator[Finding]:
    """An enum-valued field: one of its values (or a matcher); a near miss gets a hint."""
    if enum.many:
        if not isinstance(value, list):
            yield at, f"must be a list of {', '.join(enum.values)} (or a matcher)"
            return
        for index, item in enumerate(value):
            if not is_matcher(item):
                yield from _enum_findings(kind, key, item, EnumField(enum.values), (*at, index))
            else:
                yield from (((*at, index, *p), m) for p, m in pattern_problems(item, "value"))
        return
    if value in enum.values or (value is None and enum.nullable):
        return
    if isinstance(value, dict):
        yield from (((*at, *p), m) for p, m in pattern_problems(value, "value"))
        return
    choices = ", ".join([*enum.values, *(["null"] if enum.nullable else [])])
    hint = _did_you_mean(value, enum.values)
    yield at, f"unknown {key} {value!r} for event type '{kind}'{hint}; one of: {choices}"


def _value_findings(key: str, value: object, at: RelPath) -> Iterator[Finding]:
    if key not in ("t", "duration_ms") and not isinstance(value, dict | list):
        return  # a plain value: compared by equality
    if isinstance(value, dict) or key not in ("t", "duration_ms"):
        yield from (((*at, *p), m) for p, m in pattern_problems(value, "value"))
        return
    if key == "duration_ms" and not isinstance(value, str):
        problem = milliseconds_problem(value)
        if problem:
            yield at, problem
        return
    try:  # a duration that matching can compare
        parse_duration(value)
    except ValueError as exc:
        yield at, str(exc)
