"""Flink style, results and failures: F4 (normalisation, refusals with paths, reasons)."""

from __future__ import annotations

import math
from enum import StrEnum
from typing import Any

import pytest
from pydantic import BaseModel

from handoff_sim import Agent, FailureAction, HandoffPolicy, simulate
from handoff_sim.styles.flink import FlinkSubAgent, decode_output, normalize_result, render_result
from handoff_sim.styles.flink._normalize import ResultNormalizationError
from handoff_sim.testing import FunctionModel, ScriptedModel
from tests.styles._support import call, turn

SCHEMA = {"type": "object", "properties": {"prompt": {"type": "string"}}}


class Verdict(BaseModel):
    approved: bool
    note: str
    score: float = 0.0


def refusal(value: object, result_type: Any = None) -> str:
    with pytest.raises(ResultNormalizationError) as caught:
        normalize_result(value, result_type)
    assert isinstance(caught.value, TypeError | ValueError)
    return str(caught.value)


# F4: normalisation, the ToolResultUtils cases ------------------------------------------------


def test_f4_plain_maps_and_lists_come_out_and_tuples_become_lists() -> None:
    raw = {"outer": {"inner": [1, "two"]}, "items": (3, 4)}
    assert normalize_result(raw) == {"outer": {"inner": [1, "two"]}, "items": [3, 4]}


@pytest.mark.parametrize("value", ["text", 7, 1.5, True, False, None, [1, 2]])
def test_f4_json_scalars_and_lists_pass_unchanged(value: object) -> None:
    assert normalize_result(value) == value


def test_f4_non_json_object_is_refused_with_its_path_and_type() -> None:
    assert refusal({"outer": [object()]}) == (
        "Sub-agent result must be JSON-compatible at result.outer[0], found object"
    )
    assert (
        refusal([object()]) == "Sub-agent result must be JSON-compatible at result[0], found object"
    )
    assert (
        refusal({"tags": {"a"}})
        == "Sub-agent result must be JSON-compatible at result.tags, found set"
    )


def test_f4_non_string_map_keys_are_refused_at_the_map_path() -> None:
    assert refusal({1: "one"}) == "Map keys in sub-agent result must be strings at result"
    assert refusal({"outer": {2: "x"}}) == (
        "Map keys in sub-agent result must be strings at result.outer"
    )


@pytest.mark.parametrize(
    ("value", "path"),
    [
        ({"ratio": math.inf}, "result.ratio"),
        (math.nan, "result"),
        ({"a": [1, 2, {"b": -math.inf}]}, "result.a[2].b"),
        ({"items": [{"score": 1}, {"score": 2}, {"score": math.nan}]}, "result.items[2].score"),
    ],
)
def test_f4_non_finite_numbers_are_refused_with_their_path(value: object, path: str) -> None:
    assert refusal(value) == f"Non-finite number in sub-agent result at {path}"


def test_f4_a_cycle_is_refused_at_the_path_that_closes_it() -> None:
    looped: dict[str, Any] = {}
    looped["self"] = looped
    assert (
        refusal(looped) == "Sub-agent result must be JSON-compatible at result.self, cycle detected"
    )
    items: list[Any] = [1]
    items.append({"back": items})
    assert refusal(items) == (
        "Sub-agent result must be JSON-compatible at result[1].back, cycle detected"
    )


def test_f4_a_shared_container_is_no_cycle() -> None:
    shared = {"x": 1}
    assert normalize_result({"left": shared, "right": shared}) == {
        "left": {"x": 1},
        "right": {"x": 1},
    }


def test_f4_deep_nesting_is_normalised_intact() -> None:
    value: dict[str, Any] = {"leaf": 1}
    for _ in range(200):
        value = {"next": value}
    assert normalize_result(value) == value


def test_f4_nesting_too_deep_for_the_stack_is_a_refusal_not_a_crash() -> None:
    value: list[Any] = []
    for _ in range(100_000):
        value = [value]
    assert refusal(value) == "Sub-agent result is cyclic or too deeply nested to normalize as JSON"


def test_f4_str_and_int_subclasses_become_plain_values() -> None:
    class Colour(StrEnum):
        RED = "red"

    out = normalize_result({"c": Colour.RED})
    assert out == {"c": "red"}
    assert type(out["c"]) is str  # type: ignore[index]


# F4: a declared result type narrows -----------------------------------------------------------


def test_f4_declared_type_reads_a_model_instance_and_fills_defaults() -> None:
    assert normalize_result(Verdict(approved=True, note="clean"), Verdict) == {
        "approved": True,
        "note": "clean",
        "score": 0.0,
    }


def test_f4_declared_type_drops_extra_fields() -> None:
    raw = {"approved": True, "note": "clean", "score": 1.5, "extra": 1}
    assert normalize_result(raw, Verdict) == {"approved": True, "note": "clean", "score": 1.5}


def test_f4_model_instance_without_declared_type_is_refused() -> None:
    assert refusal(Verdict(approved=True, note="clean")) == (
        "Sub-agent result must be JSON-compatible at result, found Verdict"
    )


@pytest.mark.parametrize("declared", [None, object])
def test_f4_declaring_object_is_declaring_nothing(declared: object) -> None:
    raw = {"a": [1, (2, 3)]}
    assert normalize_result(raw, declared) == normalize_result(raw)


def test_f4_declared_type_is_checked_again_after_narrowing() -> None:
    raw = {"approved": True, "note": "x", "score": math.inf}
    assert refusal(raw, Verdict) == "Non-finite number in sub-agent result at result.score"


def test_f4_result_that_does_not_fit_the_declared_type_is_refused_with_its_path() -> None:
    assert refusal({"approved": True}, Verdict) == (
        "Sub-agent result does not fit the declared result type Verdict at result.note: "
        "Field required"
    )


