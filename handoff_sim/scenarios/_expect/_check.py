"""Check a scenario run against its expectations; every mismatch points at its line."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from handoff_sim._durations import written
from handoff_sim._limits import MAX_PATTERN_CHECK_SECONDS
from handoff_sim._patterns import pattern_budget, search
from handoff_sim._safe import describe_error as _describe
from handoff_sim._safe import error_text as _error_text
from handoff_sim._sessions import Session
from handoff_sim.errors import (
    PatternTimeoutError,
    RealTimeDeadlineError,
    ScriptAssertionError,
    UnusedRecordingError,
)
from handoff_sim.events import RunStartEvent
from handoff_sim.scenarios._expect._match import find_unmatched
from handoff_sim.scenarios._expect._state import check_sessions, check_tool_runs
from handoff_sim.scenarios._expect._trajectory import check_trajectories
from handoff_sim.scenarios._expect._values import resolved, value_matches
from handoff_sim.scenarios._schema import (
    ErrorExpect,
    ExpectSpec,
    HandoffExpect,
    Regex,
    ScenarioSpec,
)
from handoff_sim.trace import HandoffRecord, Trace

__all__ = [
    "CheckedRun",
    "CheckedScenario",
    "Mismatch",
    "check_expectations",
    "describe_error",
    "show",
]


class CheckedScenario(Protocol):
    """What the check reads of a loaded scenario: its spec and where each field is written."""

    @property
    def spec(self) -> ScenarioSpec: ...

    def field_name(self, field_path: str) -> str: ...

    def location(self, field_path: str) -> int: ...


class CheckedRun(Protocol):
    """What the check reads of a run: a ``ScenarioRun`` of the run phase has all of it.

    A run may also have ``step_failures``: failed script-step expectations kept by the
    fake models, each a failure of the scenario even if the run caught it.
    """

    @property
    def trace(self) -> Trace: ...

    @property
    def outputs(self) -> Sequence[str | None]: ...

    @property
    def error(self) -> BaseException | None: ...

    @property
    def elapsed_ms(self) -> float: ...

    @property
    def sessions(self) -> Sequence[Session] | None: ...

    @property
    def tool_runs(self) -> Mapping[str, int] | None: ...


@dataclass(frozen=True, slots=True)
class Mismatch:
    """One expectation that did not hold: what kind, where in the file, expected vs actual."""

    kind: str
    message: str
    field: str
    line: int | None
    expected: object
    actual: object

    def format(self, path: str | None = None) -> str:
        """``path:line: field: message`` plus the expected and actual values."""
        where = f"{path}:{self.line}" if path and self.line else (path or "")
        head = (
            f"{where}: {self.field}: {self.message}" if where else f"{self.field}: {self.message}"
        )
        if self.kind == "trace":
            return head
        if self.kind == "trajectory" and isinstance(self.expected, list):
            return "\n".join([head, *(f"  {line}" for line in self.expected)])
        return f"{head}\n    expected: {show(self.expected)}\n    actual:   {show(self.actual)}"


def show(value: object) -> str:
    """A compact, stable text for an expected or actual value."""
    if isinstance(value, Regex):
        return f"/{value.match}/"
    if isinstance(value, dict) and set(value) == {"match"} and isinstance(value["match"], str):
        return f"/{value['match']}/"
    if isinstance(value, BaseException):
        return describe_error(value)
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, default=_default)
    return repr(value)


def _default(value: object) -> object:
    return f"/{value.match}/" if isinstance(value, Regex) else str(value)


def describe_error(error: BaseException) -> str:
    """``Type: message``, no traceback; never raises, even when ``__str__`` does."""
    return _describe(error)


class _Checker:
    def __init__(self, scenario: CheckedScenario, run: CheckedRun) -> None:
        self.scenario = scenario
        self.run = run
        self.found: list[Mismatch] = []
        self.error_expected = False
        self.timeouts = 0
        """Regular expressions that took too long so far (the first one is reported)."""
        self.bound: dict[str, object] = {}
        """Values captured so far, by name."""

    @contextmanager
    def patterns(self, field: str) -> Iterator[None]:
        """A regex of the checks inside that takes too long fails ``field``; once the check's
        shared budget is spent, every later regex fails at once. The first is reported."""
        try:
            yield
        except PatternTimeoutError as exc:
            self.timeouts += 1
            if self.timeouts == 1:
                self.add(
                    "pattern",
                    f"{exc}; the expectation fails",
                    field,
                    {"match": exc.pattern},
                    f"a text of {exc.length} characters",
                )

    def add(self, kind: str, message: str, field: str, expected: object, actual: object) -> None:
        self.found.append(
            Mismatch(
                kind,
                message,
                self.scenario.field_name(field),
                self.scenario.location(field),
                expected,
                actual,
            )
        )


def check_expectations(scenario: CheckedScenario, run: CheckedRun) -> list[Mismatch]:
    """Every mismatch between ``run`` and what ``scenario`` expects (snapshots excepted).

    Its regular expressions share :data:`MAX_PATTERN_CHECK_SECONDS` of real time.
    """
    with pattern_budget(MAX_PATTERN_CHECK_SECONDS):
        return _check_all(_Checker(scenario, run))


def _check_all(checker: _Checker) -> list[Mismatch]:
    run, expect = checker.run, checker.scenario.spec.expect
    _check_failures(checker)
    _check_turns(checker)
    _check_final(checker, expect)
    if run.error is not None and not checker.error_expected and not _never_expected(run.error):
        checker.add("error", "the run raised an unexpected error", "run", None, run.error)
    if expect.handoffs is not None:
        _check_handoffs(checker, expect.handoffs)
    _check_trace(checker, expect)
    check_trajectories(checker.add, checker.patterns, expect, run.trace)
    with checker.patterns("expect.sessions"):
        check_sessions(checker.add, expect, run.sessions, checker.bound)
    check_tool_runs(checker.add, expect, run.tool_runs)
    if expect.elapsed is not None and not math.isclose(
        run.elapsed_ms, expect.elapsed * 1000, abs_tol=1e-3
    ):
        checker.add(
            "elapsed",
            "virtual time elapsed differs",
            "expect.elapsed",
            written(expect.elapsed),
            written(run.elapsed_ms / 1000),
        )
    for problem in run.trace.unbalanced():
        checker.add("balance", f"unbalanced handoff events: {problem}", "run", "balanced", problem)
    return checker.found


_NEVER_EXPECTED = (ScriptAssertionError, RealTimeDeadlineError)
"""Errors that fail a scenario whatever ``expect.error`` says: the test itself broke."""


def _chain(error: BaseException) -> Iterator[BaseException]:
    """``error``, then what caused it (``raise ... from``) or was being handled, in turn."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        yield current
        seen.add(id(current))
        current = current.__cause__ or current.__context__


