"""``pytest_handoff.assert_gates`` in a user's test, through pytester: a simulated run held
to production thresholds passes, or fails with each failed gate and what broke it."""

from __future__ import annotations

import textwrap

import pytest

import handoff_sim._gates  # noqa: F401  (imported once: pytester drops modules a run imports)
import pytest_handoff._gates  # noqa: F401

TEST = """
import pytest
from handoff_sim import GateSpecError, Agent, HandoffPolicy, SubAgent, simulate
from handoff_sim.testing import ScriptedModel
from pytest_handoff import assert_gates

def run():
    worker = Agent(name="worker", model=ScriptedModel([{"text": "built", "latency": "40s"}]))
    billing = Agent(
        name="billing",
        model=ScriptedModel([
            {"tool_calls": [{"id": "d", "name": "delegate_worker", "arguments": {"task": "t"}}]},
            {"text": "billed"},
        ]),
        subagents=[SubAgent("worker", agent=worker, tool_name="delegate_worker")],
        handoff_policy=HandoffPolicy(max_depth=3),
    )
    manager = Agent(
        name="manager",
        model=ScriptedModel([
            {"tool_calls": [{"id": "b", "name": "delegate_billing", "arguments": {"task": "t"}}]},
            {"text": "done"},
        ]),
        subagents=[SubAgent("billing", agent=billing, tool_name="delegate_billing")],
        handoff_policy=HandoffPolicy(max_depth=3),
    )
    return simulate(manager, "go")

def test_within_the_gates():
    report = assert_gates(run(), max_depth=2, p95="1m")
    assert report.passed and len(report.results) == 3

def test_over_the_gates():
    assert_gates(run(), "gates.yaml", max_depth=1)

def test_a_gate_file_alone():
    assert_gates(run().trace, "gates.yaml")

def test_a_typo_is_a_spec_error():
    with pytest.raises(GateSpecError, match="did you mean 'max_depth'"):
        assert_gates(run(), max_dept=1)
"""


def test_assert_gates_passes_a_run_within_and_lists_each_failed_gate(
    pytester: pytest.Pytester,
) -> None:
    pytester.makefile(
        ".yaml",
        gates="handoff_latency: {p95: 30s}\nforbidden_tools: {billing: [delegate_worker]}\n",
    )
    pytester.makepyfile(test_gates=textwrap.dedent(TEST))
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=2)
    lines = [line.removeprefix("E").strip() for line in result.stdout.lines]
    block = [
        "handoff_sim._gates._errors.GateFailedError: trace: 3 of 4 gate(s) failed",
        "- handoff_latency.p95: 40s over 2 handoff(s), limit 30s",
        "billing → worker via delegate_worker [handoff:d] took 40s",
        "manager → billing via delegate_billing [handoff:b] took 40s",
        "- max_depth: 2 deep, limit 1",
        "billing → worker via delegate_worker [handoff:d]: 2",
        "- forbidden_tools.billing: 1 forbidden call(s), limit 0 (delegate_worker)",
        "billing: delegate_worker [d] at 0s (ok)",
    ]
    first = lines.index(block[0])
    assert lines[first : first + len(block)] == block
    assert "handoff_sim._gates._errors.GateFailedError: trace: 2 of 3 gate(s) failed" in lines
