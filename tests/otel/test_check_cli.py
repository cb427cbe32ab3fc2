"""``handoff-sim check TRACE.json``: exit 0 if all holds, 1 if not, 2 on a bad file, 5 if empty."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from handoff_sim.cli import main
from tests.otel._support import FIXTURES, NEEDS_OTEL, NESTED_PARALLEL

ADK = FIXTURES / "adk_agent_tool.json"

EXPECT_ADK = """\
# what the recorded ADK run must show
expect:
  output: "summary: report read"
  handoffs:
    - {tool: helper, status: completed, attempts: 1, depth: 1}
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_a_foreign_trace_that_keeps_every_invariant_exits_0_and_lists_unmapped_spans(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["check", str(ADK)]) == 0
    out = capsys.readouterr().out
    assert f"PASS {ADK}::5b8efff798038103d269b633813fc60c (20 events, 1 handoff(s))" in out
    assert "not mapped: resourceSpans[0].scopeSpans[0].spans[0]: span 'invoke_workflow root'" in out
    assert "└─ root → helper via helper [handoff:adk-1] status=completed" in out
    assert out.rstrip().endswith("== 1 passed, 0 failed ==")


def test_an_expect_only_file_that_holds_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expect = write(tmp_path, "expect.yaml", EXPECT_ADK)
    assert main(["check", str(ADK), "--expect", str(expect)]) == 0
    assert f"PASS {ADK}::5b8efff798038103d269b633813fc60c against {expect}::recorded" in (
        capsys.readouterr().out
    )


def test_an_expectation_that_fails_exits_1_with_the_scenario_failure_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expect = write(tmp_path, "expect.yaml", EXPECT_ADK.replace("attempts: 1", "attempts: 3"))
    assert main(["check", str(ADK), "--expect", str(expect)]) == 1
    out = capsys.readouterr().out
    assert f"scenario recorded failed (1 mismatch(es)) — {expect}:1" in out
    assert f"{expect}:5: expect.handoffs.0: handoff 0 (helper) differs in attempts" in out
    assert (
        '    expected: {"tool": "helper", "status": "completed", "attempts": 3, "depth": 1}' in out
    )
    assert "actual handoffs:" in out
    assert "actual events:" in out
    assert out.rstrip().endswith("== 0 passed, 1 failed ==")


def test_a_trace_that_breaks_an_invariant_exits_1_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data: dict[str, Any] = json.loads(ADK.read_text(encoding="utf-8"))
    spans = data["resourceSpans"][0]["scopeSpans"][0]["spans"]
    tool = next(s for s in spans if s["name"] == "execute_tool lookup")
    for attribute in tool["attributes"]:
        if attribute["key"] == "gen_ai.tool.call.id":
            attribute["value"] = {"stringValue": "not-what-the-model-asked"}
    path = write(tmp_path, "trace.json", json.dumps(data))
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out
    assert (
        "[call_order] tool call not-what-the-model-asked:lookup started in run-1, expected "
        "adk-2:lookup in call order" in out
    )
    assert "actual" not in out  # no scenario here: the violations, the tree and the events
    assert "tool_start            root: lookup [not-what-the-model-asked]" in out


