"""What each gate measures, on runs built for it: nearest-rank percentiles, latency per tool
and per sub-agent, attempts, handoffs per top-level run, and the error-rate denominators."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from handoff_sim import check_gates
from handoff_sim._gates import percentile
from tests.gates import _support


@pytest.mark.parametrize(
    ("values", "p", "expected"),
    [
        ([1.0, 2.0, 3.0, 4.0], 50, 2.0),
        ([float(n) for n in range(1, 11)], 50, 5.0),
        ([float(n) for n in range(1, 11)], 95, 10.0),
        ([float(n) for n in range(1, 101)], 95, 95.0),
        ([float(n) for n in range(1, 101)], 99, 99.0),
        ([7.0], 50, 7.0),
        ([1.0, 9.0], 100, 9.0),
    ],
)
def test_percentiles_are_nearest_rank_so_each_is_a_latency_that_happened(
    values: list[float], p: float, expected: float
) -> None:
    assert percentile(values, p) == expected


def test_latency_per_tool_and_per_sub_agent_take_only_their_handoffs() -> None:
    trace = _support.run_trace(_support.FAN_OUT)  # billing 1.1 s, research 200 ms, worker 200 ms
    report = check_gates(
        trace,
        handoff_latency={
            "p50": "500ms",
            "per_tool": {"delegate_billing": {"max": "1s"}, "delegate_nothing": {"max": "1s"}},
            "per_agent": {"worker": {"max": "250ms"}},
        },
    )
    shown = {r.gate: (r.passed, r.observed) for r in report.results}
    assert shown == {
        "handoff_latency.p50": (True, "200ms over 3 handoff(s)"),
        "handoff_latency.per_tool.delegate_billing.max": (False, "1.1s over 1 handoff(s)"),
        "handoff_latency.per_tool.delegate_nothing.max": (True, "no handoff ran"),
        "handoff_latency.per_agent.worker.max": (True, "200ms over 1 handoff(s)"),
        "max_loops": (True, "0 loop(s)"),
    }


ERRORS: dict[str, Any] = {
    "scenario": "errors",
    "tools": {"lookup": {"raises": "db down"}, "echo": {"returns": "hi"}},
    "agents": {
        "manager": {
            "parallel_tool_calls": True,
            "tools": ["lookup", "echo"],
            "policy": {
                "timeout": "1s",
                "max_retries": 1,
                "denied_tools": ["delegate_secret"],
                "on_denied": "report_to_model",
            },
            "model": {
                "script": [
                    {
                        "tool_calls": [
                            {"id": "f", "name": "delegate_flaky", "arguments": {"task": "x"}},
                            {"id": "o", "name": "delegate_ok", "arguments": {"task": "x"}},
                            {"id": "s", "name": "delegate_secret", "arguments": {"task": "x"}},
                            {"id": "l", "name": "lookup", "arguments": {}},
                            {"id": "e", "name": "echo", "arguments": {}},
                        ]
                    },
                    {"text": "done"},
                ]
            },
            "subagents": [
                {"agent": "flaky", "tool_name": "delegate_flaky"},
                {"agent": "ok", "tool_name": "delegate_ok"},
                {"agent": "secret", "tool_name": "delegate_secret"},
            ],
        },
        "flaky": {
            "model": {
                "script": [{"text": "late", "latency": "5s"}, {"text": "late", "latency": "5s"}]
            }
        },
        "ok": {"model": {"script": [{"text": "fine"}]}},
        "secret": {"model": {"script": [{"text": "never"}]}},
    },
    "run": ["go"],
}


def test_error_rates_count_failed_handoffs_over_those_not_denied_and_plain_tool_errors() -> None:
    trace = _support.run_trace(ERRORS)
    statuses = sorted(h.status for h in trace.handoffs())
    assert statuses == ["completed", "denied", "failed"]
    report = check_gates(trace, max_handoff_error_rate="50%", max_tool_error_rate=0.4)
    shown = {r.gate: (r.passed, r.observed) for r in report.results}
    assert shown["max_handoff_error_rate"] == (True, "50.00% (1 of 2 handoffs)")
    assert shown["max_tool_error_rate"] == (False, "50.00% (1 of 2 tool calls)")
    [failure] = report.failures
    assert failure.offenders == ("manager: lookup [l] at 0s",)


def test_attempts_are_counted_per_handoff() -> None:
    report = check_gates(_support.run_trace(ERRORS), max_attempts=1)
    [failure] = report.failures
    assert failure.observed == "2 attempt(s)"
    assert failure.offenders == ("manager → flaky via delegate_flaky [handoff:f]: 2",)


def test_handoffs_are_counted_per_top_level_run_with_its_whole_tree() -> None:
    data = copy.deepcopy(_support.FAN_OUT)
    script = data["agents"]["manager"]["model"]["script"]
    again = {"tool_calls": [{"id": "b2", "name": "delegate_billing", "arguments": {"task": "x"}}]}
    data["agents"]["manager"]["model"]["script"] = [*script, again, {"text": "second"}]
    billing = data["agents"]["billing"]["model"]["script"]
    data["agents"]["billing"]["model"]["script"] = billing * 2
    data["run"] = ["go", "again"]
    trace = _support.run_trace(data)
    report = check_gates(trace, max_handoffs=2)
    [failure] = report.failures
    assert failure.observed == "3 handoff(s) in a run"
    [offender] = failure.offenders
    assert offender.endswith(": 3")
    assert check_gates(trace, max_handoffs=3).passed


def test_no_handoff_at_all_passes_every_gate_and_says_so() -> None:
    data = {
        "scenario": "alone",
        "agents": {"a": {"model": {"script": [{"text": "hi"}]}}},
        "run": ["go"],
    }
    report = check_gates(
        _support.run_trace(data),
        p95="1s",
        max_handoff_error_rate=0,
        max_tool_error_rate=0,
        max_depth=0,
    )
    assert report.passed
    assert {r.observed for r in report.results} >= {"no handoff ran", "0.00% (0 of 0 handoffs)"}


def test_a_handoff_that_never_ended_is_said_not_measured_rather_than_dropped() -> None:
    from handoff_sim import Trace

    trace = _support.run_trace(_support.FAN_OUT)
    cut = Trace([e for e in trace if not (e.type == "handoff_end" and e.handoff_id == "handoff:w")])  # type: ignore[attr-defined]
    [result] = [r for r in check_gates(cut, p95="1s").results if r.gate.endswith("p95")]
    assert result.observed == "1.1s over 2 handoff(s), 1 never ended (not measured)"
