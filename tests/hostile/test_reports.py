"""Hostile failure reports: values and paths built to break the one-line short summary,
the relative paths of the report, and the run command's output."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from handoff_sim.cli import main

FAILING = """\
scenario: wrong
agents:
  bot:
    model: {script: [OUTPUT]}
run: [go]
expect:
  output: EXPECTED
"""


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A test project on CI (pytest prints whole messages there); not an xdist worker."""
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CI", "1")
    return pytester


def _write(folder: Path, output: str, expected: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "wrong.yaml"
    text = FAILING.replace("OUTPUT", output).replace("EXPECTED", expected)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def _summary_line(result: pytest.RunResult) -> list[str]:
    start = next(i for i, line in enumerate(result.outlines) if line.startswith("FAILED "))
    return result.outlines[start : start + 2]


def test_multi_line_values_stay_out_of_the_one_line_summary(project: pytest.Pytester) -> None:
    _write(project.path / "scenarios", '"line one\\nline two"', '"other\\nlines"')
    result = project.runpytest_inprocess("--handoff-scenarios", "scenarios", "-rf")
    line, after = _summary_line(result)
    assert line == (
        "FAILED scenarios/wrong.yaml::wrong - expect.output: output differs "
        "(expected 'other\\nlines', actual 'line one\\nline two')"
    )
    assert after.startswith("=")


def test_a_huge_value_is_left_out_of_the_summary_but_kept_in_the_report(
    project: pytest.Pytester,
) -> None:
    huge = "x" * 20_000
    _write(project.path / "scenarios", huge, "small")
    result = project.runpytest_inprocess("--handoff-scenarios", "scenarios", "-rf")
    line, _ = _summary_line(result)
    assert line == "FAILED scenarios/wrong.yaml::wrong - expect.output: output differs"
    assert f"    actual:   '{huge}'" in result.outlines


def test_a_folder_name_full_of_regex_characters_is_still_made_relative(
    project: pytest.Pytester,
) -> None:
    folder = project.path / "a+b (c)$^.*?" / "scenarios"  # pytest reads [...] as an id
    _write(folder, "done", "finished")
    result = project.runpytest_inprocess("--handoff-scenarios", str(folder), "--tb=line")
    result.stdout.fnmatch_lines(
        [
            "a+b (c)$^.[*][?]/scenarios/wrong.yaml:7: expect.output: output differs "
            "(expected 'finished', actual 'done')"
        ]
    )
    shown = [line for line in result.outlines if not line.startswith("rootdir: ")]
    assert not [line for line in shown if str(project.path) in line]


def test_the_absolute_path_inside_a_value_is_left_as_it_is(project: pytest.Pytester) -> None:
    """Only locations are rewritten: an output that names the file keeps its text."""
    folder = project.path / "scenarios"
    absolute = f"{folder}/wrong.yaml"
    _write(folder, f'"{absolute}: not a location"', "finished")
    result = project.runpytest_inprocess("--handoff-scenarios", "scenarios")
    assert f"    actual:   '{absolute}: not a location'" in result.outlines


def test_run_keeps_one_line_per_scenario_whatever_the_output_holds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The one-line list holds one line per scenario whatever the outputs hold."""
    _write(tmp_path, '"a\\nFAIL forged::line (0ms virtual, 0 handoffs)"', "b")
    assert main(["run", str(tmp_path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"FAIL {tmp_path / 'wrong.yaml'}::wrong (0ms virtual, 0 handoffs)"
    assert lines[1] == ""
    assert lines[2] == "== failures =="
