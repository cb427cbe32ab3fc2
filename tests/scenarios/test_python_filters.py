"""Scenario files with ``input_filter: {python: module:function}``: where it is imported from,
and errors that name the file and line."""

from __future__ import annotations

import re
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from handoff_sim.errors import InputFilterError
from handoff_sim.scenarios import load_path, run_scenario
from handoff_sim.scenarios._load import search_path
from handoff_sim.simulation._simulation import DEFAULT_START

FILTER = """
import json
from handoff_sim import ToolCall

def shout(call):
    task = json.loads(call.arguments)["task"]
    return ToolCall(call.id, call.name, json.dumps({"task": task.upper()}))
"""


def scenario(reference: str, *, expect: str = "expect: {output: done}") -> str:
    return (
        textwrap.dedent(
            f"""\
        scenario: python-filter
        agents:
          manager:
            policy:
              input_filter: {{python: "{reference}"}}
            model:
              script:
                - tool_calls: [{{id: c1, name: delegate_worker, arguments: {{task: build}}}}]
                - done
            subagents: [{{agent: worker, tool_name: delegate_worker}}]
          worker:
            model: {{script: [built]}}
        run: [go]
        """
        )
        + expect
        + "\n"
    )


@pytest.fixture
def forget_modules() -> Iterator[list[str]]:
    names: list[str] = []
    yield names
    for name in names:
        sys.modules.pop(name, None)


def test_a_module_next_to_the_scenario_is_found(tmp_path: Path, forget_modules: list[str]) -> None:
    (tmp_path / "next_to_it_filters.py").write_text(FILTER, encoding="utf-8")
    forget_modules.append("next_to_it_filters")
    path = tmp_path / "s.yaml"
    path.write_text(scenario("next_to_it_filters:shout"), encoding="utf-8")
    result = run_scenario(path)
    assert result.passed, result.render_failure()
    (start,) = [e for e in result.trace.of_type("run_start") if e.agent == "worker"]
    assert start.input == "BUILD"  # type: ignore[attr-defined]


def test_a_module_at_the_root_directory_is_found_from_a_nested_scenario(
    tmp_path: Path, forget_modules: list[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    package = tmp_path / "rootpkg_filters"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "policies.py").write_text(FILTER, encoding="utf-8")
    forget_modules += ["rootpkg_filters", "rootpkg_filters.policies"]
    nested = tmp_path / "scenarios" / "deep"
    nested.mkdir(parents=True)
    (nested / "s.yaml").write_text(scenario("rootpkg_filters.policies:shout"), encoding="utf-8")
    assert search_path(nested / "s.yaml") == (nested.resolve(), tmp_path.resolve())
    result = run_scenario(nested / "s.yaml")
    assert result.passed, result.render_failure()


def test_without_a_root_marker_only_the_scenario_directory_is_searched(tmp_path: Path) -> None:
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    found = search_path(nested / "s.yaml")
    assert found[0] == nested.resolve()
    assert tmp_path.resolve() not in found  # no marker here (one may sit further up)


def test_a_module_that_cannot_be_imported_is_an_error_at_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(scenario("absent_filters_mod:shout"), encoding="utf-8")
    result = run_scenario(path)
    assert not result.passed
    assert isinstance(result.error, InputFilterError)
    assert str(result.error) == (
        f"{path}:5: agents.manager.policy.input_filter.python: cannot import module "
        f"'absent_filters_mod' (searched {tmp_path.resolve()} and sys.path)"
    )


def test_a_scenario_may_expect_the_filter_error(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    expect = 'expect:\n  error: {type: InputFilterError, match: "cannot import module"}'
    path.write_text(scenario("absent_filters_mod:shout", expect=expect), encoding="utf-8")
    result = run_scenario(path)
    assert result.passed, result.render_failure()


def test_a_matrix_variant_s_filter_error_points_at_its_matrix_entry(tmp_path: Path) -> None:
    text = scenario("os.path:basename", expect="expect: {}") + textwrap.dedent(
        """\
        matrix:
          - id: broken
            policies:
              manager: {input_filter: {python: "absent_filters_mod:f"}}
        """
    )
    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")
    (loaded,) = load_path(path)
    result = run_scenario(loaded)
    assert re.match(
        rf"{re.escape(str(path))}:18: matrix\.0\.policies\.manager\.input_filter\.python: ",
        str(result.error),
    ), str(result.error)


def test_a_malformed_reference_is_refused_at_load_with_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(scenario("not a reference"), encoding="utf-8")
    with pytest.raises(Exception, match=r"s\.yaml:5:\d+: agents\.manager\.policy\.input_filter"):
        load_path(path)


CLOCK_FILTER = """
import json
import time
from handoff_sim import ToolCall

def stamp(call):
    return ToolCall(call.id, call.name, json.dumps({"task": str(int(time.time()))}))
"""


def test_a_filter_reading_the_wall_clock_sees_the_simulations_virtual_time(
    tmp_path: Path, forget_modules: list[str]
) -> None:
    (tmp_path / "clock_reading_filters.py").write_text(CLOCK_FILTER, encoding="utf-8")
    forget_modules.append("clock_reading_filters")
    path = tmp_path / "s.yaml"
    path.write_text(scenario("clock_reading_filters:stamp"), encoding="utf-8")
    result = run_scenario(path)
    assert result.passed, result.render_failure()
    (start,) = [e for e in result.trace.of_type("run_start") if e.agent == "worker"]
    assert start.input == str(int(DEFAULT_START.timestamp()))  # type: ignore[attr-defined]
