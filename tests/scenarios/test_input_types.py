"""Issue 14, item 1 for the Flink style: an ``input_type`` named by import path gives the
sub-agent's parameters. Since issue 19 (item 16) it is imported when the scenario is built,
never when the file loads; one that cannot be resolved is the run's error at its line,
which the scenario may expect."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import jsonschema
import pytest

from handoff_sim import ConfigurationError
from handoff_sim.scenarios import (
    ScenarioFileError,
    load_dict,
    load_file,
    run_scenario,
    scenario_json_schema,
)

from ._util import write

_names = itertools.count()

MODULE = """
from pydantic import BaseModel

class Review(BaseModel):
    path: str
    lines: int
"""


def _module(tmp_path: Path, text: str = MODULE) -> str:
    name = f"b_input_types_{next(_names)}"
    (tmp_path / f"{name}.py").write_text(text, encoding="utf-8")
    return name


def _scenario(reference: str, expect: str = "", style: str = "flink") -> str:
    return f"""
scenario: s
agents:
  main:
    subagents: [{{agent: reviewer, style: {style}, input_type: "{reference}"}}]
    model:
      script:
        - tool_calls: [{{id: c1, name: subagent_reviewer, arguments: {{path: a.py, lines: 3}}}}]
          expect: {{tools: [subagent_reviewer]}}
        - done
  reviewer:
    model: {{script: [ok]}}
run: [go]
{expect}"""


def test_an_input_type_beside_the_scenario_gives_the_sub_agents_parameters(
    tmp_path: Path,
) -> None:
    name = _module(tmp_path)
    path = write(tmp_path, _scenario(f"{name}:Review", "expect: {output: done}"))
    before = list(sys.path)
    [scenario] = load_file(path)
    result = run_scenario(scenario)
    assert sys.path == before  # the scenario's directory was on it for the import only
    assert result.passed, result.render_failure()
    [handoff] = result.trace.handoffs()
    assert (handoff.tool, handoff.output) == ("subagent_reviewer", "ok")


def test_the_resolved_type_is_the_schema_the_model_is_offered(tmp_path: Path) -> None:
    name = _module(tmp_path)
    text = _scenario(f"{name}:Review").replace(
        "expect: {tools: [subagent_reviewer]}",
        "expect: {tool_parameters: {subagent_reviewer: "
        "{type: object, title: Review, required: [path, lines], properties: "
        "{path: {title: Path, type: string}, lines: {title: Lines, type: integer}}}}}",
    )
    assert run_scenario(load_file(write(tmp_path, text))[0]).error is None


@pytest.mark.parametrize(
    ("reference", "fragment"),
    [
        ("b_no_such_module_anywhere:Review", "cannot import module 'b_no_such_module_anywhere' ("),
        ("{module}:Missing", "has no attribute 'Missing'"),
        ("{module}:Review.Nested", "has no attribute 'Review.Nested'"),
    ],
)
def test_an_unresolvable_input_type_fails_the_run_at_its_line_unless_expected(
    tmp_path: Path, reference: str, fragment: str
) -> None:
    name = _module(tmp_path)
    reference, fragment = reference.format(module=name), fragment.format(module=name)
    path = write(tmp_path, _scenario(reference))
    [scenario] = load_file(path)  # nothing imported yet
    result = run_scenario(scenario)
    assert not result.passed
    assert isinstance(result.error, ConfigurationError)
    where = f"{path}:4:49: agents.main.subagents.0.input_type: "
    assert str(result.error).startswith(f"{where}cannot resolve input type '{reference}': ")
    assert fragment in str(result.error)
    expect = "expect:\n  error: {type: ConfigurationError, match: cannot resolve input type}\n"
    [scenario] = load_file(write(tmp_path, _scenario(reference, expect), "expects.yaml"))
    assert run_scenario(scenario).passed


def test_a_module_that_fails_to_import_is_a_run_error_naming_the_failure(
    tmp_path: Path,
) -> None:
    name = _module(tmp_path, "raise RuntimeError('broken on import')\n")
    [scenario] = load_file(write(tmp_path, _scenario(f"{name}:Review")))
    assert "failed: RuntimeError: broken on" in str(run_scenario(scenario).error)


def test_an_explicit_input_schema_wins_over_the_input_type(tmp_path: Path) -> None:
    name = _module(tmp_path)
    text = _scenario(f"{name}:Review").replace(
        "input_type:", "input_schema: {type: object}, input_type:"
    )
    text = text.replace(
        "expect: {tools: [subagent_reviewer]}",
        "expect: {tool_parameters: {subagent_reviewer: {type: object}}}",
    )
    assert run_scenario(load_file(write(tmp_path, text))[0]).error is None


@pytest.mark.parametrize(
    ("mount", "field", "message"),
    [
        ({"style": "ai4j", "input_type": "m:T"}, "input_type", "needs 'style: flink'"),
        ({"style": "flink", "input_type": "m.T"}, "input_type", "must match"),
        ({"style": "flink", "input_type": "m:"}, "input_type", "must match"),
    ],
)
def test_a_misused_input_type_is_refused_by_the_loader_and_the_schema(
    mount: dict[str, str], field: str, message: str
) -> None:
    data = {
        "scenario": "s",
        "agents": {
            "main": {"model": {"script": ["x"]}, "subagents": [{"agent": "w", **mount}]},
            "w": {"model": {"script": ["y"]}},
        },
        "run": ["go"],
    }
    with pytest.raises(ScenarioFileError) as caught:
        load_dict(data)
    [problem] = caught.value.problems
    assert problem.field == f"agents.main.subagents.0.{field}"
    assert message in problem.message
    assert not jsonschema.Draft202012Validator(scenario_json_schema()).is_valid(data)


def test_the_bundled_input_type_scenarios_pass() -> None:
    from ._util import BUNDLED

    loaded = load_file(BUNDLED / "flink" / "input_type.yaml")
    assert [run_scenario(s).passed for s in loaded] == [True, True]


def test_an_input_type_module_named_like_one_already_imported_elsewhere_is_refused(
    tmp_path: Path,
) -> None:
    (tmp_path / "json.py").write_text(MODULE, encoding="utf-8")
    [scenario] = load_file(write(tmp_path, _scenario("json:Review")))
    error = str(run_scenario(scenario).error)
    assert ": agents.main.subagents.0.input_type: " in error
    assert "module 'json' is already imported from" in error
    assert sys.modules["json"].__file__ != str(tmp_path / "json.py")
