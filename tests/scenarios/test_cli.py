"""The ``handoff-sim`` command: run, validate, schema, render, fuzz; exit codes 0/1/2."""

from __future__ import annotations

import json
import subprocess
import sys
import types
from pathlib import Path

import pytest

import handoff_sim.cli as cli
from handoff_sim.cli import main

from ._util import BUNDLED, write

PASSING = """
    scenario: passing
    agents:
      manager:
        model:
          script:
            - tool_calls: [{id: c1, name: delegate_w, arguments: {task: t}}]
            - text: done
        subagents: [{agent: w, tool_name: delegate_w}]
      w: {model: {script: [{text: ok, latency: 250ms}]}}
    run: [go]
    expect: {output: done}
"""
FAILING = PASSING.replace("scenario: passing", "scenario: failing").replace(
    "expect: {output: done}", "expect: {output: other}"
)


def test_run_prints_tree_events_and_summary_and_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, PASSING)
    assert main(["run", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"PASS {path}::passing (250ms virtual)" in out
    assert "└─ manager → w via delegate_w [handoff:c1] status=completed" in out
    assert "handoff_end" in out
    assert "run_end" in out
    assert out.rstrip().endswith("== 1 passed, 0 failed, 0 error(s) ==")


def test_run_exits_1_on_failure_and_shows_the_failure_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, PASSING, "a.yaml")
    failing = write(tmp_path, FAILING, "b.yaml")
    assert main(["run", "-q", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"FAIL {failing}::failing" in out
    assert f"{failing}:11: expect.output: output differs" in out
    assert "== 1 passed, 1 failed, 0 error(s) ==" in out


def test_run_reports_a_malformed_file_and_still_runs_the_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Y4: a bad file does not stop the other files from running."""
    bad = write(tmp_path, "scenario: bad\nagents: {}\nrun: [go]\n", "a_bad.yaml")
    write(tmp_path, PASSING, "b_good.yaml")
    assert main(["run", "-q", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert captured.err.strip() == f"{bad}:2:1: agents: must not be empty"
    assert "== 1 passed, 0 failed, 1 error(s) ==" in captured.out


def test_run_filters_by_keyword(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, PASSING, "a.yaml")
    write(tmp_path, FAILING, "b.yaml")
    assert main(["run", "-q", "-k", "pass", str(tmp_path)]) == 0
    assert "== 1 passed, 0 failed, 0 error(s) ==" in capsys.readouterr().out


def test_run_the_bundled_suite_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "-q", str(BUNDLED)]) == 0
    assert " 0 failed, 0 error(s) ==" in capsys.readouterr().out


def test_validate_checks_without_running(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, PASSING)
    assert main(["validate", str(path)]) == 0
    assert capsys.readouterr().out == f"ok {path}: 1 scenario(s)\n"
    assert main(["validate", str(tmp_path / "missing.yaml")]) == 2
    assert "missing.yaml: no such file or directory" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("fmt", "needle"),
    [
        ("text", "handoff_start         manager: delegate_w → w [handoff:c1]"),
        ("tree", "└─ manager → w via delegate_w [handoff:c1]"),
        ("mermaid", "sequenceDiagram"),
        ("jsonl", '"type":"handoff_end"'),
    ],
)
def test_render_outputs_the_trace_in_each_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str, needle: str
) -> None:
    assert main(["render", str(write(tmp_path, PASSING)), "--format", fmt]) == 0
    out = capsys.readouterr().out
    assert needle in out
    if fmt == "jsonl":
        assert all(json.loads(line)["seq"] for line in out.splitlines())


def test_render_needs_a_choice_when_a_file_holds_several(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = BUNDLED / "ai4j" / "doc_examples.yaml"
    assert main(["render", str(path)]) == 2
    assert "several scenarios match; choose one with --scenario" in capsys.readouterr().err
    assert (
        main(["render", str(path), "-s", "doc-max-depth-blocks-recursion", "--format", "tree"]) == 0
    )
    assert "delegate_leaf" in capsys.readouterr().out


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert main(["render", "x.yaml", "--format", "svg"]) == 2
    assert main(["schema", "--bogus"]) == 2
    assert "unrecognized arguments: --bogus" in capsys.readouterr().err


def test_fuzz_delegates_to_the_fuzzing_module(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[list[str]] = []
    fake = types.ModuleType("handoff_sim.fuzzing.cli")
    fake.main = lambda argv: seen.append(argv) or 0  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "handoff_sim.fuzzing.cli", fake)
    assert main(["fuzz", "--runs", "5", "--seed", "1"]) == 0
    assert seen == [["--runs", "5", "--seed", "1"]]


def test_fuzz_without_the_fuzzing_module_says_so_and_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def missing(name: str) -> types.ModuleType:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)

    monkeypatch.setattr(cli.importlib, "import_module", missing)
    assert main(["fuzz"]) == 2
    assert "fuzzing is not available" in capsys.readouterr().err


def test_console_script_runs_in_a_subprocess(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("handoff-sim")
    if not script.exists():
        pytest.skip("the handoff-sim console script is not installed in this environment")
    path = write(tmp_path, FAILING)
    done = subprocess.run(
        [str(script), "run", "-q", str(path)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1
    assert "FAIL" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr
    module = subprocess.run(
        [sys.executable, "-m", "handoff_sim", "validate", str(path)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert module.returncode == 0
