"""Issue 19, item 15: an output path never overwrites an input.

``handoff-sim run x.yaml --html x.yaml`` (or ``--otel x.yaml``) replaced the scenario file
with the report, exit 0. An output that is an input (also through a symbolic or a hard
link), a ``.yaml``/``.yml`` inside a scenario directory, or both outputs on one path are a
usage error naming the option and the path, before anything runs, on the command line and
in the pytest plugin; a missing folder of either output is created, for both alike.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from handoff_sim.cli import main
from tests._helpers import NEEDS_OTEL

SCENARIO = """\
scenario: s
agents:
  main: {model: {script: [done]}}
run: [go]
expect: {output: done}
"""
OPTIONS = ["--html", "--otel"]


@pytest.fixture
def scenario(tmp_path: Path) -> Path:
    path = tmp_path / "scenarios" / "x.yaml"
    path.parent.mkdir()
    path.write_text(SCENARIO, encoding="utf-8")
    return path


def _refused(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The command's stderr, once it exited 2 having run nothing."""
    assert main(args) == 2
    captured = capsys.readouterr()
    assert "PASS" not in captured.out
    return captured.err


@pytest.mark.parametrize("option", OPTIONS)
def test_an_output_on_the_scenario_file_is_refused_and_the_file_kept(
    scenario: Path, option: str, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _refused(["run", str(scenario), option, str(scenario)], capsys)
    assert f"handoff-sim run: {option} {scenario}: is the scenario file {scenario}" in err
    assert scenario.read_text(encoding="utf-8") == SCENARIO


@pytest.mark.parametrize("option", OPTIONS)
@pytest.mark.parametrize("link", ["symbolic", "hard"])
def test_an_output_that_is_a_link_to_the_scenario_file_is_refused(
    scenario: Path, option: str, link: str, capsys: pytest.CaptureFixture[str]
) -> None:
    other = scenario.parent.parent / "report.out"
    (os.symlink if link == "symbolic" else os.link)(scenario, other)
    err = _refused(["run", str(scenario.parent), option, str(other)], capsys)
    assert f"{option} {other}: is the scenario file " in err
    assert scenario.read_text(encoding="utf-8") == SCENARIO


@pytest.mark.parametrize("name", ["new.yaml", "deeper/new.yml"])
def test_an_output_written_as_a_yaml_file_into_the_scenario_tree_is_refused(
    scenario: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    target = scenario.parent / name
    err = _refused(["run", str(scenario.parent), "--otel", str(target)], capsys)
    assert f"--otel {target}: is a {target.suffix} file in the scenario directory" in err
    assert not target.exists()


def test_html_and_otel_on_one_path_are_refused(
    scenario: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = scenario.parent.parent / "out.json"
    err = _refused(["run", str(scenario), "--html", str(target), "--otel", str(target)], capsys)
    assert f"--otel {target}: is also --html {target}" in err
    assert not target.exists()


@pytest.mark.parametrize("option", ["--html", pytest.param("--otel", marks=NEEDS_OTEL)])
def test_an_output_beside_the_inputs_is_written_into_a_folder_created_for_it(
    scenario: Path, option: str
) -> None:
    target = scenario.parent / "reports" / "today" / "out.html"  # in the tree, not a .yaml
    assert main(["run", "-q", str(scenario.parent), option, str(target)]) == 0
    assert target.is_file()


# -- the pytest plugin ---------------------------------------------------------------


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
        monkeypatch.delenv(name, raising=False)
    folder = pytester.path / "scenarios"
    folder.mkdir()
    (folder / "x.yaml").write_text(SCENARIO, encoding="utf-8")
    return folder


@pytest.mark.parametrize("option", ["--handoff-report", "--handoff-otel"])
def test_pytest_refuses_an_output_on_a_scenario_file_as_a_usage_error(
    pytester: pytest.Pytester, project: Path, option: str
) -> None:
    result = pytester.runpytest_inprocess(
        "--handoff-scenarios", "scenarios", f"{option}=scenarios/x.yaml"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{option} {project / 'x.yaml'}: is the scenario file *"])
    assert (project / "x.yaml").read_text(encoding="utf-8") == SCENARIO


def test_pytest_refuses_report_and_otel_on_one_path(
    pytester: pytest.Pytester, project: Path
) -> None:
    result = pytester.runpytest_inprocess(
        "--handoff-scenarios", "scenarios", "--handoff-report=out.json", "--handoff-otel=out.json"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--handoff-otel */out.json: is also --handoff-report*"])


@NEEDS_OTEL
def test_pytest_creates_the_missing_folder_of_the_report_as_of_the_otel_file(
    pytester: pytest.Pytester, project: Path
) -> None:
    result = pytester.runpytest_inprocess(
        "--handoff-scenarios",
        "scenarios",
        "--handoff-report=new/report.html",
        "--handoff-otel=newer/trace.json",
    )
    result.assert_outcomes(passed=1)
    assert (pytester.path / "new" / "report.html").is_file()
    assert (pytester.path / "newer" / "trace.json").is_file()