def test_an_ill_formed_file_exits_2_with_the_field_and_no_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data: dict[str, Any] = json.loads(ADK.read_text(encoding="utf-8"))
    data["resourceSpans"][0]["scopeSpans"][0]["spans"][3]["startTimeUnixNano"] = "soon"
    path = write(tmp_path, "trace.json", json.dumps(data))
    assert main(["check", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.err == (
        f"handoff-sim check: {path}: resourceSpans[0].scopeSpans[0].spans[3].startTimeUnixNano: "
        "not an integer from 0 to 2^64-1\n"
    )
    assert captured.out == ""


def test_a_file_that_is_not_json_or_missing_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "trace.json", "{oops")
    assert main(["check", str(path)]) == 2
    assert main(["check", str(tmp_path / "missing.json")]) == 2
    err = capsys.readouterr().err
    assert f"{path}: not valid JSON" in err
    assert "missing.json: cannot read" in err
    assert "Traceback" not in err


def test_a_bad_expect_file_exits_2_with_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expect = write(tmp_path, "expect.yaml", "expect:\n  handoffs: [{tool: helper, stauts: x}]\n")
    assert main(["check", str(ADK), "--expect", str(expect)]) == 2
    err = capsys.readouterr().err
    assert f"{expect}:2:" in err
    assert "stauts" in err


def test_a_file_without_spans_exits_5(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "trace.json", '{"resourceSpans": []}')
    assert main(["check", str(path)]) == 5
    assert "holds no span, nothing to check" in capsys.readouterr().err


def test_trace_id_picks_one_trace_of_several(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data: dict[str, Any] = json.loads(ADK.read_text(encoding="utf-8"))
    copied = json.loads(json.dumps(data["resourceSpans"][0]))
    for span in copied["scopeSpans"][0]["spans"]:
        span["traceId"] = "2" * 32
    data["resourceSpans"].append(copied)
    path = write(tmp_path, "two.json", json.dumps(data))
    assert main(["check", "-q", str(path)]) == 0
    assert "== 2 passed, 0 failed ==" in capsys.readouterr().out
    assert main(["check", str(path), "--trace-id", "2" * 32]) == 0
    out = capsys.readouterr().out
    assert f"PASS {path}::{'2' * 32}" in out
    assert "== 1 passed, 0 failed ==" in out
    assert main(["check", str(path), "--trace-id", "nope"]) == 2
    assert f"{path}: no trace 'nope'" in capsys.readouterr().err


def test_check_help_names_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--expect PATH" in out
    assert "1 when a trace breaks an invariant or its expect block" in out


class TestOurOwnExport:
    """Traces written by ``handoff-sim run --otel`` checked against their scenario files."""

    @pytest.fixture(autouse=True)
    def _sdk(self) -> None:
        pytest.importorskip("opentelemetry.sdk", reason=NEEDS_OTEL)

    def scenario_file(self, tmp_path: Path) -> Path:
        import yaml

        path = tmp_path / "nested.yaml"
        path.write_text(yaml.safe_dump(NESTED_PARALLEL, sort_keys=False), encoding="utf-8")
        return path

    def test_run_otel_then_check_against_the_same_file_exits_0(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        scenario = self.scenario_file(tmp_path)
        out_file = tmp_path / "suite.json"
        assert main(["run", "-q", "--otel", str(out_file), str(scenario)]) == 0
        assert f"1 trace(s) written to {out_file}" in capsys.readouterr().err
        assert main(["check", str(out_file), "--expect", str(scenario)]) == 0
        assert f"PASS {out_file}::{scenario}::nested-parallel against" in capsys.readouterr().out

    def test_a_changed_expectation_fails_with_its_line(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        scenario = self.scenario_file(tmp_path)
        out_file = tmp_path / "suite.json"
        assert main(["run", "-q", "--otel", str(out_file), str(scenario)]) == 0
        text = scenario.read_text(encoding="utf-8").replace("output: all-done", "output: nope")
        scenario.write_text(text, encoding="utf-8")
        capsys.readouterr()
        assert main(["check", str(out_file), "--expect", str(scenario)]) == 1
        out = capsys.readouterr().out
        line = text.splitlines().index("  output: nope") + 1
        assert f"{scenario}:{line}: expect.output: output differs" in out

    def test_a_bundled_suite_round_trips_through_run_and_check(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        bundled = Path(__file__).resolve().parents[2] / "scenarios" / "ai4j"
        out_file = tmp_path / "suite.json"
        assert main(["run", "-q", "--otel", str(out_file), str(bundled)]) == 0
        code = main(["check", "-q", str(out_file), "--expect", str(bundled)])
        captured = capsys.readouterr()
        failed = [line for line in captured.out.splitlines() if line.startswith("FAIL")]
        # expect.sessions and expect.tool_runs cannot be read from a trace: those fail, as for
        # any runtime that cannot report them; every other expectation holds
        reasons = {
            line.split(": ", 2)[1]
            for line in captured.out.splitlines()
            if ": expect." in line or ".expect." in line
        }
        assert code == (1 if failed else 0)
        assert all("sessions" in r or "tool_runs" in r for r in reasons), reasons

    def test_an_unwritable_otel_file_exits_2(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        scenario = self.scenario_file(tmp_path)
        target = tmp_path  # a directory
        assert main(["run", "-q", "--otel", str(target), str(scenario)]) == 2
        assert f"handoff-sim run --otel: cannot write {target}" in capsys.readouterr().err