def _never_expected(error: BaseException) -> bool:
    """Whether ``error`` is, or was caused by, a failed step expectation or the deadline."""
    return any(isinstance(e, _NEVER_EXPECTED) for e in _chain(error))


def _check_failures(checker: _Checker) -> None:
    """Each failed step expectation and a missed real-time deadline: a finding of its own."""
    run = checker.run
    failures: list[BaseException] = list(getattr(run, "step_failures", None) or ())
    error = run.error
    if error is not None and _never_expected(error):
        kept = {id(e) for e in _chain(error)}
        if not any(id(f) in kept for f in failures):
            failures.append(error)
    for failure in failures:
        if isinstance(failure, RealTimeDeadlineError):
            kind, what = "deadline", "the run went over its real-time deadline"
        elif isinstance(failure, UnusedRecordingError):
            kind, what = "recording", "recorded steps were left unused"
        else:
            kind, what = "step_expect", "a script step's expectation failed"
        message = f"{what}; this fails the scenario whatever expect.error says"
        checker.add(kind, message, "run", None, failure)


def turn_sessions(trace: Trace) -> list[str]:
    """The session each turn ran in: that of each top-level run, in order."""
    return [e.session_id for e in trace if isinstance(e, RunStartEvent) and e.parent_run_id is None]


def _check_turns(checker: _Checker) -> None:
    run = checker.run
    sessions = turn_sessions(run.trace)
    for index, turn in enumerate(checker.scenario.spec.turns()):
        if turn.expect is None:
            continue
        at = f"run.{index}.expect"
        if "session_id" in turn.expect.model_fields_set:
            with checker.patterns(f"{at}.session_id"):
                _check_session_id(checker, turn.expect.session_id, sessions, index)
        if turn.expect.error is not None:
            with checker.patterns(f"{at}.error"):
                raised_here = len(run.outputs) == index
                _check_error(checker, turn.expect.error, f"{at}.error", raised_here=raised_here)
        if "output" in turn.expect.model_fields_set and index < len(run.outputs):
            with checker.patterns(f"{at}.output"):
                _check_output(checker, turn.expect.output, run.outputs[index], f"{at}.output")


def _check_final(checker: _Checker, expect: ExpectSpec) -> None:
    run = checker.run
    if expect.error is not None:
        with checker.patterns("expect.error"):
            _check_error(checker, expect.error, "expect.error", raised_here=run.error is not None)
    if "output" in expect.model_fields_set:
        if run.error is not None or not run.outputs:
            checker.add(
                "output",
                "no output: the run raised an error",
                "expect.output",
                expect.output,
                run.error,
            )
        else:
            with checker.patterns("expect.output"):
                _check_output(checker, expect.output, run.outputs[-1], "expect.output")


def _check_output(checker: _Checker, expected: object, actual: str | None, field: str) -> None:
    if not value_matches(expected, actual, checker.bound, "text"):
        checker.add("output", "output differs", field, resolved(expected, checker.bound), actual)


def _check_session_id(checker: _Checker, expected: object, sessions: list[str], index: int) -> None:
    field = f"run.{index}.expect.session_id"
    if index >= len(sessions):
        checker.add("session_id", f"turn {index} did not start", field, expected, None)
    elif not value_matches(expected, sessions[index], checker.bound, "text"):
        name = expected.get("ref") if isinstance(expected, dict) else None
        captured = f" than the one captured as '{name}'" if isinstance(name, str) else ""
        message = f"the turn ran in another session{captured}"
        checker.add(
            "session_id", message, field, resolved(expected, checker.bound), sessions[index]
        )


