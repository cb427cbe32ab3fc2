"""Y4: every malformed file fails at load with the exact file:line:col and field path.

Each file under ``malformed/`` states on its first line what must be reported:
``# expect: LINE:COL field.path: message fragment``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from handoff_sim.cli import main
from handoff_sim.scenarios import ScenarioFileError, load_file

CORPUS = sorted((Path(__file__).parent / "malformed").glob("*.yaml"))
_EXPECT = re.compile(r"^# expect: (\d+):(\d+) (\S+): (.+)$")


def _expected(path: Path) -> tuple[int, int, str, str]:
    match = _EXPECT.match(path.read_text(encoding="utf-8").splitlines()[0])
    assert match, f"{path.name}: first line must be '# expect: LINE:COL field: message'"
    return int(match[1]), int(match[2]), match[3], match[4]


def test_corpus_is_large_enough() -> None:
    assert len(CORPUS) >= 30


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_malformed_file_reports_exact_location_and_field(path: Path) -> None:
    """Y4: the error names the file, line, column and field path; no bare traceback."""
    line, column, field, fragment = _expected(path)
    with pytest.raises(ScenarioFileError) as caught:
        load_file(path)
    error = caught.value
    assert error.path == str(path)
    first = error.problems[0]
    assert (first.line, first.column, first.field) == (line, column, field)
    assert fragment in first.message
    assert str(error).splitlines()[0] == f"{path}:{line}:{column}: {field}: {first.message}"


@pytest.mark.parametrize("path", CORPUS[:5], ids=[p.stem for p in CORPUS[:5]])
def test_cli_validate_reports_malformed_file_on_stderr(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line, column, field, _ = _expected(path)
    assert main(["validate", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(f"{path}:{line}:{column}: {field}: ")
    assert "Traceback" not in captured.err
