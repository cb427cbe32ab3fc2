"""S6 policy defaults and validation; S7 admission order; S8 denial reasons."""

from __future__ import annotations

from typing import Any

import pytest

from handoff_sim import ConfigurationError, FailureAction, HandoffPolicy, SessionMode
from handoff_sim.errors import PolicyError


def test_s6_policy_defaults() -> None:
    policy = HandoffPolicy()
    assert policy.enabled is True
    assert policy.max_depth == 1
    assert policy.max_retries == 0
    assert policy.timeout is None
    assert policy.allowed_tools is None
    assert policy.denied_tools is None
    assert policy.on_denied is FailureAction.FAIL
    assert policy.on_error is FailureAction.FAIL
    assert policy.input_filter is None


def test_s6_policy_is_frozen() -> None:
    policy = HandoffPolicy()
    with pytest.raises((TypeError, ValueError, AttributeError)):
        policy.max_depth = 5
    assert policy.max_depth == 1


def test_s6_failure_actions_and_session_modes() -> None:
    assert {a.name for a in FailureAction} == {"FAIL", "FALLBACK_TO_PRIMARY", "REPORT_TO_MODEL"}
    assert {m.name for m in SessionMode} == {"NEW_SESSION", "REUSE_SESSION"}


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("max_retries", -1),
        ("timeout", 0),
        ("timeout", -2.5),
        ("max_depth", -1),
        ("max_depth", "deep"),
        ("on_denied", "explode"),
        ("timeout", "soon"),
        ("timeout", True),
        ("max_depth", 1.5),
        ("enabled", "maybe"),
        ("input_filter", 5),
    ],
)
def test_s6_invalid_policy_value_raises_policy_error_naming_field_and_value(
    field: str, value: Any
) -> None:
    with pytest.raises(PolicyError) as info:
        HandoffPolicy(**{field: value})
    assert isinstance(info.value, ConfigurationError)
    message = str(info.value)
    assert f"HandoffPolicy.{field}:" in message
    assert f"(got {value!r})" in message


def test_s6_unknown_policy_field_is_refused() -> None:
    with pytest.raises(PolicyError, match="max_dept"):
        HandoffPolicy(max_dept=2)


def test_s6_a_single_string_is_not_a_tool_list() -> None:
    with pytest.raises(PolicyError, match="allowed_tools"):
        HandoffPolicy(allowed_tools="delegate_writer")


def test_s6_timeout_accepts_duration_strings() -> None:
    assert HandoffPolicy(timeout="250ms").timeout == pytest.approx(0.25)
    assert HandoffPolicy(timeout="2s").timeout == 2.0
    assert HandoffPolicy(timeout="1m").timeout == 60.0


def test_s6_failure_actions_accept_their_string_values() -> None:
    policy = HandoffPolicy(on_denied="report_to_model", on_error="fallback_to_primary")
    assert policy.on_denied is FailureAction.REPORT_TO_MODEL
    assert policy.on_error is FailureAction.FALLBACK_TO_PRIMARY


@pytest.mark.parametrize(("max_retries", "attempts"), [(0, 1), (1, 2), (2, 3), (5, 6)])
def test_s7_attempts_are_max_retries_plus_one(max_retries: int, attempts: int) -> None:
    assert HandoffPolicy(max_retries=max_retries).attempts == attempts


def test_s8_not_in_allowed_tools_reason() -> None:
    policy = HandoffPolicy(allowed_tools={"delegate_other"})
    assert policy.deny_reason("delegate_writer", 1) == (
        "not_allowed",
        "tool is not in allowed_tools",
    )


def test_s8_in_denied_tools_reason() -> None:
    policy = HandoffPolicy(denied_tools={"delegate_writer"})
    assert policy.deny_reason("delegate_writer", 1) == ("denied_tool", "tool is in denied_tools")


def test_s8_max_depth_reason_names_depth_and_limit() -> None:
    policy = HandoffPolicy(max_depth=2)
    assert policy.deny_reason("t", 3) == ("max_depth", "handoff depth 3 exceeds max_depth 2")


