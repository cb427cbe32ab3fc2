"""``handoff-sim check`` with gates, through the real command in-process: the table, the
exit codes (0 every gate holds, 1 one fails, 2 bad input), and JUnit XML that validates
against the schema pytest's own ``--junitxml`` output follows."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from handoff_sim.cli import main
from tests._helpers import NEEDS_OTEL
from tests.gates import _support

pytestmark = NEEDS_OTEL


def validate(path: Path) -> None:
    _support.junit_schema().validate(str(path))


@pytest.fixture
def clean(tmp_path: Path) -> Path:
    return _support.exported(_support.FAN_OUT, tmp_path, "clean")


@pytest.fixture
def slow(tmp_path: Path) -> Path:
    return _support.exported(_support.planted_slow(), tmp_path, "slow")


def test_a_trace_within_every_gate_exits_0_and_prints_the_table(
    clean: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["check", str(clean), "--gate", "p95=30s", "--gate", "max_depth=3"])
    out = capsys.readouterr().out
    assert code == 0
    assert f"PASS gates {clean}::clean: 0 of 3 gate(s) failed" in out
    assert "  handoff_latency.p95  30s    1.1s over 3 handoff(s)  PASS" in out
    assert "  max_loops            0      0 loop(s)               PASS" in out
    assert "== gates: 1 passed, 0 failed ==" in out


def test_a_failed_gate_exits_1_naming_the_slow_handoffs(
    slow: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["check", str(slow), "-q", "--gate", "max_latency=30s"])
    out = capsys.readouterr().out
    assert code == 1
    assert "  handoff_latency.max  30s    40s over 3 handoff(s)  FAIL" in out
    assert "      research → worker via delegate_worker [handoff:w] took 40s" in out
    assert "== gates: 0 passed, 1 failed ==" in out


def test_a_gate_file_and_options_over_it(
    tmp_path: Path, slow: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gates = tmp_path / "gates.yaml"
    gates.write_text("handoff_latency: {max: 30s}\nmax_depth: 1\n", encoding="utf-8")
    assert main(["check", str(slow), "--gates", str(gates), "--gate", "max_latency=1m"]) == 1
    out = capsys.readouterr().out
    assert "handoff_latency.max  60s" in out
    assert "max_depth" in out
    assert (
        main(
            [
                "check",
                str(slow),
                "--gates",
                str(gates),
                "--gate",
                "max_latency=1m",
                "--gate",
                "max_depth=2",
            ]
        )
        == 0
    )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            ["--gate", "max_dpeth=3"],
            "--gate max_dpeth=3: max_dpeth: unknown gate 'max_dpeth'; did you mean 'max_depth'?",
        ),
        (["--gate", "p95=fast"], "--gate p95=fast: handoff_latency.p95: invalid duration 'fast'"),
        (["--gate", "p95"], "--gate p95: <option>: expected KEY=VALUE, like p95=30s"),
        (["--gates", "nowhere.yaml"], "nowhere.yaml:1:1: <file>: "),
    ],
)
def test_a_bad_gate_exits_2_naming_it_before_the_trace_is_read(
    clean: Path, options: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", str(clean), *options]) == 2
    captured = capsys.readouterr()
    assert message in captured.err
    assert captured.out == ""


def test_a_gate_file_problem_is_at_its_line_and_column(
    tmp_path: Path, clean: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gates = tmp_path / "gates.yaml"
    gates.write_text("max_depth: 3\nhandoff_latency:\n  p95: later\n", encoding="utf-8")
    assert main(["check", str(clean), "--gates", str(gates)]) == 2
    assert f"{gates}:3:3: handoff_latency.p95: invalid duration 'later'" in capsys.readouterr().err


def test_junit_xml_has_one_testcase_per_gate_and_validates(
    tmp_path: Path, slow: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "reports" / "gates.xml"
    code = main(
        [
            "check",
            str(slow),
            "--gate",
            "p95=30s",
            "--gate",
            "max_depth=3",
            "--junitxml",
            str(report),
        ]
    )
    assert code == 1
    validate(report)
    suite = ET.parse(report).getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("3", "1", "0")
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert sorted(cases) == ["handoff_latency.p95", "max_depth", "max_loops"]
    assert {case.get("classname") for case in cases.values()} == {f"{slow}::slow"}
    failure = cases["handoff_latency.p95"].find("failure")
    assert failure is not None
    assert failure.get("message") == "handoff_latency.p95: 40s over 3 handoff(s), limit 30s"
    assert "research → worker via delegate_worker [handoff:w] took 40s" in (failure.text or "")
    assert cases["max_depth"].find("failure") is None
    assert all(float(case.get("time") or "x") >= 0 for case in cases.values())


@pytest.mark.parametrize("which", ["trace", "gates"])
def test_junitxml_never_overwrites_an_input(
    tmp_path: Path, clean: Path, which: str, capsys: pytest.CaptureFixture[str]
) -> None:
    gates = tmp_path / "gates.yaml"
    gates.write_text("max_depth: 3\n", encoding="utf-8")
    target = clean if which == "trace" else gates
    before = target.read_bytes()
    code = main(["check", str(clean), "--gates", str(gates), "--junitxml", str(target)])
    assert code == 2
    err = capsys.readouterr().err
    assert f"--junitxml {target} is " in err
    assert "refusing to overwrite an input" in err
    assert target.read_bytes() == before


def test_a_junit_file_that_cannot_be_written_exits_2(
    tmp_path: Path, clean: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    code = main(
        ["check", str(clean), "--gate", "max_depth=3", "--junitxml", str(blocker / "x.xml")]
    )
    assert code == 2
    assert "cannot write --junitxml" in capsys.readouterr().err


def test_an_invariant_failure_still_fails_the_check_when_every_gate_holds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Gates come on top of the invariant checks; they never hide one."""
    import json

    path = _support.exported(_support.FAN_OUT, tmp_path, "cut")
    data = json.loads(path.read_text(encoding="utf-8"))
    spans = data["resourceSpans"][0]["scopeSpans"][0]["spans"]
    model_calls = [s for s in spans if s["name"] == "chat"]
    spans.remove(model_calls[0])  # the manager's first model call: its tool calls lose their cause
    path.write_text(json.dumps(data), encoding="utf-8")
    assert main(["check", str(path), "--gate", "max_depth=3"]) == 1
    out = capsys.readouterr().out
    assert "PASS gates" in out
    assert "invariant violation" in out


def test_the_schema_is_the_one_pytests_own_junitxml_follows(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_ok():\n    pass\n\ndef test_bad():\n    assert 0\n")
    pytester.runpytest("--junitxml=out.xml", "-p", "no:cacheprovider")
    validate(pytester.path / "out.xml")
