"""Issue 19, item 16: validating a scenario file runs none of the code it names.

A Flink ``input_type: module:Name`` used to import its module while the file loaded, so
``handoff-sim validate`` on a file from an untrusted pull request ran that module's
top-level code. The scenario here names one module three ways (input type, input filter,
retry classifier). Now loading records the reference (its syntax still checked) and the
module is imported when the scenario is built: by ``run``, ``render`` and pytest running
the item, never by ``validate`` or pytest collection. A module that fails to import is
the run's error at ``path:line:col`` of its key.
"""

from __future__ import annotations

import itertools
import shutil
import sys
from pathlib import Path

import pytest

from handoff_sim.cli import main

FILES = Path(__file__).parent / "files"
HOSTILE = FILES / "input_type_import_exits.yaml"
_names = itertools.count()

# importing it leaves a file beside it: the proof that its top-level code ran
TRIPWIRE = """\
from pathlib import Path

from pydantic import BaseModel

Path(__file__).with_suffix(".imported").write_text("ran", encoding="utf-8")


class Review(BaseModel):
    path: str


def keep(call):
    return None


def retried(error):
    return True
"""
SCENARIO = """\
scenario: s
agents:
  main:
    subagents: [{{agent: reviewer, style: flink, input_type: "{module}:Review"}}]
    policy: {{input_filter: {{python: "{module}:keep"}}, retry_on: {{python: "{module}:retried"}}}}
    model:
      script:
        - tool_calls: [{{id: c1, name: subagent_reviewer, arguments: {{path: a.py}}}}]
        - done
  reviewer:
    model: {{script: [ok]}}
run: [go]
expect: {{output: done}}
"""


@pytest.fixture
def tripwire(tmp_path: Path) -> tuple[Path, Path]:
    """A scenario file naming a fresh module beside it, and the file its import leaves."""
    module = f"tripwire_{next(_names)}"
    (tmp_path / f"{module}.py").write_text(TRIPWIRE, encoding="utf-8")
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(SCENARIO.format(module=module), encoding="utf-8")
    return scenario, tmp_path / f"{module}.imported"


def test_validate_imports_no_module_the_scenario_file_names(
    tripwire: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    scenario, marker = tripwire
    assert main(["validate", str(scenario)]) == 0
    assert f"ok {scenario}: 1 scenario(s)" in capsys.readouterr().out
    assert not marker.exists()
    assert not any(name.startswith(marker.stem) for name in sys.modules)


def test_pytest_collection_imports_no_module_the_scenario_file_names(
    pytester: pytest.Pytester, tripwire: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
        monkeypatch.delenv(name, raising=False)
    scenario, marker = tripwire
    result = pytester.runpytest_inprocess(
        "--collect-only", "-q", "--handoff-scenarios", str(scenario.parent)
    )
    result.stdout.fnmatch_lines(["*scenario.yaml::s*"])
    assert not marker.exists()


@pytest.mark.parametrize("command", [["run", "-q"], ["render"]])
def test_run_and_render_import_the_module_when_the_scenario_is_built(
    tripwire: tuple[Path, Path], command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    scenario, marker = tripwire
    assert main([*command, str(scenario)]) == 0, capsys.readouterr().err
    assert marker.read_text(encoding="utf-8") == "ran"


def test_the_hostile_module_that_exits_on_import_fails_the_run_at_its_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "-q", str(HOSTILE)]) == 0  # the file expects that error
    shutil.copy(FILES / "hostile_filter_exits_on_import.py", tmp_path)
    unexpected = tmp_path / "unexpected.yaml"
    text = HOSTILE.read_text(encoding="utf-8")
    unexpected.write_text(text[: text.index("expect:")], encoding="utf-8")
    capsys.readouterr()
    assert main(["run", "-q", str(unexpected)]) == 1
    out = capsys.readouterr().out
    assert (
        f"run error: ConfigurationError: {unexpected}:5:49: agents.main.subagents.0.input_type: "
        "cannot resolve input type 'hostile_filter_exits_on_import:Anything': importing module "
        "'hostile_filter_exits_on_import' failed: SystemExit: 3"
    ) in out


@pytest.mark.parametrize("reference", ["module.Name", "module:", "1module:Name"])
def test_a_malformed_input_type_reference_is_still_refused_by_validate_at_its_key(
    tmp_path: Path, reference: str, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = tmp_path / "bad.yaml"
    text = SCENARIO.format(module="m").replace('"m:Review"', f'"{reference}"')
    scenario.write_text(text, encoding="utf-8")
    assert main(["validate", str(scenario)]) == 2
    assert f"{scenario}:4:49: agents.main.subagents.0.input_type: " in capsys.readouterr().err
