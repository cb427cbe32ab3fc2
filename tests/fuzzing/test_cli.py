"""``handoff-sim fuzz`` (handoff_sim.cli._fuzz:main): summary, exit status, reproducers."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest
import yaml

from handoff_sim.cli._fuzz import main
from handoff_sim.fuzzing import FuzzFailure


@pytest.fixture(autouse=True)
def _elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run where no ./scenarios folder is bundled."""
    monkeypatch.chdir(tmp_path)


def test_fault_injection_is_caught_within_the_default_budget_and_reproduced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Dropping one handoff_end: exit 1, a balance violation, and a reproducer that fails."""
    monkeypatch.setattr("handoff_sim.fuzzing._seeded.SHRINK_SECONDS", 1.0)
    out = tmp_path / "repro"
    status = main(["--seed", "3", "--out", str(out), "--inject-fault", "drop-handoff-end"])
    printed = capsys.readouterr()
    assert status == 1
    assert "1 failure(s)" in printed.out
    assert "[balance]" in printed.out
    assert "handoff_start without handoff_end" in printed.out
    (python_file,) = out.glob("*.py")
    (yaml_file,) = out.glob("*.yaml")
    assert f"reproduce: python {python_file}" in printed.out
    assert yaml.safe_load(yaml_file.read_text(encoding="utf-8"))["agents"]
    with pytest.raises(FuzzFailure, match=r"\[balance\]"):
        runpy.run_path(str(python_file), run_name="__main__")


def test_a_clean_run_exits_0_with_a_summary_and_progress(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["--examples", "50", "--seed", "5", "--out", str(tmp_path / "out")])
    printed = capsys.readouterr()
    assert status == 0, printed.out
    runs = int(printed.out.split(" runs,")[0].rsplit(" ", 1)[1])
    assert runs >= 50
    assert f"{runs} runs, {runs * 9} invariant checks (9 per run)" in printed.out
    assert "0 failure(s)" in printed.out
    assert "fuzz: 50 runs, 0 failures" in printed.err
    assert not (tmp_path / "out").exists()


def test_seconds_budget_stops_the_search(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--seconds", "0.3", "--seed", "1", "-q"]) == 0
    printed = capsys.readouterr()
    assert "runs" in printed.out
    assert printed.err == ""


def test_bundled_scenarios_are_run_and_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "scenarios"
    folder.mkdir()
    (folder / "one.yaml").write_text(
        "scenario: one\n"
        "agents:\n"
        "  manager:\n"
        "    model:\n"
        "      script: [{tool_calls: [{name: subagent_helper, arguments: {task: x}}]}, done]\n"
        "    subagents: [helper]\n"
        "  helper:\n"
        "    model: {script: [ok]}\n"
        "run: [go]\n",
        encoding="utf-8",
    )
    assert main(["--scenarios", str(folder), "--examples", "1", "-q"]) == 0
    assert "handoff-sim fuzz: 2 runs" in capsys.readouterr().out


@pytest.mark.parametrize("args", [["--examples", "0"], ["--seconds", "-1"], ["--bogus"]])
def test_bad_arguments_exit_2(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(args) == 2
    assert capsys.readouterr().err
