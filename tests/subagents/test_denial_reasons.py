"""A denial raised under FAIL: the trace's reason code, its text, and which default tripped."""

from __future__ import annotations

import textwrap

import pytest

from handoff_sim import Agent, FailureAction, HandoffDeniedError, HandoffPolicy, SubAgent, simulate
from handoff_sim.events import HandoffEndEvent
from tests._helpers import delegate, leaf, parent_of, run_raising, turn

MAX_DEPTH_NOTE = (
    "max_depth 1 is HandoffPolicy's default (it was not set): "
    "HandoffPolicy(max_depth=2) allows this depth, max_depth=0 removes the limit"
)
ON_DENIED_NOTE = (
    "on_denied=FAIL is HandoffPolicy's default (it was not set): "
    "on_denied=FailureAction.REPORT_TO_MODEL gives the model the denial as a failed tool "
    "result and the run goes on; FALLBACK_TO_PRIMARY sends the call to the primary tool executor"
)


def _two_levels(policy: HandoffPolicy) -> Agent:
    """top -> middle -> leaf, every level under ``policy``: the leaf is at depth 2."""
    middle = parent_of(
        [SubAgent("leaf", agent=leaf("leaf"))],
        turn(delegate("subagent_leaf")),
        name="middle",
        policy=policy,
    )
    return parent_of(
        [SubAgent("middle", agent=middle)], turn(delegate("subagent_middle")), policy=policy
    )


@pytest.mark.parametrize(
    ("policy", "code", "detail"),
    [
        (HandoffPolicy(allowed_tools={"other"}), "not_allowed", "tool is not in allowed_tools"),
        (HandoffPolicy(denied_tools={"subagent_middle"}), "denied_tool", "tool is in denied_tools"),
        (HandoffPolicy(), "max_depth", "handoff depth 2 exceeds max_depth 1"),
    ],
)
def test_s8_the_denial_error_s_reason_is_the_code_the_trace_records(
    policy: HandoffPolicy, code: str, detail: str
) -> None:
    error, trace = run_raising(_two_levels(policy), HandoffDeniedError)
    [denied] = [e for e in trace if isinstance(e, HandoffEndEvent) and e.status == "denied"]
    assert (error.reason, error.detail) == (denied.reason, denied.error) == (code, detail)
    assert str(error) == f"handoff denied for subagent tool {error.tool}: {detail}"


def test_s6_a_timeout_only_policy_says_the_default_max_depth_and_on_denied_tripped() -> None:
    error, _ = run_raising(
        _two_levels(HandoffPolicy(timeout=30, max_retries=1)), HandoffDeniedError
    )
    assert (
        str(error)
        == "handoff denied for subagent tool subagent_leaf: handoff depth 2 exceeds max_depth 1"
    )
    assert error.from_defaults == ("max_depth", "on_denied")
    assert error.__notes__ == [MAX_DEPTH_NOTE, ON_DENIED_NOTE]


def test_the_notes_name_the_defaults_handoff_policy_really_has() -> None:
    policy = HandoffPolicy()
    assert (policy.max_depth, policy.on_denied) == (1, FailureAction.FAIL)


def test_an_explicit_max_depth_gets_no_note_for_it() -> None:
    error, _ = run_raising(_two_levels(HandoffPolicy(max_depth=1)), HandoffDeniedError)
    assert error.from_defaults == ("on_denied",)
    assert error.__notes__ == [ON_DENIED_NOTE]


def test_an_explicit_fail_action_and_depth_get_no_note() -> None:
    policy = HandoffPolicy(max_depth=1, on_denied=FailureAction.FAIL)
    error, _ = run_raising(_two_levels(policy), HandoffDeniedError)
    assert error.from_defaults == ()
    assert getattr(error, "__notes__", []) == []


def test_a_list_denial_notes_only_the_default_action() -> None:
    error, _ = run_raising(
        _two_levels(HandoffPolicy(denied_tools={"subagent_middle"})), HandoffDeniedError
    )
    assert error.from_defaults == ("on_denied",)


def test_the_change_the_max_depth_note_suggests_lets_the_run_through() -> None:
    assert simulate(_two_levels(HandoffPolicy(max_depth=2)), "go").output == "done"


@pytest.mark.slow
def test_pytest_shows_which_default_tripped(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        textwrap.dedent(
            """
            from tests.subagents.test_denial_reasons import _two_levels
            from handoff_sim import HandoffPolicy, simulate

            def test_graph():
                simulate(_two_levels(HandoffPolicy(timeout=30)), "go")
            """
        )
    )
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "E * handoff denied for subagent tool subagent_leaf: handoff depth 2 exceeds *",
            "E * max_depth 1 is HandoffPolicy's default (it was not set): *",
            "E * on_denied=FAIL is HandoffPolicy's default (it was not set): *",
        ]
    )