# F4: rendering ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, "null"),
        ("done", "done"),
        (7, "7"),
        (True, "true"),
        ({"a": 1}, '{"a":1}'),
        ([1, 2], "[1,2]"),
        ({"a": 1, "b": [2]}, '{"a":1,"b":[2]}'),
        ({"name": "Zoë"}, '{"name":"Zoë"}'),
    ],
)
def test_f4_rendering_for_the_tool_message(value: Any, text: str) -> None:
    assert render_result(value) == text


def test_f4_default_result_is_the_json_value_of_the_final_text_else_the_text() -> None:
    assert decode_output('{"a": 1}') == {"a": 1}
    assert decode_output("done") == "done"
    assert decode_output(None) is None


# F4 through the runtime ----------------------------------------------------------------------


def run_reviewer(
    *answers: Any,
    policy: HandoffPolicy | None = None,
    parent_steps: int = 1,
    **kwargs: Any,
) -> Any:
    """Parent calls subagent_reviewer once (id call-1) and answers 'recovered'."""
    sub = FlinkSubAgent(
        "reviewer",
        agent=Agent("reviewer", ScriptedModel(list(answers))),
        input_schema=SCHEMA,
        **kwargs,
    )
    steps: list[Any] = [turn(call("subagent_reviewer", {"prompt": "review the diff"}, "call-1"))]
    steps += ["recovered"] * parent_steps
    return simulate(
        Agent("main", ScriptedModel(steps), subagents=[sub], handoff_policy=policy), "go"
    )


def tool_result(result: Any) -> Any:
    (message,) = [m for m in result.messages if m.role == "tool"]
    return message


def test_f4_success_is_rendered_json_and_not_an_error() -> None:
    result = run_reviewer('{"verdict":"approved","findings":["style"]}')
    message = tool_result(result)
    assert message.content == '{"verdict":"approved","findings":["style"]}'
    assert not message.is_error
    assert result.trace.handoffs()[0].status == "completed"


def test_f4_plain_text_answer_is_the_result() -> None:
    assert tool_result(run_reviewer("done")).content == "done"


def test_f4_declared_result_type_narrows_through_the_runtime() -> None:
    result = run_reviewer('{"approved":true,"note":"clean","extra":1}', result_type=Verdict)
    assert tool_result(result).content == '{"approved":true,"note":"clean","score":0.0}'


def test_f4_refused_result_reaches_the_model_as_a_failed_delegation_and_the_run_goes_on() -> None:
    result = run_reviewer('{"ratio": Infinity}')
    message = tool_result(result)
    assert message.content == (
        "Sub-agent subagent_reviewer execute failed: "
        "Non-finite number in sub-agent result at result.ratio"
    )
    assert message.is_error
    assert result.output == "recovered"
    (record,) = result.trace.handoffs()
    assert (record.status, record.reason, record.attempts) == ("failed", "error", 1)
    assert record.error == "Non-finite number in sub-agent result at result.ratio"


def test_f4_result_parser_can_hand_back_any_object_and_refusal_names_its_path() -> None:
    result = run_reviewer("ignored", result_parser=lambda text: {"handle": object()})
    assert tool_result(result).content == (
        "Sub-agent subagent_reviewer execute failed: "
        "Sub-agent result must be JSON-compatible at result.handle, found object"
    )


def test_f4_cyclic_result_is_a_failed_delegation() -> None:
    looped: dict[str, Any] = {}
    looped["self"] = looped
    result = run_reviewer("ignored", result_parser=lambda text: looped)
    assert "cycle detected" in tool_result(result).content
    assert result.output == "recovered"


def test_f4_subagent_failure_reaches_the_model_with_the_reason() -> None:
    result = run_reviewer({"error": "mailbox is full"})
    assert tool_result(result).content == (
        "Sub-agent subagent_reviewer execute failed: mailbox is full"
    )
    assert result.output == "recovered"


def test_f4_timeout_reaches_the_model_as_a_failed_delegation() -> None:
    policy = HandoffPolicy(timeout=1.0)
    result = run_reviewer({"text": "late", "latency": 5}, policy=policy)
    assert tool_result(result).content == (
        "Sub-agent subagent_reviewer execute failed: "
        "handoff timeout for subagent tool subagent_reviewer after 1000 ms"
    )
    assert result.trace.handoffs()[0].reason == "timeout"


def test_f4_refused_result_is_retried_like_any_failed_attempt() -> None:
    result = run_reviewer("NaN", '{"ok": true}', policy=HandoffPolicy(max_retries=1))
    assert tool_result(result).content == '{"ok":true}'
    (record,) = result.trace.handoffs()
    assert record.attempt_outcomes == ("error", "ok")


def test_f4_denial_reported_to_the_model_reads_as_a_failed_delegation() -> None:
    policy = HandoffPolicy(
        denied_tools={"subagent_reviewer"}, on_denied=FailureAction.REPORT_TO_MODEL
    )
    result = run_reviewer(policy=policy)
    assert tool_result(result).content == (
        "Sub-agent subagent_reviewer execute failed: handoff denied: tool is in denied_tools"
    )
    assert result.trace.handoffs()[0].status == "denied"


def test_f4_failure_without_a_reason_ends_with_a_period() -> None:
    def fail(request: object) -> str:
        raise RuntimeError()

    sub = FlinkSubAgent(
        "reviewer", agent=Agent("reviewer", FunctionModel(fail)), input_schema=SCHEMA
    )
    model = ScriptedModel([turn(call("subagent_reviewer", {}, "call-1")), "recovered"])
    result = simulate(Agent("main", model, subagents=[sub]), "go")
    assert tool_result(result).content == "Sub-agent subagent_reviewer execute failed."
