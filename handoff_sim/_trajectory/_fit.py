"""Whether one call fits one pattern (tool, agent, arguments by mode) or lies in a scope.

Argument modes read as agentevals reads them: ``exact`` the same keys, each value fitting;
``ignore`` any arguments; ``subset`` the call's arguments are a subset of the expected
ones (no key beyond them); ``superset`` the call has at least the expected keys. Each
expected value may be a matcher; ``args`` that is itself a matcher is matched as it is.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping

from handoff_sim._matchers import is_matcher, value_matches
from handoff_sim._trajectory._calls import Call
from handoff_sim._trajectory._spec import UNSET, ArgsMode, CallPattern, Scope, TrajectorySpec

__all__ = ["args_fit", "closeness", "differing_keys", "fits", "in_scope", "nearest", "text_fits"]


def text_fits(expected: object, actual: str) -> bool:
    """A name compared exactly, or by a matcher; ``None`` fits any name."""
    return expected is None or value_matches(expected, actual, None, "text")


def _values_fit(expected: Mapping[str, object], actual: Mapping[str, object]) -> bool:
    return all(
        k in actual and value_matches(v, actual[k], None, "any") for k, v in expected.items()
    )


def args_fit(expected: object, actual: object, mode: ArgsMode) -> bool:
    """Whether a call's ``actual`` arguments fit ``expected`` under ``mode``."""
    if expected is UNSET or mode == "ignore":
        return True
    if is_matcher(expected):
        return value_matches(expected, actual, None, "any")
    if not isinstance(expected, Mapping) or not isinstance(actual, Mapping):
        return value_matches(expected, actual, None, "any")
    if mode == "exact":
        return expected.keys() == actual.keys() and _values_fit(expected, actual)
    if mode == "subset":
        return set(actual) <= set(expected) and _values_fit(
            {k: expected[k] for k in actual}, actual
        )
    return _values_fit(expected, actual)


def fits(spec: TrajectorySpec, pattern: CallPattern, call: Call) -> bool:
    """Whether ``call`` fits ``pattern`` (its tool, agent and arguments)."""
    return (
        text_fits(pattern.tool, call.tool)
        and text_fits(pattern.agent, call.agent)
        and args_fit(pattern.args, call.arguments, spec.args_mode_of(pattern, call.tool))
    )


def in_scope(scope: Scope, call: Call) -> bool:
    """Whether ``call`` was made where ``scope`` looks: every key given holds."""
    return (
        text_fits(scope.agent, call.agent)
        and (scope.depth is None or call.depth == scope.depth)
        and (scope.branch is None or call.branch == scope.branch)
        and (scope.handoff is None or any(text_fits(scope.handoff, t) for t in call.handoffs))
    )


def closeness(pattern: CallPattern, call: Call) -> float:
    """How much ``call`` is like ``pattern``: tool, agent, then arguments (JSON text ratio)."""
    score = 2.0 if text_fits(pattern.tool, call.tool) else 0.0
    score += 1.0 if text_fits(pattern.agent, call.agent) else 0.0
    if pattern.args is not UNSET:
        written = json.dumps(pattern.args, separators=(",", ":"), default=str)
        score += difflib.SequenceMatcher(None, written[:500], call.raw[:500]).ratio()
    return score


def nearest(pattern: CallPattern, calls: list[Call]) -> Call | None:
    """The call most like ``pattern``: the same tool first, then the closest arguments."""
    if not calls:
        return None
    return max(calls, key=lambda call: (closeness(pattern, call), -call.number))


def differing_keys(spec: TrajectorySpec, pattern: CallPattern, call: Call) -> list[str]:
    """What keeps ``call`` from fitting ``pattern``: ``tool``, ``agent``, argument keys."""
    wrong = [k for k in ("tool", "agent") if not text_fits(getattr(pattern, k), getattr(call, k))]
    mode = spec.args_mode_of(pattern, call.tool)
    expected, actual = pattern.args, call.arguments
    if args_fit(expected, actual, mode):
        return wrong
    if isinstance(expected, Mapping) and isinstance(actual, Mapping) and not is_matcher(expected):
        keys = sorted({*expected, *actual}, key=str)
        for key in keys:
            missing = key not in actual and mode != "subset"
            beyond = key not in expected and mode in ("exact", "subset")
            differs = (
                key in actual
                and key in expected
                and not value_matches(expected[key], actual[key], None, "any")
            )
            if missing or beyond or differs:
                wrong.append(f"args.{key}")
        return wrong
    return [*wrong, "args"]
