"""The error tree: grouped by who must act, with messages that name what went wrong."""

from __future__ import annotations

import pytest

from handoff_sim import (
    ConfigurationError,
    DuplicateToolNameError,
    HandoffDeniedError,
    HandoffSimError,
    HandoffTimeoutError,
    InvalidNameError,
    MaxStepsExceededError,
    PolicyError,
    ReservedPrefixError,
    RunError,
    ScriptAssertionError,
    ScriptError,
    ScriptExhaustedError,
    UnconsumedStepsError,
    UnknownToolError,
    VirtualDeadlineError,
    VirtualDeadlockError,
    VirtualTimeError,
)


@pytest.mark.parametrize(
    ("error", "bases"),
    [
        (ConfigurationError, (HandoffSimError, ValueError)),
        (InvalidNameError, (ConfigurationError,)),
        (DuplicateToolNameError, (ConfigurationError,)),
        (ReservedPrefixError, (ConfigurationError,)),
        (PolicyError, (ConfigurationError,)),
        (RunError, (HandoffSimError,)),
        (HandoffDeniedError, (RunError,)),
        (MaxStepsExceededError, (RunError,)),
        (VirtualTimeError, (RunError,)),
        (VirtualDeadlockError, (VirtualTimeError,)),
        (VirtualDeadlineError, (VirtualTimeError,)),
        (ScriptError, (HandoffSimError,)),
        (ScriptExhaustedError, (ScriptError,)),
        (ScriptAssertionError, (ScriptError, AssertionError)),
        (UnconsumedStepsError, (ScriptError, AssertionError)),
        (HandoffTimeoutError, (TimeoutError,)),
        (UnknownToolError, (LookupError,)),
    ],
)
def test_errors_are_grouped_by_who_must_act(
    error: type[BaseException], bases: tuple[type[BaseException], ...]
) -> None:
    for base in bases:
        assert issubclass(error, base), base


def test_s2_duplicate_tool_name_error_message_and_name() -> None:
    error = DuplicateToolNameError("subagent_x")
    assert (str(error), error.name) == ("duplicate subagent tool name: subagent_x", "subagent_x")


def test_s8_handoff_denied_error_message_and_fields() -> None:
    error = HandoffDeniedError("delegate_w", "tool is in denied_tools", depth=1)
    assert str(error) == "handoff denied for subagent tool delegate_w: tool is in denied_tools"
    assert (error.tool, error.reason, error.depth) == ("delegate_w", "tool is in denied_tools", 1)


@pytest.mark.parametrize(("seconds", "ms"), [(5.0, "5000"), (0.01, "10"), (0.0105, "10.5")])
def test_s8_handoff_timeout_error_message_in_milliseconds(seconds: float, ms: str) -> None:
    error = HandoffTimeoutError("delegate_w", seconds)
    assert str(error) == f"handoff timeout for subagent tool delegate_w after {ms} ms"


def test_unknown_tool_error_has_a_default_message() -> None:
    assert str(UnknownToolError("ghost")) == "unknown tool: ghost"
