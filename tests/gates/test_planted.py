"""A planted loop, a planted 40 s handoff and a forbidden tool each fail the right gate
and only it, on our own OTLP export and on OpenInference spans a real instrumentation
wrote for openai-agents agents driven by our fakes; the clean run passes every gate."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from handoff_sim import GateFailedError, Gates, Trace, check_gates, check_invariants
from handoff_sim.cli import main
from tests._helpers import NEEDS_OTEL, needs_extra
from tests.gates import _support

NEEDS_OPENINFERENCE = needs_extra("test", "openinference.instrumentation.openai_agents")
NEEDS_AGENTS = needs_extra("openai-agents", "agents")

GATES = Gates.model_validate(
    {
        "handoff_latency": {"p95": "30s", "max": "39s"},
        "max_attempts": 1,
        "max_handoffs": 5,
        "max_depth": 3,
        "max_loops": 0,
        "forbidden_tools": {"billing": ["delete_account"]},
        "max_handoff_error_rate": 0,
        "max_tool_error_rate": 0,
    }
)

PLANTS: dict[str, set[str]] = {
    "clean": set(),
    "loop": {"max_loops"},
    "slow": {"handoff_latency.p95", "handoff_latency.max"},
    "forbidden": {"forbidden_tools.billing"},
}


def _ours(plant: str, folder: Path) -> Path:
    runs: dict[str, Callable[[], Any]] = {
        "clean": lambda: _support.FAN_OUT,
        "loop": _support.planted_loop,
        "slow": _support.planted_slow,
        "forbidden": _support.planted_forbidden,
    }
    return _support.exported(runs[plant](), folder, plant)


def _openinference(plant: str, folder: Path) -> Path:
    from tests.gates._openinference import fan_out, record

    options = {
        "clean": {},
        "loop": {"loop": True},
        "slow": {"worker_latency": 40},
        "forbidden": {"forbidden": True},
    }[plant]
    return record(fan_out(**options), folder / f"{plant}.json")


SOURCES = [
    pytest.param(_ours, id="ours", marks=NEEDS_OTEL),
    pytest.param(
        _openinference, id="openinference", marks=[NEEDS_OTEL, NEEDS_AGENTS, NEEDS_OPENINFERENCE]
    ),
]


@pytest.mark.parametrize("plant", sorted(PLANTS))
@pytest.mark.parametrize("source", SOURCES)
def test_each_planted_fault_fails_exactly_its_gate(
    source: Callable[[str, Path], Path], plant: str, tmp_path: Path
) -> None:
    trace = Trace.from_otlp(source(plant, tmp_path))
    assert check_invariants(trace) == []  # a sound trace: only the gates speak
    report = check_gates(trace, GATES)
    assert {r.gate for r in report.failures} == PLANTS[plant]
    assert len(report.results) == 9  # every gate was checked, passing or not


@pytest.mark.parametrize("plant", sorted(PLANTS))
@pytest.mark.parametrize("source", SOURCES)
def test_the_command_exits_1_exactly_when_a_fault_was_planted(
    source: Callable[[str, Path], Path],
    plant: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    gates = tmp_path / "gates.yaml"
    gates.write_text(yaml.safe_dump(GATES.model_dump(exclude_unset=True)), encoding="utf-8")
    code = main(["check", str(source(plant, tmp_path)), "-q", "--gates", str(gates)])
    out = capsys.readouterr().out
    assert code == (1 if PLANTS[plant] else 0)
    failing = {line.split()[0] for line in out.splitlines() if line.endswith("  FAIL")}
    assert failing == PLANTS[plant]


@NEEDS_OTEL
@NEEDS_AGENTS
@NEEDS_OPENINFERENCE
def test_openinference_spans_read_as_the_delegation_tree_with_model_calls(tmp_path: Path) -> None:
    from tests.gates._openinference import fan_out, record

    trace = Trace.from_otlp(record(fan_out(), tmp_path / "clean.json"))
    shape = sorted((h.agent, h.subagent, h.tool, h.depth) for h in trace.handoffs())
    assert shape == [
        ("manager", "billing", "bill", 1),
        ("manager", "research", "research", 1),
        ("research", "worker", "build", 2),
    ]
    runs = [e for e in trace if e.type == "run_start"]
    assert (runs[0].agent, runs[0].depth) == ("manager", 0)  # the workflow span is read through
    assert len(trace.of_type("model_request")) == 7  # an LLM span per model call
    answers = [e.text for e in trace.of_type("model_response") if e.text]  # type: ignore[attr-defined]
    assert sorted(answers) == ["all-done", "billed", "built", "researched"]
    assert {u.reason for u in trace.unmapped} <= {
        "an OpenInference AGENT span naming no agent around agent spans (a workflow)",
        "OpenInference span kind CHAIN is not an agent run, model call or tool call",
    }


@NEEDS_OTEL
def test_the_loop_failure_names_the_branch_and_the_handoff_that_closed_it(tmp_path: Path) -> None:
    trace = Trace.from_otlp(_ours("loop", tmp_path))
    [loop] = check_gates(trace, GATES).failures
    assert loop.offenders == ("manager → research → worker → research via delegate_research at 0s",)


@NEEDS_OTEL
def test_the_slow_failure_names_each_handoff_over_the_limit(tmp_path: Path) -> None:
    trace = Trace.from_otlp(_ours("slow", tmp_path))
    with pytest.raises(GateFailedError) as caught:
        check_gates(trace, GATES).raise_on_failure()
    text = str(caught.value)
    assert text.splitlines()[0] == "slow: 2 of 9 gate(s) failed"
    assert "  - handoff_latency.p95: 40s over 3 handoff(s), limit 30s" in text
    assert "      research → worker via delegate_worker [handoff:w] took 40s" in text
    assert "      manager → research via delegate_research [handoff:r] took 40s" in text
    assert "delegate_billing" not in text  # 1.1 s: within every limit


@NEEDS_OTEL
def test_a_denied_forbidden_call_still_fails_its_gate(tmp_path: Path) -> None:
    """The agent asked for the tool; the policy stopping it does not make the agent right."""
    data = _support.planted_forbidden()
    data["agents"]["billing"]["policy"] = {"denied_tools": ["delete_account"]}
    trace = _support.run_trace(data)
    [failure] = check_gates(trace, forbidden="billing:delete_account").failures
    assert failure.gate == "forbidden_tools.billing"
