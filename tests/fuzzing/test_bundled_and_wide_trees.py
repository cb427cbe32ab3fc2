"""``handoff-sim fuzz`` on the bundled scenarios and on trees wider than the agent-name pool.

Issue items: from the repository root (its documented default, ``./scenarios``) the
fuzzer neither crashes on SoPhi agent types nor reports false failures, and
``--max-depth 4 --max-breadth 3`` runs clean.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, find, settings

from handoff_sim import strategies as hs
from handoff_sim.cli._fuzz import main
from handoff_sim.fuzzing._case import case_of
from handoff_sim.fuzzing._repro import scenario_yaml
from handoff_sim.scenarios import load_file, load_path

ROOT = Path(__file__).resolve().parents[2]
FIRST_FOUND = settings(  # find() without shrinking: any large tree will do
    max_examples=200,
    derandomize=True,  # the same draws on every run: found as soon, or never
    deadline=None,
    database=None,
    phases=(Phase.generate,),
    suppress_health_check=list(HealthCheck),
)

SOPHI = """\
scenario: sophi-types-from-files
agent_types_dir: agents/
agent_types:
  beta: {model: {script: [agreed]}}
agents:
  main:
    dispatcher: {agent_types: [beta]}
    model:
      script:
        - tool_calls:
            - {id: d1, name: delegate_to_subagent, arguments: {subagent_type: beta, prompt: go}}
        - done
run: [go]
"""
BETA = "---\nname: beta\ndescription: Second opinion\n---\nYou give a second opinion.\n"
BLANK_SCHEMA = """\
scenario: flink-blank-input-schema
agents:
  main:
    subagents: [{{agent: reviewer, style: flink, input_schema: "  "}}]
    model: {{script: []}}
  reviewer:
    model: {{script: []}}
run: [go]
expect:
  error: {{type: ConfigurationError, match: {match}}}
"""


def summary_runs(out: str) -> int:
    return int(out.split("handoff-sim fuzz: ")[1].split(" runs,")[0])


@pytest.fixture
def sophi_folder(tmp_path: Path) -> Path:
    """A scenario folder whose SoPhi scenario reads ``agents/beta.md`` relative to itself."""
    folder = tmp_path / "suite"
    (folder / "agents").mkdir(parents=True)
    (folder / "agents" / "beta.md").write_text(BETA, encoding="utf-8")
    (folder / "sophi.yaml").write_text(SOPHI, encoding="utf-8")
    return folder


def test_fuzz_from_the_repository_root_runs_every_bundled_scenario_clean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)
    bundled = len(load_path(ROOT / "scenarios"))

    status = main(["--examples", "1", "--seed", "0", "-q", "--out", str(tmp_path / "out")])

    printed = capsys.readouterr()
    assert status == 0, printed.out
    assert "0 failure(s)" in printed.out
    assert summary_runs(printed.out) == bundled + 1
    assert "not loaded" not in printed.out
    assert not (tmp_path / "out").exists()


def test_a_relative_agent_types_dir_is_read_next_to_its_scenario_file(
    sophi_folder: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)

    status = main(["--scenarios", str(sophi_folder), "--examples", "1", "-q"])

    printed = capsys.readouterr()
    assert status == 0, printed.out
    assert summary_runs(printed.out) == 2


def test_a_bundled_case_and_its_yaml_reproducer_keep_the_agent_types_dir(
    sophi_folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (scenario,) = load_file(sophi_folder / "sophi.yaml")
    case = case_of(scenario)
    reproducer = tmp_path / "repro" / "case.yaml"
    reproducer.parent.mkdir()
    reproducer.write_text(scenario_yaml(case), encoding="utf-8")
    monkeypatch.chdir(tmp_path)

    (reloaded,) = load_file(reproducer)

    assert Path(case["agent_types_dir"]) == (sophi_folder / "agents").resolve()
    assert reloaded.agent_types["beta"].system_prompt == "You give a second opinion."


def test_a_construction_error_the_scenario_expects_is_not_a_violation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "suite"
    folder.mkdir()
    text = BLANK_SCHEMA.format(match=r"input schema must not be blank")
    (folder / "blank.yaml").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)

    status = main(["--scenarios", str(folder), "--examples", "1", "-q"])

    assert status == 0, capsys.readouterr().out


def test_a_construction_error_the_scenario_does_not_expect_is_still_a_violation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "suite"
    folder.mkdir()
    text = BLANK_SCHEMA.format(match="some other message")
    (folder / "blank.yaml").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)

    status = main(["--scenarios", str(folder), "--examples", "1", "-q", "--out", "out"])

    printed = capsys.readouterr().out
    assert status == 1
    assert "construction failed without a reason in the case" in printed


def test_fuzz_with_max_depth_4_and_max_breadth_3_runs_clean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # no ./scenarios here

    status = main(["--examples", "6", "--seed", "1", "--max-depth", "4", "--max-breadth", "3"])

    printed = capsys.readouterr()
    assert status == 0, printed.out
    assert "0 failure(s)" in printed.out


@pytest.mark.parametrize(("unicode", "pool"), [(True, 14), (False, 11)])
def test_scenarios_name_trees_larger_than_the_agent_name_pool(unicode: bool, pool: int) -> None:
    def larger(case: dict[str, Any]) -> bool:
        return len(case["agents"]) > pool

    wide = hs.scenarios(max_depth=4, max_breadth=3, unicode=unicode)
    case = find(wide, larger, settings=FIRST_FOUND)

    mounted = [m["agent"] for a in case["agents"].values() for m in a.get("subagents", [])]
    assert sorted(mounted) == sorted(set(case["agents"]) - {case["entry"]})
    assert unicode or all(name.isascii() for name in case["agents"])


def test_a_scenario_the_fuzzer_cannot_build_is_a_note_not_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "suite"
    folder.mkdir()
    (folder / "plugin.yaml").write_text(
        "scenario: plugin-kind\nagents:\n  main:\n    model: {kind: only-a-plugin-builds-it}\n"
        "run: [go]\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)

    status = main(["--scenarios", str(folder), "--examples", "1", "-q"])

    printed = capsys.readouterr().out
    assert status == 0, printed
    assert "only-a-plugin-builds-it" in printed
    assert "not fuzzed" in printed or "not loaded" in printed
