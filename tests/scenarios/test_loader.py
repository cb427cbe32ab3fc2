"""Y1, Y4: loading files, lists of scenarios, matrices; problems located by line and field."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from handoff_sim.errors import ScenarioError
from handoff_sim.scenarios import Problem, ScenarioFileError, load_dict, load_file, load_path

from ._util import delegation, write

SINGLE = """
    # a comment first
    scenario: one
    tags: [smoke, ai4j]
    seed: 7
    agents:
      manager:
        model: {script: [done]}
    run: [go]
    expect:
      output: done
"""


def test_single_scenario_file(tmp_path: Path) -> None:
    [scenario] = load_file(write(tmp_path, SINGLE))
    assert (scenario.name, scenario.variant, scenario.id) == ("one", None, "one")
    assert scenario.tags == ("smoke", "ai4j")
    assert scenario.seed == 7
    assert scenario.line == 2
    assert scenario.path == tmp_path / "scenario.yaml"
    assert scenario.location("expect.output") == 10


def test_several_scenarios_under_scenarios_key(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        scenarios:
          - scenario: first
            agents: {m: {model: {script: [a]}}}
            run: [go]
          - scenario: second
            agents: {m: {model: {script: [b]}}}
            run: [go]
            expect: {output: b}
        """,
    )
    first, second = load_file(path)
    assert (first.id, second.id) == ("first", "second")
    assert (first.line, second.line) == (2, 5)
    assert second.location("expect.output") == 8
    assert second.field_name("expect.output") == "scenarios.1.expect.output"


def test_matrix_fans_out_variants_with_ids_and_overrides(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        scenario: m
        agents:
          manager:
            model: {script: [done]}
            policy: {max_depth: 3, max_retries: 1}
        run: [go]
        expect:
          output: done
        matrix:
          - id: base
          - id: strict
            policies:
              manager: {max_depth: 1}
            expect:
              output: other
        """,
    )
    base, strict = load_file(path)
    assert (base.id, strict.id) == ("m[base]", "m[strict]")
    assert base.variant == "base"
    strict_policy = strict.spec.agents["manager"].policy
    assert strict_policy is not None
    assert (strict_policy.max_depth, strict_policy.max_retries) == (1, 1)
    assert strict.spec.expect.output == "other"
    assert strict.spec.matrix is None
    # the overridden expectation points at the variant, the rest at the base
    assert strict.location("expect.output") == 15
    assert base.location("expect.output") == 8
    assert strict.location("agents.manager.policy.max_depth") == 13
    assert strict.location("agents.manager.policy.max_retries") == 5


def test_every_problem_of_a_file_is_reported_at_once(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        scenario: s
        agents:
          manager:
            model: {script: [done]}
            tools: [missing]
            policy:
              max_depth: -1
              timeout: soon
        run: [go]
        """,
    )
    with pytest.raises(ScenarioFileError) as caught:
        load_file(path)
    assert [p.field for p in caught.value.problems] == [
        "agents.manager.policy.max_depth",
        "agents.manager.policy.timeout",
    ]
    # references are checked once the types are right
    path.write_text(path.read_text().replace("max_depth: -1", "max_depth: 1").replace("soon", "1s"))
    with pytest.raises(ScenarioFileError, match=r"scenario\.yaml:5:\d+: agents\.manager\.tools\.0"):
        load_file(path)


def test_scenario_file_error_is_a_scenario_error_with_problem_lines(tmp_path: Path) -> None:
    path = write(tmp_path, "scenario: [unclosed\n")
    with pytest.raises(ScenarioError) as caught:
        load_file(path)
    error = caught.value
    assert isinstance(error, ScenarioFileError)
    assert all(isinstance(p, Problem) for p in error.problems)
    assert str(error) == "\n".join(p.format() for p in error.problems)


def test_unreadable_file_is_a_scenario_file_error(tmp_path: Path) -> None:
    path = tmp_path / "binary.yaml"
    path.write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(ScenarioFileError, match="<file>: cannot read"):
        load_file(path)


def test_load_path_walks_directories_recursively_in_sorted_order(tmp_path: Path) -> None:
    for name in ("b.yaml", "a/z.yml", "a/c.yaml"):
        write(tmp_path, SINGLE.replace("scenario: one", f"scenario: {Path(name).stem}"), name)
    write(tmp_path, "not: a scenario", "notes.txt")
    assert [s.name for s in load_path(tmp_path)] == ["c", "z", "b"]


def test_load_path_raises_on_a_bad_file_and_on_a_missing_path(tmp_path: Path) -> None:
    write(tmp_path, "scenario: s\n", "bad.yaml")
    with pytest.raises(ScenarioFileError):
        load_path(tmp_path)
    with pytest.raises(ScenarioError, match="no such file"):
        load_path(tmp_path / "nope")


def test_load_dict_validates_like_a_file() -> None:
    [scenario] = load_dict(delegation())
    assert scenario.id == "delegation"
    data = delegation()
    data["agents"]["manager"]["policy"] = {"max_depth": -1}
    with pytest.raises(ScenarioFileError) as caught:
        load_dict(data, source="<test>")
    [problem] = caught.value.problems
    assert problem.path == "<test>"
    assert problem.format().startswith("<test>:")
    assert problem.field == "agents.manager.policy.max_depth"
    assert problem.message == "must be >= 0"


def test_yaml_anchors_and_aliases_are_followed(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        scenario: anchors
        agents:
          manager:
            model: {script: [done]}
            policy: &strict {max_depth: 1}
          other:
            model: {script: [done]}
            policy: *strict
        run: [go]
        """,
    )
    [scenario] = load_file(path)
    assert scenario.spec.agents["other"].policy == scenario.spec.agents["manager"].policy


@pytest.mark.slow
def test_importing_handoff_sim_does_not_import_the_scenario_package() -> None:
    code = (
        "import sys, handoff_sim; "
        "print('handoff_sim.scenarios' in sys.modules, 'handoff_sim.cli' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.split() == ["False", "False"]
