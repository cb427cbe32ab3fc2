"""Assertion helpers for handoff behaviour.

Each takes what a run left behind — a ``Trace``, or anything with a ``.trace``
(``RunResult``, ``ScenarioResult``, ``Simulation``) — or, for the construction
checks, the callable and its arguments. A failure raises
:class:`HandoffAssertionError` whose message names the handoff (id, agent,
sub-agent, tool), what it did and what was expected instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from handoff_sim.events import DENIAL_REASONS
from pytest_handoff._diff import trace_diff_lines
from pytest_handoff._records import (
    HandoffAssertionError,
    _fail,
    _label,
    _listing,
    _outcome,
    _select,
    _short,
    _shown,
    _trace,
)

if TYPE_CHECKING:
    from handoff_sim import Agent, DuplicateToolNameError, SubAgent, Trace
    from handoff_sim.events import HandoffAttemptEndEvent
    from handoff_sim.trace import HandoffRecord

__all__ = [
    "DENIAL_REASONS",
    "HandoffAssertionError",
    "assert_denied",
    "assert_depth_exceeded",
    "assert_duplicate_tool_names",
    "assert_fallback_unavailable",
    "assert_handoffs_balanced",
    "assert_normalized_name",
    "assert_ran_in_parallel",
    "assert_retry_count",
    "assert_timeout_per_attempt",
    "trace_diff_lines",
]


def assert_denied(
    source: object,
    tool: str | None = None,
    *,
    reason: str | None = None,
    handoff_id: str | None = None,
) -> HandoffRecord:
    """Assert a handoff (via ``tool``) was refused by admission, optionally for ``reason``.

    A denial ends with ``attempts=0`` and a reason of ``not_allowed``, ``denied_tool``
    or ``max_depth``; its status is ``denied``, or ``fallback``/``unavailable``
    under ``FALLBACK_TO_PRIMARY``. Returns the denied handoff's record.
    """
    __tracebackhide__ = True
    if reason is not None and reason not in DENIAL_REASONS:
        raise ValueError(f"reason must be one of {', '.join(DENIAL_REASONS)}; got {reason!r}")
    chosen = _select(_trace(source, "assert_denied"), tool, handoff_id, "assert_denied")
    denied = [r for r in chosen if r.attempts == 0 and r.reason in DENIAL_REASONS]
    matching = [r for r in denied if reason is None or r.reason == reason]
    if matching:
        return matching[0]
    target = f"handoff via {_shown(tool)}" if tool else "a handoff"
    expected = f"expected {target} to be denied" + (f" with reason={reason}" if reason else "")
    if denied:
        _fail(
            f"{expected}, but it was denied for another reason:"
            + "".join(
                f"\n  - {_label(r)} was denied with reason={_shown(r.reason)} ({_shown(r.error)})"
                for r in denied
            )
        )
    _fail(f"{expected}, but no handoff was denied:{_listing(chosen)}")


def assert_depth_exceeded(
    source: object,
    tool: str | None = None,
    *,
    depth: int | None = None,
    max_depth: int | None = None,
) -> HandoffRecord:
    """Assert a handoff was denied because its depth exceeded ``max_depth``.

    ``depth`` checks the depth the denied handoff would have had; ``max_depth`` the
    limit its message names (``handoff depth <d> exceeds max_depth <m>``).
    """
    __tracebackhide__ = True
    chosen = _select(_trace(source, "assert_depth_exceeded"), tool, None, "assert_depth_exceeded")
    exceeded = [r for r in chosen if r.reason == "max_depth"]
    target = f"a handoff via {_shown(tool)}" if tool else "a handoff"
    if not exceeded:
        _fail(
            f"expected {target} to be denied for exceeding max_depth, but none was:"
            + _listing(chosen)
        )
    problems = []
    for r in exceeded:
        if depth is not None and r.depth != depth:
            problems.append(
                f"{_label(r)} was denied at depth {r.depth} ({_shown(r.error)}), "
                f"expected depth {depth}"
            )
        elif max_depth is not None and f"exceeds max_depth {max_depth}" not in (r.error or ""):
            problems.append(
                f"{_label(r)} was denied with {r.error!r}, expected max_depth {max_depth}"
            )
        else:
            return r
    _fail(
        f"expected {target} to exceed max_depth as specified, but:\n  - " + "\n  - ".join(problems)
    )


def _attempts_text(r: HandoffRecord) -> str:
    outcomes = f" ({', '.join(r.attempt_outcomes)})" if r.attempt_outcomes else ""
    retries = max(r.attempts - 1, 0)
    return f"made {_attempts(r.attempts)}{outcomes} = {retries} {_retries(retries)}"


def _attempts(n: int) -> str:
    return f"{n} attempt{'s' if n != 1 else ''}"


def _retries(n: int) -> str:
    return "retry" if n == 1 else "retries"


def assert_retry_count(
    source: object, tool: str, retries: int, *, handoff_id: str | None = None
) -> list[HandoffRecord]:
    """Assert every handoff via ``tool`` was retried exactly ``retries`` times (attempts - 1)."""
    __tracebackhide__ = True
    if retries < 0:
        raise ValueError(f"retries must be >= 0, got {retries!r}")
    chosen = _select(_trace(source, "assert_retry_count"), tool, handoff_id, "assert_retry_count")
    wrong = []
    for r in chosen:
        if r.attempts == 0:
            wrong.append(f"{_label(r)} made no attempt: {_outcome(r)}")
        elif r.attempts - 1 != retries:
            wrong.append(f"{_label(r)} {_attempts_text(r)}")
    if wrong:
        _fail(
            f"expected {retries} {_retries(retries)} ({_attempts(retries + 1)}) per handoff via "
            f"{_shown(tool)}, but:\n  - " + "\n  - ".join(wrong)
        )
    return chosen


def _seconds(value: float | str) -> float:
    from handoff_sim._durations import parse_duration

    return parse_duration(value)


def _ms(value: float) -> str:
    return f"{round(value, 3):g} ms"


def assert_timeout_per_attempt(
    source: object, tool: str, timeout: float | str, *, handoff_id: str | None = None
) -> list[HandoffAttemptEndEvent]:
    """Assert attempts via ``tool`` were each bounded by ``timeout`` on its own.

    At least one attempt must have timed out; every timed-out attempt lasted exactly
    ``timeout`` (seconds, or a string like ``"5s"``) and no attempt ran longer.
    Returns the timed-out attempts' end events.
    """
    __tracebackhide__ = True
    from handoff_sim.events import HandoffAttemptEndEvent

    trace = _trace(source, "assert_timeout_per_attempt")
    chosen = _select(trace, tool, handoff_id, "assert_timeout_per_attempt")
    keys = {(r.run_id, r.handoff_id): r for r in chosen}
    limit_ms = round(_seconds(timeout) * 1000, 3)
    attempts = [
        e for e in trace.of_type(HandoffAttemptEndEvent) if (e.run_id, e.handoff_id) in keys
    ]
    timed_out = [e for e in attempts if e.outcome == "timeout"]

    def where(e: HandoffAttemptEndEvent) -> str:
        return f"{_label(keys[(e.run_id, e.handoff_id)])} attempt {e.attempt}"

    if not timed_out:
        seen = "".join(
            f"\n  - {where(e)} ended {_shown(e.outcome)} after {_ms(e.duration_ms)}"
            for e in attempts
        )
        _fail(
            f"expected an attempt of a handoff via {_shown(tool)} to time out after "
            f"{_ms(limit_ms)}, "
            f"but none timed out:{seen or ' (no attempts)'}"
        )
    problems = [
        f"{where(e)} timed out after {_ms(e.duration_ms)}, expected exactly {_ms(limit_ms)}"
        for e in timed_out
        if round(e.duration_ms, 3) != limit_ms
    ]
    problems += [
        f"{where(e)} ran {_ms(e.duration_ms)} ({_shown(e.outcome)}), longer than the "
        f"{_ms(limit_ms)} per-attempt timeout"
        for e in attempts
        if e.outcome != "timeout" and round(e.duration_ms, 3) > limit_ms
    ]
    if problems:
        _fail(
            f"per-attempt timeout of {_ms(limit_ms)} not honoured:\n  - " + "\n  - ".join(problems)
        )
    return timed_out


def assert_fallback_unavailable(
    source: object,
    tool: str | None = None,
    *,
    why: str | None = None,
    handoff_id: str | None = None,
) -> HandoffRecord:
    """Assert a fallback found no primary tool: status ``unavailable`` and a result.

    The tool result the model saw must begin ``handoff unavailable:`` and name the
    tool; ``why`` (``"denied"`` or ``"failed"``) checks which path led there.
    """
    __tracebackhide__ = True
    trace = _trace(source, "assert_fallback_unavailable")
    chosen = _select(trace, tool, handoff_id, "assert_fallback_unavailable")
    target = f"a handoff via {_shown(tool)}" if tool else "a handoff"
    unavailable = [r for r in chosen if r.status == "unavailable"]
    if not unavailable:
        _fail(
            f"expected {target} to end unavailable (fallback with no primary tool), "
            f"but:{_listing(chosen)}"
        )
    problems = []
    for r in unavailable:
        result = _tool_result(trace, r)
        problem = _unavailable_problem(r, result, why)
        if problem is None:
            return r
        problems.append(f"{_label(r)} {problem}")
    _fail(
        f"expected {target} to end unavailable as specified, but:\n  - " + "\n  - ".join(problems)
    )


def _tool_result(trace: Trace, r: HandoffRecord) -> str | None:
    from handoff_sim.events import ToolEndEvent

    for e in trace.of_type(ToolEndEvent):
        if e.run_id == r.run_id and e.call_id == r.call_id:
            return e.output
    return r.output


def _unavailable_problem(r: HandoffRecord, result: str | None, why: str | None) -> str | None:
    text = result or ""
    if not text.startswith("handoff unavailable:"):
        return f"gave the model {text!r}, which does not begin 'handoff unavailable:'"
    if r.tool not in text:
        return f"gave the model {text!r}, which does not name the tool {_shown(r.tool)}"
    if why is not None and f" {why} (" not in text:
        return f"gave the model {text!r}, expected the handoff to have been {_shown(why)}"
    return None


def _call_text(build: Callable[..., object], args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    parts = [_short(a) for a in args] + [f"{k}={_short(v)}" for k, v in kwargs.items()]
    name = getattr(build, "__qualname__", None) or _short(build)
    return f"{name}({', '.join(parts)})"


def assert_duplicate_tool_names(
    build: Callable[..., object], *args: Any, duplicate: str | None = None, **kwargs: Any
) -> DuplicateToolNameError:
    """Assert ``build(*args, **kwargs)`` raises ``DuplicateToolNameError``.

    ``duplicate`` is the tool name expected in the error
    (``duplicate subagent tool name: <name>``, or ``duplicate tool name: <name>`` when
    only plain tools clash). Returns the error.
    """
    __tracebackhide__ = True
    from handoff_sim import DuplicateToolNameError

    call = _call_text(build, args, kwargs)
    expected = "DuplicateToolNameError" + (f" for {duplicate!r}" if duplicate else "")
    try:
        built = build(*args, **kwargs)
    except DuplicateToolNameError as exc:
        if duplicate is not None and exc.name != duplicate:
            _fail(f"{call} raised DuplicateToolNameError for {exc.name!r}, expected {duplicate!r}")
        kind = "subagent tool" if getattr(exc, "subagent", True) else "tool"
        if str(exc) != f"duplicate {kind} name: {exc.name}":
            _fail(f"{call} raised DuplicateToolNameError with message {str(exc)!r}")
        return exc
    except Exception as exc:
        _fail(f"{call} raised {type(exc).__name__}: {exc}, expected {expected}")
    names = [spec.name for spec in getattr(built, "tool_specs", ())]
    listed = f"; its tools: {', '.join(names)}" if names else ""
    _fail(f"{call} built {built!r} without raising {expected}{listed}")


def assert_normalized_name(source: str | SubAgent | Agent, expected: str) -> str:
    """Assert the tool name generated for a sub-agent name (or SubAgent, Agent) is ``expected``.

    Checks ``normalize_tool_name``; for a ``SubAgent`` its ``tool_name``.
    """
    __tracebackhide__ = True
    from handoff_sim import Agent, SubAgent, normalize_tool_name

    if isinstance(source, SubAgent):
        actual, what = source.tool_name, f"SubAgent({source.name!r}).tool_name"
    else:
        name = source.name if isinstance(source, Agent) else source
        actual, what = normalize_tool_name(name), f"normalize_tool_name({name!r})"
    if actual != expected:
        index = next(
            (i for i, (a, b) in enumerate(zip(actual, expected, strict=False)) if a != b),
            min(len(actual), len(expected)),
        )
        _fail(f"{what} is {actual!r}, expected {expected!r} (first difference at index {index})")
    return actual


def _who(handoff_id: str, agent: str, tool: str) -> str:
    return _shown(f"{handoff_id} ({agent} via {tool})")


def _handoff_problems(trace: Trace) -> tuple[list[str], int]:
    """What is unbalanced among the handoffs, and how many handoffs there are."""
    problems: list[str] = []
    ends: dict[tuple[str, str], tuple[str, int]] = {}  # handoffs that ended more than once
    count = 0
    for span in trace.spans().handoffs:
        first = span.first
        who = _who(span.handoff_id, first.agent, first.tool)
        if span.start is None and span.again:
            ends[span.key] = (who, ends.get(span.key, (who, 1))[1] + 1)
            continue
        count += 1
        if span.start is None:
            problems.append(f"{who}: handoff_end without handoff_start")
        elif span.end is None:
            problems.append(
                f"{who}: started at seq {span.start.seq} ({_ms(span.start.t * 1000)}) "
                "and has no handoff_end"
            )
    problems += [
        f"{who}: {times} handoff_end events for one handoff_start" for who, times in ends.values()
    ]
    return problems, count


def _attempt_problems(trace: Trace) -> list[str]:
    attempts = trace.spans().attempts
    problems = [
        f"{_who(a.first.handoff_id, a.first.agent, a.first.tool)} attempt {a.number}: "
        "handoff_attempt_end without handoff_attempt_start"
        for a in attempts
        if a.start is None
    ]
    problems += [
        f"{_who(a.start.handoff_id, a.start.agent, a.start.tool)} attempt {a.number}: "
        f"started at seq {a.start.seq} and has no handoff_attempt_end"
        for a in attempts
        if a.start is not None and a.end is None
    ]
    return problems


def assert_handoffs_balanced(source: object) -> int:
    """Assert every ``handoff_start`` has exactly one ``handoff_end``, attempts too.

    Returns how many handoffs the trace holds.
    """
    __tracebackhide__ = True
    trace = _trace(source, "assert_handoffs_balanced")
    problems, count = _handoff_problems(trace)
    problems += _attempt_problems(trace)
    if problems:
        _fail(
            f"handoff events are unbalanced ({len(problems)} problem"
            f"{'s' if len(problems) != 1 else ''}):\n  - " + "\n  - ".join(problems)
        )
    return count


def _pick(trace: Trace, selectors: Sequence[str]) -> list[HandoffRecord]:
    __tracebackhide__ = True
    every = trace.handoffs()
    if not selectors:
        return every
    chosen: list[HandoffRecord] = []
    for selector in selectors:
        found = [r for r in every if selector in (r.tool, r.handoff_id) and r not in chosen]
        if not found:
            _fail(
                f"assert_ran_in_parallel: no handoff via or with id {selector!r}; handoffs:"
                + _listing(every)
            )
        chosen.extend(found)
    return chosen


def assert_ran_in_parallel(source: object, *selectors: str) -> list[HandoffRecord]:
    """Assert the handoffs (all, or those via the given tools / with the given ids) overlapped.

    They overlap when each one started before any of them ended: then none
    waited for another. Returns the handoffs checked.
    """
    __tracebackhide__ = True
    trace = _trace(source, "assert_ran_in_parallel")
    chosen = _pick(trace, selectors)
    if len(chosen) < 2:
        _fail(
            f"assert_ran_in_parallel needs at least two handoffs, found {len(chosen)}:"
            + _listing(chosen)
        )
    marks: dict[tuple[str, str], tuple[tuple[int, float], tuple[int, float]]] = {}
    for span in trace.spans().handoffs:
        if span.start is not None and span.end is not None:
            ends = ((span.start.seq, span.start.t), (span.end.seq, span.end.t))
            marks.setdefault(span.key, ends)
    timed = [(r, marks[(r.run_id, r.handoff_id)]) for r in chosen]
    ended, (_, (end_seq, end_t)) = min(timed, key=lambda rs: rs[1][1])
    late = [(r, start) for r, (start, _) in timed if start[0] > end_seq]
    if not late:
        return chosen
    lines = [
        f"{_label(r)} started at seq {seq} ({_ms(t * 1000)}) after "
        f"{_label(ended)} had ended at seq {end_seq} ({_ms(end_t * 1000)})"
        for r, (seq, t) in late
    ]
    hint = ""
    if all(r.duration_ms == 0 for r in chosen):
        hint = (
            "\n  (every one took 0 ms of virtual time: give the sub-agents' models a latency "
            "so that running together shows in the trace)"
        )
    _fail(
        "handoffs did not run in parallel, one waited for another:\n  - "
        + "\n  - ".join(lines)
        + hint
    )
