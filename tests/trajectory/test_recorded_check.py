"""Trajectories held to a recorded trace: ``handoff-sim check TRACE --expect FILE`` reads
the OTLP export back and scopes its calls by the delegation tree it holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from handoff_sim.cli import main
from tests._helpers import NEEDS_OTEL
from tests.trajectory._fan_out import recorded

pytestmark = NEEDS_OTEL  # the recorded trace is our own OTLP export

HOLDS = """\
expect:
  trajectory:
    - scope: {handoff: delegate_billing, agent: billing}
      mode: superset
      calls: [{tool: sql, count: 2}]
    - {scope: {depth: 2}, calls: [{tool: search, args: {q: build steps}}]}
    - {scope: {branch: [manager, research]}, calls: [search, delegate_worker]}
"""


@pytest.fixture
def exported(tmp_path: Path) -> Path:
    from handoff_sim.otel import write_otlp_json

    path = tmp_path / "fan_out.json"
    write_otlp_json({"fan-out": recorded()}, path)
    return path


def test_trajectories_hold_on_the_recorded_otlp_export(
    exported: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expect = tmp_path / "expect.yaml"
    expect.write_text(HOLDS, encoding="utf-8")
    assert main(["check", str(exported), "--expect", str(expect)]) == 0, capsys.readouterr()


def test_a_trajectory_the_recorded_trace_breaks_fails_the_check_naming_the_call(
    exported: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expect = tmp_path / "expect.yaml"
    expect.write_text(
        "expect:\n  trajectory: {scope: {agent: billing}, mode: unordered, calls: [sql, lookup]}\n",
        encoding="utf-8",
    )
    assert main(["check", str(exported), "--expect", str(expect)]) == 1
    out = capsys.readouterr().out
    assert (
        f"{expect}:2: expect.trajectory: trajectory does not hold (mode: unordered, "
        'scope: {agent: "billing"}, args_mode: exact): 1 problem(s)'
    ) in out
    assert (
        '- extra: #7 sql {"query":"select invoices","limit":10} by billing (depth 1) is one '
        'call too many: call 0 {tool: "sql"} fits it (taken by #2)'
    ) in out
