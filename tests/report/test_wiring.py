"""``pytest --handoff-report=FILE`` and ``handoff-sim run --html FILE`` write the report."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from handoff_sim.cli import main
from tests.report._support import SHOWCASE

BROKEN = "scenario: broken\nagents: {a: {model: {script: [x]}}}\nrun: [go]\nexpect: {outptu: x}\n"
SNAPSHOT = """\
scenario: snap
agents:
  manager: {model: {script: [done]}}
run: [go]
expect: {snapshot: true}
"""


def _sections(page: str) -> list[tuple[str, str]]:
    return re.findall(
        r'<details class="scn" id="s-\d+" data-status="(\w+)" data-id="([^"]+)"', page
    )


@pytest.fixture
def project(pytester: pytest.Pytester) -> Path:
    folder = pytester.path / "scenarios"
    folder.mkdir()
    shutil.copy(SHOWCASE, folder / "showcase.yaml")
    (folder / "broken.yaml").write_text(BROKEN, encoding="utf-8")
    (folder / "snap.yaml").write_text(SNAPSHOT, encoding="utf-8")
    return folder


@pytest.fixture(autouse=True)
def _not_an_xdist_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    """Inner sessions must not believe they are workers of this suite's xdist run."""
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.slow
def test_pytest_option_writes_every_scenario_failures_first_and_the_same_under_xdist(
    pytester: pytest.Pytester, project: Path
) -> None:
    (pytester.path / "out").mkdir()
    result = pytester.runpytest_inprocess(
        "--handoff-scenarios", "scenarios", "--handoff-report=out/report.html"
    )

    result.assert_outcomes(passed=1, failed=2, errors=1)
    report = pytester.path / "out" / "report.html"
    result.stdout.fnmatch_lines([f"handoff report: {report} (4 scenarios)"])
    sections = _sections(report.read_text("utf-8"))
    assert sections == [
        ("failed", "release-review"),
        ("failed", "snap"),
        ("error", "broken"),  # refused at its setup: the entry names its scenario
        ("passed", "retry-then-pass"),
    ]
    page = report.read_text("utf-8")
    assert "scenarios/showcase.yaml:54" in page  # the mismatch, relative to the rootdir
    assert "no snapshot" in page  # failed by the snapshot, not by its expectations
    assert "scenarios/broken.yaml:4:10: expect.outptu: unknown field" in page

    parallel = pytester.runpytest_inprocess(  # the -n 2 workers are processes of their own
        "-p",
        "no:hypothesispytest",
        "-n",
        "2",
        "--handoff-scenarios",
        "scenarios",
        "--handoff-report=two.html",
    )

    parallel.assert_outcomes(passed=1, failed=2, errors=1)
    assert report.read_bytes() == (pytester.path / "two.html").read_bytes()


def test_pytest_option_creates_a_folder_that_does_not_exist_as_handoff_otel_does(
    pytester: pytest.Pytester, project: Path
) -> None:
    result = pytester.runpytest_inprocess(
        "--handoff-scenarios", "scenarios", "--handoff-report=nowhere/report.html"
    )

    result.assert_outcomes(passed=1, failed=2, errors=1)
    assert (pytester.path / "nowhere" / "report.html").is_file()


def test_command_writes_the_report_and_keeps_its_exit_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(SHOWCASE, tmp_path / "showcase.yaml")
    (tmp_path / "broken.yaml").write_text(BROKEN, encoding="utf-8")
    report = tmp_path / "report.html"

    code = main(["run", "-q", "--html", str(report), str(tmp_path)])

    assert code == 2  # a broken file outranks a failed scenario, report or not
    sections = _sections(report.read_text("utf-8"))
    assert [status for status, _ in sections] == ["failed", "error", "passed"]
    assert "expect.outptu: unknown field" in report.read_text("utf-8")
    assert str(report) in capsys.readouterr().out


def test_command_says_when_the_report_cannot_be_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(SHOWCASE, tmp_path / "showcase.yaml")
    target = tmp_path / "reports"
    target.mkdir()  # a folder where the file should be (a missing folder is created)

    code = main(["run", "-q", "-k", "retry-then-pass", "--html", str(target), str(tmp_path)])

    assert code == 2
    err = capsys.readouterr().err
    assert f"handoff-sim: cannot write the HTML report {target}: Is a directory" in err