def test_s7_allowed_tools_is_checked_before_denied_tools() -> None:
    policy = HandoffPolicy(allowed_tools={"other"}, denied_tools={"t"})
    assert policy.deny_reason("t", 1) == ("not_allowed", "tool is not in allowed_tools")


def test_s7_denied_tools_is_checked_before_max_depth() -> None:
    policy = HandoffPolicy(denied_tools={"t"}, max_depth=1)
    assert policy.deny_reason("t", 5) == ("denied_tool", "tool is in denied_tools")


def test_s7_a_tool_both_allowed_and_denied_is_denied() -> None:
    policy = HandoffPolicy(allowed_tools={"t"}, denied_tools={"t"})
    assert policy.deny_reason("t", 1) == ("denied_tool", "tool is in denied_tools")


def test_s7_empty_allowed_tools_allows_every_tool() -> None:
    assert HandoffPolicy(allowed_tools=set()).deny_reason("anything", 1) is None


def test_s7_admission_compares_tool_names_exactly() -> None:
    policy = HandoffPolicy(allowed_tools={"Delegate_Writer"})
    assert policy.deny_reason("delegate_writer", 1) is not None
    assert policy.deny_reason("Delegate_Writer", 1) is None


@pytest.mark.parametrize(("depth", "denied"), [(1, False), (2, False), (3, True)])
def test_s7_max_depth_denies_only_deeper_handoffs(depth: int, denied: bool) -> None:
    assert (HandoffPolicy(max_depth=2).deny_reason("t", depth) is not None) is denied


def test_s7_max_depth_zero_is_unlimited() -> None:
    assert HandoffPolicy(max_depth=0).deny_reason("t", 1_000) is None


def test_from_block_reads_a_policy_block_as_a_file_writes_it() -> None:
    policy = HandoffPolicy.from_block(
        {
            "max_depth": 2,
            "timeout": "250ms",
            "allowed_tools": ["delegate_a", "delegate_b"],
            "on_denied": "report_to_model",
        }
    )
    assert policy.max_depth == 2
    assert policy.timeout == 0.25
    assert policy.allowed_tools == frozenset({"delegate_a", "delegate_b"})
    assert policy.on_denied is FailureAction.REPORT_TO_MODEL
    assert policy == HandoffPolicy.from_block(policy.model_dump(exclude={"input_filter"}))


@pytest.mark.parametrize(
    ("block", "arguments"),
    [
        ({"arguments": {"task": "filtered"}}, '{"task":"filtered"}'),
        ({"arguments": "raw text"}, "raw text"),
        ({"keep": True}, None),
    ],
)
def test_from_block_turns_a_declarative_input_filter_into_a_callable(
    block: dict[str, Any], arguments: str | None
) -> None:
    from handoff_sim.messages import ToolCall

    policy = HandoffPolicy.from_block({"input_filter": block})
    assert policy.input_filter is not None
    filtered = policy.input_filter(ToolCall("c1", "delegate", '{"task": "original"}'))
    expected = None if arguments is None else ToolCall("c1", "delegate", arguments)
    assert filtered == expected


def test_a_raising_input_filter_block_raises_its_message() -> None:
    from handoff_sim.messages import ToolCall

    policy = HandoffPolicy.from_block({"input_filter": {"raises": "filter refused"}})
    assert policy.input_filter is not None
    with pytest.raises(ValueError, match=r"^filter refused$"):
        policy.input_filter(ToolCall("c1", "delegate", "{}"))


@pytest.mark.parametrize(
    ("block", "message"),
    [
        (
            {"keep": True, "raises": "no"},
            "HandoffPolicy.input_filter: an input_filter needs exactly one of "
            "'arguments', 'keep', 'raises' or 'python' (got {'keep': True, 'raises': 'no'})",
        ),
        ({"kep": True}, "HandoffPolicy.input_filter.kep: Extra inputs are not permitted"),
    ],
)
def test_a_malformed_input_filter_block_is_a_policy_error_naming_the_field(
    block: dict[str, Any], message: str
) -> None:
    with pytest.raises(PolicyError) as caught:
        HandoffPolicy.from_block({"input_filter": block})
    assert str(caught.value).startswith(message)