def _check_error(
    checker: _Checker, expected: ErrorExpect, field: str, *, raised_here: bool
) -> None:
    error = checker.run.error if raised_here else None
    if error is not None and _never_expected(error):
        return  # reported on its own: no expect.error can expect it
    if error is None:
        checker.add(
            "error",
            "expected an error, but none was raised here",
            field,
            expected.model_dump(exclude_none=True),
            None,
        )
        return
    checker.error_expected = True
    names = {cls.__name__ for cls in type(error).__mro__}
    if expected.type is not None and expected.type not in names:
        checker.add(
            "error",
            f"expected error type {expected.type}",
            f"{field}.type",
            expected.type,
            describe_error(error),
        )
    message = _error_text(error)
    if expected.match is not None and not search(expected.match, message):
        checker.add(
            "error",
            "error message does not match",
            f"{field}.match",
            f"/{expected.match}/",
            message,
        )


def _check_handoffs(checker: _Checker, expected: list[HandoffExpect]) -> None:
    records = checker.run.trace.handoffs()
    if len(records) != len(expected):
        checker.add(
            "handoffs",
            f"expected {len(expected)} handoff(s), got {len(records)}",
            "expect.handoffs",
            [_as_written(e.model_dump(exclude_unset=True)) for e in expected],
            [_summary(r, set().union(*(e.model_fields_set for e in expected))) for r in records],
        )
    for index, (want, record) in enumerate(zip(expected, records, strict=False)):
        trial, wrong = dict(checker.bound), []
        before = checker.timeouts
        with checker.patterns(f"expect.handoffs.{index}"):
            wrong = list(_wrong_fields(want, record, trial))
        if checker.timeouts > before:
            continue
        if wrong:
            checker.add(
                "handoffs",
                f"handoff {index} ({record.tool}) differs in {', '.join(wrong)}",
                f"expect.handoffs.{index}",
                _as_written(resolved(want.model_dump(exclude_unset=True), checker.bound)),
                _summary(record, want.model_fields_set),
            )
        else:
            checker.bound.update(trial)


def _summary(record: HandoffRecord, keys: set[str]) -> dict[str, Any]:
    """A handoff as its expectation reads: its duration in the key (and unit) it uses."""
    summary = {**record.summary(), "output": record.output, "error": record.error}
    if "duration" in keys or "duration_ms" not in keys:
        summary["duration"] = written(record.duration_ms / 1000)
    if "duration_ms" in keys:
        summary["duration_ms"] = _number(record.duration_ms)
    return summary


def _as_written(expected: object, seconds: str = "duration") -> object:
    """An expected handoff (or event) with its time in seconds (``duration``, ``t``) shown
    with its unit, and ``duration_ms`` as a plain number of milliseconds."""
    if not isinstance(expected, dict):
        return expected
    shown = dict(expected)
    if isinstance(shown.get(seconds), int | float) and not isinstance(shown[seconds], bool):
        shown[seconds] = written(shown[seconds])
    milliseconds = shown.get("duration_ms")
    if isinstance(milliseconds, int | float) and not isinstance(milliseconds, bool):
        shown["duration_ms"] = _number(milliseconds)
    return shown


def _number(value: float) -> float | int:
    return int(value) if float(value).is_integer() else value


def _wrong_fields(
    want: HandoffExpect, record: HandoffRecord, bound: dict[str, object]
) -> Iterator[str]:
    given = want.model_fields_set
    for key in (k for k in HandoffExpect.model_fields if k in given):  # as the load checks
        value = getattr(want, key)
        if key in ("tool", "subagent", "output", "error"):
            ok = value_matches(value, getattr(record, key), bound, "text")
        elif key == "duration":
            ok = math.isclose(value * 1000, record.duration_ms, abs_tol=1e-3)
        elif key == "duration_ms":
            ok = math.isclose(value, record.duration_ms, abs_tol=1e-3)
        else:
            ok = value == getattr(record, key)
        if not ok:
            yield key


def _check_trace(checker: _Checker, expect: ExpectSpec) -> None:
    spec = expect.trace_spec()
    if spec is None:
        return
    events = list(checker.run.trace)
    if spec.types is not None:
        events = [e for e in events if e.type in spec.types]
    base = "expect.trace" if isinstance(expect.trace, list) else "expect.trace.events"
    failed: int | None = None
    why = ""
    with checker.patterns(base):
        failed, why = find_unmatched(spec.events, events, spec.match, checker.bound)
    if failed is None:
        return
    field = f"{base}.{failed}" if failed < len(spec.events) else base
    checker.add(
        "trace",
        f"{why} (match: {spec.match})",
        field,
        {
            "match": spec.match,
            "failed": failed,
            "events": [_as_written(resolved(e, checker.bound), "t") for e in spec.events],
        },
        [e.to_dict() for e in events],
    )
