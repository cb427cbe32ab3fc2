"""SoPhi style: the confirmation gate's batches and decisions are events of the trace."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from handoff_sim import HandoffPolicy, Trace, check_invariants, simulate
from handoff_sim.events import (
    ConfirmationDecisionEvent,
    ConfirmationRequestEvent,
    Event,
    ToolEndEvent,
    ToolStartEvent,
)
from handoff_sim.messages import ToolCall
from handoff_sim.report._spans import collect_spans
from handoff_sim.report._timeline import handoff_outcome
from handoff_sim.styles.sophi import (
    ALLOW_ALL,
    DENY_ALL,
    ConfirmationGate,
    ConfirmationRequest,
    RiskLevel,
    ToolRegistry,
    sophi_agent,
)
from handoff_sim.styles.sophi._confirmation import ConfirmationPolicy
from handoff_sim.testing import ScriptedModel
from tests._helpers import import_extra
from tests.styles._support import Counter, call, counting_tool, definition, delegation, turn


def registry(counter: Counter) -> ToolRegistry:
    return ToolRegistry(
        [
            counting_tool("read_file", counter, RiskLevel.SAFE),
            counting_tool("bash", counter, RiskLevel.CAUTION),
            counting_tool("danger", counter, RiskLevel.DESTRUCTIVE),
        ]
    )


def run_main(
    steps: list[Any],
    policy: ConfirmationPolicy,
    *,
    sub_steps: list[Any] | None = None,
    handoff_policy: HandoffPolicy | None = None,
) -> tuple[Trace, Counter]:
    counter = Counter()
    agent = sophi_agent(
        "main",
        ScriptedModel(steps),
        definitions=[definition("operator", "read_file", "bash", "danger")],
        registry=registry(counter),
        models={"operator": ScriptedModel(sub_steps or ["done"])},
        confirmation_policy=policy,
        handoff_policy=handoff_policy,
    )
    return simulate(agent, "go").trace, counter


def confirmations(trace: Trace) -> list[Event]:
    return trace.of_type("confirmation_request", "confirmation_decision")


def test_k4_a_refused_destructive_delegation_is_one_request_and_one_refused_decision() -> None:
    trace, _ = run_main(
        [turn(delegation("operator", expected_tools=["danger"], id="d1")), "ok"], DENY_ALL
    )
    request, decision = confirmations(trace)
    assert isinstance(request, ConfirmationRequestEvent)
    assert (request.batch_id, request.call_ids, request.tools, request.risks) == (
        "confirmation:d1",
        ("d1",),
        ("delegate_to_subagent",),
        ("destructive",),
    )
    assert isinstance(decision, ConfirmationDecisionEvent)
    assert (decision.call_id, decision.risk, decision.decision, decision.error) == (
        "d1",
        "destructive",
        "refused",
        None,
    )
    assert (request.agent, request.depth, decision.run_id) == ("main", 0, request.run_id)
    (end,) = trace.of_type("handoff_end")
    assert request.seq < decision.seq < end.seq
    assert check_invariants(trace) == []


def test_k4_one_batch_per_turn_holds_only_the_calls_that_need_approval() -> None:
    def approve_bash(requests: Sequence[ConfirmationRequest]) -> dict[str, bool]:
        return {r.call_id: r.tool_name == "bash" for r in requests}

    steps = [turn(call("read_file", {}, "c1"), call("danger", {}, "c2"), call("bash", {}, "c3"))]
    trace, counter = run_main([*steps, "done"], approve_bash)
    (request,) = trace.of_type(ConfirmationRequestEvent)
    decisions = trace.of_type(ConfirmationDecisionEvent)
    assert request.call_ids == ("c2", "c3")
    assert [(d.call_id, d.decision) for d in decisions] == [("c2", "refused"), ("c3", "approved")]
    assert request.seq < decisions[0].seq
    assert (counter["danger"], counter["bash"], counter["read_file"]) == (0, 1, 1)
    assert check_invariants(trace) == []


def test_k4_safe_and_granted_calls_ask_nothing_and_emit_nothing() -> None:
    trace, _ = run_main([turn(call("read_file", {}, "c1")), "done"], DENY_ALL)
    assert confirmations(trace) == []


def test_k4_an_async_answer_is_recorded_when_it_arrives_in_virtual_time() -> None:
    async def slow(requests: Sequence[ConfirmationRequest]) -> dict[str, bool]:
        await asyncio.sleep(5)
        return {r.call_id: True for r in requests}

    trace, counter = run_main([turn(call("danger", {}, "c1")), "done"], slow)
    (request,) = trace.of_type(ConfirmationRequestEvent)
    (decision,) = trace.of_type(ConfirmationDecisionEvent)
    assert (request.t, decision.t) == (0.0, 5.0)
    assert decision.decision == "approved"
    assert counter["danger"] == 1


def test_k4_a_policy_that_raises_gives_error_decisions_naming_the_error() -> None:
    def broken(requests: Sequence[ConfirmationRequest]) -> dict[str, bool]:
        raise RuntimeError("policy service down")

    trace, counter = run_main([turn(call("danger", {}, "c1"), call("bash", {}, "c2")), "x"], broken)
    decisions = trace.of_type(ConfirmationDecisionEvent)
    assert [(d.call_id, d.decision, d.error) for d in decisions] == [
        ("c1", "error", "RuntimeError: policy service down"),
        ("c2", "error", "RuntimeError: policy service down"),
    ]
    assert counter["danger"] == counter["bash"] == 0
    assert check_invariants(trace) == []


def test_k4_a_policy_answering_something_else_than_a_mapping_is_an_error_decision() -> None:
    def wrong(requests: Sequence[ConfirmationRequest]) -> Any:
        return ["yes"]

    trace, counter = run_main([turn(call("danger", {}, "c1")), "x"], wrong)
    (decision,) = trace.of_type(ConfirmationDecisionEvent)
    assert decision.decision == "error"
    assert decision.error is not None
    assert "mapping of call id to bool" in decision.error
    assert counter["danger"] == 0


def test_k4_a_question_the_run_stops_waiting_for_is_a_cancelled_decision() -> None:
    async def never(requests: Sequence[ConfirmationRequest]) -> dict[str, bool]:
        await asyncio.sleep(10**6)
        return {}

    trace, counter = run_main(
        [turn(delegation("operator", id="d1")), "ok"],
        never,
        sub_steps=[turn(call("danger", {}, "x1")), "done"],
        handoff_policy=HandoffPolicy(max_depth=0, timeout=10),
    )
    (decision,) = trace.of_type(ConfirmationDecisionEvent)
    assert (decision.agent, decision.call_id, decision.decision, decision.t) == (
        "operator",
        "x1",
        "cancelled",
        10.0,
    )
    (attempt_end,) = trace.of_type("handoff_attempt_end")
    assert decision.seq < attempt_end.seq
    assert counter["danger"] == 0
    assert check_invariants(trace) == []


def test_k4_the_gate_outside_a_run_records_nothing_and_still_answers() -> None:
    gate = ConfirmationGate(ALLOW_ALL, lambda call: RiskLevel.DESTRUCTIVE)

    async def ask() -> bool:
        return await gate.allows(ToolCall("c1", "danger", "{}"))

    assert asyncio.run(ask()) is True


def test_e5_confirmation_events_survive_json_lines_and_otlp() -> None:
    import_extra("otel", "opentelemetry.sdk")
    from handoff_sim.otel import encode_traces  # the module refuses to import without it

    trace, _ = run_main([turn(call("danger", {}, "c1"), call("bash", {}, "c2")), "done"], DENY_ALL)
    assert len(confirmations(trace)) == 3
    assert list(Trace.from_jsonl(trace.to_jsonl())) == list(trace)
    assert list(Trace.from_otlp(encode_traces([trace]))) == list(trace)


def test_e5_the_rendered_trace_shows_each_tier_and_decision() -> None:
    trace, _ = run_main([turn(call("danger", {}, "c1"), call("bash", {}, "c2")), "ok"], DENY_ALL)
    lines = [line for line in trace.render().splitlines() if "confirmation_" in line]
    assert lines[0].split("main: ", 1)[1] == (
        "[confirmation:c1] danger [c1] destructive, bash [c2] caution"
    )
    assert lines[1].split("main: ", 1)[1] == ("danger [c1] destructive refused [confirmation:c1]")


def test_the_report_and_mermaid_say_a_delegation_was_refused_and_at_which_tier() -> None:
    trace, _ = run_main(
        [turn(delegation("operator", expected_tools=["danger"], id="d1")), "ok"], DENY_ALL
    )
    (span,) = collect_spans(trace.events).runs[0].children
    assert "destructive call refused" in handoff_outcome(span)
    assert "Note over A1: confirmation refused: delegate_to_subagent (destructive)" in (
        trace.to_mermaid()
    )


def test_invariants_catch_a_refused_call_that_ran_and_a_request_never_decided() -> None:
    stamp: dict[str, Any] = {"t": 0.0, "agent": "main", "depth": 0, "run_id": "run-1"}
    asked = ConfirmationRequestEvent(
        seq=1,
        batch_id="b",
        call_ids=("c1", "c2"),
        tools=("danger", "bash"),
        risks=("destructive", "caution"),
        **stamp,
    )
    refused = ConfirmationDecisionEvent(
        seq=2,
        batch_id="b",
        call_id="c1",
        tool="danger",
        risk="destructive",
        decision="refused",
        **stamp,
    )
    events: list[Event] = [
        asked,
        refused,
        ToolStartEvent(seq=3, call_id="c1", tool="danger", arguments="{}", **stamp),
        ToolEndEvent(seq=4, call_id="c1", tool="danger", status="ok", output="x", **stamp),
    ]
    found = {(v.invariant, v.message) for v in check_invariants(events)}
    ran = "tool call c1 (danger) ran although its confirmation was refused"
    assert ("denied_not_executed", ran) in found
    assert ("balance", "b: no confirmation_decision for c2") in found
