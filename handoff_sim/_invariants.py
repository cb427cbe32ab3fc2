"""Invariants every run must keep, checked over its trace: balance, bounds, timeouts, call order.

Downstream projects call these on their own runs::

    result = simulate(agent, "go")
    assert_invariants(result.trace, agent=agent)

:func:`check_invariants` returns a list of :class:`Violation` (empty when the
run is sound); :func:`assert_invariants` raises :class:`InvariantViolationError`
with one readable line per violation. Checks that need the configuration
(depth bound, attempt bound, timeouts, tool scope, step bound) run when the
root ``agent`` (or a single ``policy``) is given; the rest need the trace only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from handoff_sim._invariant_pass import Checker, Invariant, Violation
from handoff_sim._safe import describe_error, json_lines
from handoff_sim.errors import CheckFailedError, HandoffSimError
from handoff_sim.events import (
    Event,
)
from handoff_sim.messages import Message
from handoff_sim.testing import SimulatedModelError
from handoff_sim.trace import Trace

if TYPE_CHECKING:
    from handoff_sim._agent import Agent
    from handoff_sim.subagents._policy import HandoffPolicy

__all__ = [
    "EXPECTED_RUN_ERRORS",
    "Invariant",
    "InvariantViolationError",
    "Violation",
    "assert_invariants",
    "check_determinism",
    "check_invariants",
    "check_messages",
]

# Its public home: reprs, pickles and docs name the package, not a private module.
Violation.__module__ = "handoff_sim"

EXPECTED_RUN_ERRORS: tuple[type[BaseException], ...] = (HandoffSimError, SimulatedModelError)
"""Errors a run may end with: the runtime's typed errors and a fake model's failure."""


class InvariantViolationError(CheckFailedError, AssertionError):
    """Raised by :func:`assert_invariants`; ``violations`` lists what broke."""

    def __init__(self, violations: Sequence[Violation], detail: str = "") -> None:
        self.violations = tuple(violations)
        lines = [f"{len(self.violations)} invariant violation(s):"]
        lines.extend(f"  - {v}" for v in self.violations)
        if detail:
            lines.append(detail.rstrip("\n"))
        super().__init__("\n".join(lines))


def check_invariants(
    trace: Trace | Sequence[Event],
    *,
    agent: Agent | None = None,
    policy: HandoffPolicy | None = None,
    error: BaseException | None = None,
    messages: Sequence[Message] | None = None,
    expected_errors: tuple[type[BaseException], ...] = EXPECTED_RUN_ERRORS,
) -> list[Violation]:
    """Every invariant violation in ``trace``; an empty list when the run is sound.

    Args:
        trace: the events of one or more runs (a ``Trace`` or any event sequence).
        agent: the top-level agent; its tree gives each run's policy, tools and max_steps.
        policy: without ``agent``, one policy that governs every handoff in the trace.
        error: what the run raised, if anything; it must be one of ``expected_errors``.
        messages: the top-level run's messages; tool results must follow in call order.
        expected_errors: the exception types a run may legitimately end with.
    """
    if isinstance(trace, Trace):
        violations = Checker(agent, policy).check(trace.events, trace.spans())
    else:
        violations = Checker(agent, policy).check(trace)
    if error is not None and not isinstance(error, expected_errors):
        violations.append(
            Violation(
                Invariant.TERMINATION.value,
                f"the run crashed with an untyped error {describe_error(error)}",
            )
        )
    if messages is not None:
        violations.extend(check_messages(messages))
    return violations


def check_messages(messages: Sequence[Message]) -> list[Violation]:
    """Tool results follow each assistant turn in the model's call order."""
    violations: list[Violation] = []
    for index, message in enumerate(messages):
        if message.role != "assistant" or not message.tool_calls:
            continue
        following = messages[index + 1 : index + 1 + len(message.tool_calls)]
        if not following:
            continue  # the run stopped inside this turn
        expected = [c.id for c in message.tool_calls]
        got = [m.tool_call_id for m in following if m.role == "tool"]
        if got != expected[: len(got)] or len(got) != len(following):
            violations.append(
                Violation(
                    Invariant.CALL_ORDER.value,
                    f"tool results {got} after message {index} are not in call order {expected}",
                )
            )
    return violations


def check_determinism(run: Callable[[], Trace], *, times: int = 2) -> list[Violation]:
    """Run ``run`` (a fresh, seeded run each call) ``times`` times; the traces must be equal."""
    first = [line for _, line in json_lines(run().to_jsonl())]  # U+2028 splits none
    for _ in range(times - 1):
        again = [line for _, line in json_lines(run().to_jsonl())]
        if again == first:
            continue
        for line_no, (a, b) in enumerate(zip(first, again, strict=False), 1):
            if a != b:
                return [
                    Violation(
                        Invariant.DETERMINISM.value,
                        f"the same seed gave a different trace at event {line_no}: {a} != {b}",
                        line_no,
                    )
                ]
        return [
            Violation(
                Invariant.DETERMINISM.value,
                f"the same seed gave {len(first)} then {len(again)} events",
            )
        ]
    return []


def assert_invariants(
    trace: Trace | Sequence[Event],
    *,
    agent: Agent | None = None,
    policy: HandoffPolicy | None = None,
    error: BaseException | None = None,
    messages: Sequence[Message] | None = None,
    expected_errors: tuple[type[BaseException], ...] = EXPECTED_RUN_ERRORS,
) -> None:
    """Raise :class:`InvariantViolationError` listing every violation in ``trace``."""
    violations = check_invariants(
        trace,
        agent=agent,
        policy=policy,
        error=error,
        messages=messages,
        expected_errors=expected_errors,
    )
    if violations:
        events = trace if isinstance(trace, Trace) else Trace(trace)
        raise InvariantViolationError(violations, "handoff tree:\n" + events.render_tree())
