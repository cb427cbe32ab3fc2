"""Issue 19, item 3 (scenario files): a lone surrogate written as a YAML escape is refused
when the file loads, at its line and column with its field path, by both YAML parsers and
every front end, instead of passing ``validate`` and crashing ``run`` and ``render``."""

from __future__ import annotations

from pathlib import Path

import pytest

from handoff_sim.cli import main
from handoff_sim.scenarios import ScenarioFileError, load_dict, load_file, load_text
from handoff_sim.scenarios._load import _yaml

FILES = Path(__file__).parent / "files"
HOSTILE = FILES / "lone_surrogate_call_id.yaml"
REFUSAL = "contains a lone surrogate U+D800, which cannot be written as UTF-8"

TEMPLATE = """\
scenario: {scenario}
agents:
  {agent}:
    tools: [{tool}]
    model:
      script:
        - tool_calls: [{{id: {call}, name: {tool}}}]
        - {output}
tools:
  {tool}: {{returns: found}}
run: [go]
"""
PLAIN = {
    "scenario": "s",
    "agent": "main",
    "tool": "lookup",
    "call": "c1",
    "output": "done",
}
# what becomes a name or an id, and an output: (where it is written, line, column, field)
PLACES = {
    "scenario": (1, 11, "scenario"),
    "agent": (3, 3, "agents.m\\ud800"),
    "tool": (4, 13, "agents.main.tools.0"),
    "call": (7, 29, "agents.main.model.script.0.tool_calls.0.id"),
    "output": (8, 11, "agents.main.model.script.1"),
}


def _text(place: str) -> str:
    """The template with ``place`` holding a surrogate (a tool named thrice: the first counts)."""
    return TEMPLATE.format(**{**PLAIN, place: '"m\\ud800"'})


@pytest.fixture(params=["libyaml", "pure"])
def parser(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "pure":
        monkeypatch.setattr(_yaml, "LIBYAML", None)
    elif _yaml.LIBYAML is None:  # pragma: no cover - depends on how PyYAML was built
        pytest.skip("PyYAML was built without libyaml")
    return str(request.param)


@pytest.mark.parametrize("place", sorted(PLACES))
def test_a_lone_surrogate_in_a_name_id_or_output_is_refused_at_its_place(
    place: str, parser: str
) -> None:
    line, column, field = PLACES[place]
    with pytest.raises(ScenarioFileError) as caught:
        load_text(_text(place), "x.yaml")
    [problem] = caught.value.problems
    assert (problem.line, problem.column, problem.field) == (line, column, field)
    assert problem.message == REFUSAL
    str(caught.value).encode("utf-8")  # the report itself can be written


def test_a_lone_surrogate_in_a_key_is_named_in_the_field_path_as_an_escape(parser: str) -> None:
    text = 'scenario: s\nagents:\n  main: {model: {script: [done]}, "x\\udfff": 1}\nrun: [go]\n'
    with pytest.raises(ScenarioFileError) as caught:
        load_text(text, "x.yaml")
    [problem] = caught.value.problems
    assert (problem.line, problem.field) == (3, "agents.main.x\\udfff")
    assert problem.message.startswith("contains a lone surrogate U+DFFF")


def test_a_surrogate_pair_written_as_two_escapes_is_refused_with_the_code_point_to_write(
    parser: str,
) -> None:
    text = TEMPLATE.format(**{**PLAIN, "output": '"\\ud83d\\ude00"'})
    with pytest.raises(ScenarioFileError, match=r"U\+D83D.*write \\U0001F600"):
        load_text(text, "x.yaml")


def test_a_surrogate_reached_through_an_alias_is_refused_where_the_anchor_is(
    parser: str,
) -> None:
    text = TEMPLATE.format(**{**PLAIN, "output": '&bad "\\ud800"'}) + "description: *bad\n"
    with pytest.raises(ScenarioFileError) as caught:
        load_text(text, "x.yaml")
    assert caught.value.problems[0].line == 8


def test_an_escape_that_only_looks_like_a_surrogate_still_loads(parser: str) -> None:
    text = TEMPLATE.format(**{**PLAIN, "output": "'\\ud800 stays text in single quotes'"})
    [scenario] = load_text(text, "x.yaml")
    assert scenario.spec.agents["main"].model.script[1] == "\\ud800 stays text in single quotes"  # type: ignore[union-attr]


def test_load_dict_refuses_a_lone_surrogate_as_a_problem_not_an_assertion() -> None:
    data = {"scenario": "s", "agents": {"m\ud800": {"model": {"script": ["x"]}}}, "run": ["go"]}
    with pytest.raises(ScenarioFileError, match="contains a lone surrogate U\\+D800"):
        load_dict(data)


def test_the_hostile_file_is_refused_at_its_call_id() -> None:
    assert HOSTILE.read_bytes().startswith(b"# Attacks ")
    with pytest.raises(ScenarioFileError) as caught:
        load_file(HOSTILE)
    [problem] = caught.value.problems
    assert (problem.line, problem.column) == (8, 29)
    assert problem.field == "agents.main.model.script.0.tool_calls.0.id"


@pytest.mark.parametrize("command", [["validate"], ["run"], ["render"]])
def test_validate_run_and_render_refuse_a_lone_surrogate_with_exit_2_and_no_traceback(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*command, str(HOSTILE)]) == 2
    captured = capsys.readouterr()
    assert f"{HOSTILE}:8:29: agents.main.model.script.0.tool_calls.0.id: {REFUSAL}" in (
        captured.err
    )
    assert "Traceback" not in captured.out + captured.err
