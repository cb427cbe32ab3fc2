"""The README's examples run as written (docs examples are tests, pydantic-ai style)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


@pytest.mark.parametrize("source", _blocks("python"))
def test_readme_python_example_runs(source: str, capsys: pytest.CaptureFixture[str]) -> None:
    exec(compile(source, str(README), "exec"), {})
    assert "handoff_start" in capsys.readouterr().out


@pytest.mark.parametrize("source", _blocks("yaml"))
def test_readme_scenario_example_passes(source: str, tmp_path: Path) -> None:
    from handoff_sim.scenarios import load_file, run_scenario

    path = tmp_path / "example.yaml"
    path.write_text(source, encoding="utf-8")
    [scenario] = load_file(path)
    result = run_scenario(scenario)
    assert result.passed, [m.message for m in result.mismatches]
