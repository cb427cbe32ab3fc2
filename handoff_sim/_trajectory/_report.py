"""A failed trajectory in words: each call missing, extra, out of order or over its bound,
in which scope, with the nearest candidate, then the calls the scope held."""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterator, Mapping, Sequence

from handoff_sim._trajectory._calls import Call
from handoff_sim._trajectory._fit import closeness, differing_keys, fits, nearest
from handoff_sim._trajectory._modes import Problem
from handoff_sim._trajectory._spec import CallPattern, TrajectorySpec

__all__ = ["describe_scope", "render", "shown_pattern"]

MAX_LISTED = 40
"""Calls listed under a failure; the rest are counted."""
MAX_PROBLEMS = 20
"""Problems written out in a failure; the rest are counted."""


def _flow(value: Mapping[str, object]) -> str:
    return "{" + ", ".join(f"{k}: {json.dumps(v, default=str)}" for k, v in value.items()) + "}"


def shown_pattern(spec: TrajectorySpec, index: int) -> str:
    """``call 1 {tool: "sql", count: 2}``: a pattern by its place in ``calls`` and as written."""
    pattern = spec.calls[index]
    return f"call {index} {_flow(pattern.written or {'tool': pattern.tool})}"


def describe_scope(spec: TrajectorySpec) -> str:
    """``{agent: "billing"}``, or ``the whole trace``."""
    return _flow(spec.scope.written) if spec.scope.written else "the whole trace"


def _why(spec: TrajectorySpec, pattern: CallPattern, call: Call) -> str:
    wrong = differing_keys(spec, pattern, call)
    return f" (differs in {', '.join(wrong)})" if wrong else ""


def _missing(spec: TrajectorySpec, problem: Problem, scoped: list[Call], others: list[Call]) -> str:
    assert problem.pattern is not None
    pattern = spec.calls[problem.pattern]
    line = f"missing: {shown_pattern(spec, problem.pattern)} was not called"
    outside = next((c for c in others if fits(spec, pattern, c)), None)
    if outside is not None:
        return f"{line} in the scope; a call outside it fits: {outside.describe()}"
    close = nearest(pattern, scoped)
    if close is None:
        return f"{line}; the scope holds no call"
    return f"{line}; nearest: {close.describe()}{_why(spec, pattern, close)}"


def _extra(spec: TrajectorySpec, problem: Problem) -> str:
    assert problem.call is not None
    call = problem.call
    if problem.pattern is not None:
        pattern = spec.calls[problem.pattern]
        shown = shown_pattern(spec, problem.pattern)
        head = f"extra: {call.describe()} is one call too many: {shown} fits it"
        if pattern.bounded:
            return f"{head}, but its bound is full"
        return f"{head} (taken by #{problem.after.number})" if problem.after else head
    line = f"extra: {call.describe()} fits no expected call"
    if not spec.calls:
        return line
    best = max(range(len(spec.calls)), key=lambda i: closeness(spec.calls[i], call))
    return f"{line}; nearest: {shown_pattern(spec, best)}{_why(spec, spec.calls[best], call)}"


def _order(spec: TrajectorySpec, problem: Problem) -> str:
    assert problem.pattern is not None
    assert problem.call is not None
    shown = shown_pattern(spec, problem.pattern)
    if problem.after is None:
        where = "first"
    else:
        right = "right " if spec.mode == "exact" else ""
        where = f"{right}after {problem.after.describe()}"
    when = (
        "later" if problem.after is None or problem.call.number > problem.after.number else "before"
    )
    return (
        f"out of order: {shown} was expected {where}, but the call that fits it comes "
        f"{when}: {problem.call.describe()}"
    )


def _count(spec: TrajectorySpec, problem: Problem, scoped: list[Call]) -> str:
    assert problem.pattern is not None
    pattern = spec.calls[problem.pattern]
    numbers = [f"#{c.number}" for c in scoped if fits(spec, pattern, c)]
    which = f" ({', '.join(numbers[:10])}{', …' if len(numbers) > 10 else ''})" if numbers else ""
    return (
        f"count: {shown_pattern(spec, problem.pattern)} fits {problem.count} call(s) of the "
        f"scope{which}, expected {pattern.bound_text()}"
    )


def _line(spec: TrajectorySpec, problem: Problem, scoped: list[Call], others: list[Call]) -> str:
    if problem.kind == "missing":
        return _missing(spec, problem, scoped, others)
    if problem.kind == "extra":
        return _extra(spec, problem)
    if problem.kind == "order":
        return _order(spec, problem)
    return _count(spec, problem, scoped)


def _hint(kind: str, name: object, known: Sequence[str]) -> str | None:
    """``no call ...: 'billnig' (did you mean 'billing'?)`` for a name the trace lacks."""
    if not isinstance(name, str) or name in known:
        return None
    close = difflib.get_close_matches(name, sorted(set(known)), n=1)
    hint = f" (did you mean {json.dumps(close[0])}?)" if close else ""
    return f"note: no call of the trace {kind} {json.dumps(name)}{hint}"


def _hints(spec: TrajectorySpec, every: list[Call]) -> Iterator[str]:
    """Names the expectation gives that no call of the trace has, with the nearest one."""
    agents = [c.agent for c in every]
    tools = [c.tool for c in every]
    handoffs = [t for c in every for t in c.handoffs]
    found = [
        _hint("was made by agent", spec.scope.agent, agents),
        _hint("was made inside a handoff through", spec.scope.handoff, handoffs),
        *(_hint("was made by agent", a, agents) for a in spec.scope.branch or ()),
        *(_hint("is of tool", p.tool, tools) for p in spec.calls),
        *(_hint("was made by agent", p.agent, agents) for p in spec.calls),
    ]
    yield from dict.fromkeys(f for f in found if f is not None)


def render(
    spec: TrajectorySpec, found: list[Problem], scoped: list[Call], others: list[Call]
) -> str:
    """The whole failure: a head line, one line per problem, the calls of the scope."""
    head = (
        f"trajectory does not hold (mode: {spec.mode}, scope: {describe_scope(spec)}, "
        f"args_mode: {spec.args_mode}): {len(found)} problem(s)"
    )
    lines = [head, *(f"  - {_line(spec, p, scoped, others)}" for p in found[:MAX_PROBLEMS])]
    if len(found) > MAX_PROBLEMS:
        lines.append(f"  … and {len(found) - MAX_PROBLEMS} more problem(s)")
    lines += [f"  {hint}" for hint in _hints(spec, [*scoped, *others])]
    outside = f", {len(others)} outside it" if others else ""
    lines.append(f"calls in the scope ({len(scoped)}{outside}):")
    lines += [f"  {c.describe()}" for c in scoped[:MAX_LISTED]]
    if len(scoped) > MAX_LISTED:
        lines.append(f"  … and {len(scoped) - MAX_LISTED} more")
    if not scoped:
        lines.append("  (none)")
    return "\n".join(lines)
