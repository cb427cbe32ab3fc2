"""Issue 9, items 8, 9 and 13: hostile numbers, hostile YAML and reserved tags in scenario files.

Every refusal is a ``path:line:col: field: message`` line and exit code 2, in the loader,
the command line and pytest collection; the same numbers are refused at construction.
"""

from __future__ import annotations

import math
import textwrap
from pathlib import Path
from typing import Any

import pytest

from handoff_sim import Agent, ConfigurationError, HandoffPolicy, SubAgent
from handoff_sim._limits import (
    MAX_FAN_OUT,
    MAX_OVERSIZED_BYTES,
    MAX_RETRIES,
    MAX_SECONDS,
    MAX_STEPS,
    MAX_TURNS,
    MAX_YAML_DEPTH,
    MAX_YAML_NODES,
)
from handoff_sim.cli import main
from handoff_sim.errors import PolicyError
from handoff_sim.scenarios import ScenarioFileError, load_dict, load_file, load_text
from handoff_sim.scenarios._schema import RESERVED_TAGS
from handoff_sim.testing import AdversarialModel, ScriptedModel
from tests.hostile._support import run_hostile

FILES = Path(__file__).parent / "files"
BIG = 10**400

# hostile file -> (line, column, field, a fragment of the message)
REFUSED: dict[str, tuple[int, int, str, str]] = {
    "max_retries_billion": (5, 14, "agents.main.policy.max_retries", f"<= {MAX_RETRIES}"),
    "adversarial_fan_out_hundred_million": (
        5, 59, "agents.main.model.adversarial.fan_out", f"<= {MAX_FAN_OUT}"
    ),
    "adversarial_max_turns_billion": (
        5, 64, "agents.main.model.adversarial.max_turns", f"<= {MAX_TURNS}"
    ),
    "adversarial_oversized_bytes_1e11": (
        5, 71, "agents.main.model.adversarial.oversized_bytes", f"<= {MAX_OVERSIZED_BYTES}"
    ),
    "max_steps_billion": (6, 5, "agents.main.max_steps", f"<= {MAX_STEPS}"),
    "run_too_many_turns": (8, 1, "run", f"at most {MAX_TURNS} items"),
    "latency_400_digits": (7, 24, "agents.main.model.script.0.latency", "at most 31622400"),
    "timeout_400_digits": (5, 14, "agents.main.policy.timeout", "at most 31622400 seconds"),
    "tool_latency_over_a_year": (4, 10, "tools.slow.latency", "at most 31622400 seconds"),
    "latency_nan": (7, 24, "agents.main.model.script.0.latency", "finite"),
    "timeout_infinite": (5, 14, "agents.main.policy.timeout", "at most"),
    "expect_elapsed_400_digits": (10, 3, "expect.elapsed", "at most 31622400"),
    "expect_handoff_duration_400_digits": (
        10, 15, "expect.handoffs.0.duration", "at most 31622400"
    ),
    "expect_trace_t_400_digits": (10, 27, "expect.trace.0.t", "at most 31622400"),
    "yaml_int_5000_digits": (3, 7, "<yaml>", "integer too large: 5000 digits"),
    "yaml_bad_timestamp": (3, 14, "<yaml>", "cannot read '2024-13-45' as timestamp"),
    "yaml_nested_1000": (9, 113, "<yaml>", f"nested deeper than {MAX_YAML_DEPTH} levels"),
    "yaml_nested_mappings_1000": (108, 199, "<yaml>", "nested deeper than"),
    "yaml_nul_byte": (7, 21, "<yaml>", "unacceptable character #x0000"),
    "yaml_invalid_utf8": (7, 21, "<file>", "not valid UTF-8 (byte 0xff"),
    "yaml_billion_laughs": (11, 11, "<yaml>", f"more than {MAX_YAML_NODES} values"),
    "yaml_recursive_alias": (5, 14, "<yaml>", "recursive alias"),
    "regex_nested_1000": (10, 12, "expect.output.match", "nested too deeply"),
    "regex_repeat_overflow": (10, 11, "expect.error.match", "repetition number is too large"),
    "tag_xfail": (3, 8, "tags.0", "tag 'xfail' is reserved"),
    "tag_skip": (3, 8, "tags.0", "tag 'skip' is reserved"),
    "tag_skipif": (3, 8, "tags.0", "tag 'skipif' is reserved"),
    "tag_parametrize": (3, 8, "tags.0", "tag 'parametrize' is reserved"),
    "tag_usefixtures": (3, 8, "tags.0", "tag 'usefixtures' is reserved"),
}  # fmt: skip

# the three the issue reproduced with a traceback, checked end to end
ISSUE_CASES = ["latency_400_digits", "timeout_400_digits", "yaml_nested_1000", "yaml_nul_byte"]


def _path(stem: str) -> Path:
    return FILES / f"{stem}.yaml"


def _minimal(**extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "scenario": "s",
        "agents": {"main": {"model": {"script": ["done"]}}},
        "run": ["go"],
    }
    data.update(extra)
    return data


def _refusal(data: dict[str, Any]) -> str:
    with pytest.raises(ScenarioFileError) as caught:
        load_dict(data)
    return str(caught.value)


# -- every hostile file of these items: refused where it is wrong -----------------------


@pytest.mark.parametrize("stem", sorted(REFUSED))
def test_hostile_file_is_refused_at_its_line_column_and_field(stem: str) -> None:
    line, column, field, fragment = REFUSED[stem]
    path = _path(stem)
    assert path.read_bytes().startswith(b"# Attacks "), "first line says what it attacks"
    with pytest.raises(ScenarioFileError) as caught:
        load_file(path)
    first = caught.value.problems[0]
    assert (first.line, first.column, first.field) == (line, column, field), str(caught.value)
    assert fragment in first.message
    assert str(caught.value).splitlines()[0].startswith(f"{path}:{line}:{column}: {field}: ")


@pytest.mark.parametrize("stem", ISSUE_CASES)
@pytest.mark.parametrize("command", ["validate", "run", "render"])
def test_item9_huge_numbers_deep_nesting_and_nul_exit_2_with_a_located_line(
    stem: str, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    line, column, field, _ = REFUSED[stem]
    path = _path(stem)
    assert main([command, str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:{line}:{column}: {field}: ")
    assert "Traceback" not in err


def test_item9_pytest_collection_reports_each_hostile_file_as_one_located_error(
    pytester: pytest.Pytester,
) -> None:
    folder = pytester.mkdir("scenarios")
    for stem in ISSUE_CASES:
        (folder / f"{stem}.yaml").write_bytes(_path(stem).read_bytes())
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios")
    assert result.ret != pytest.ExitCode.OK
    result.assert_outcomes(errors=len(ISSUE_CASES))
    text = result.stdout.str()
    for stem in ISSUE_CASES:
        line, column, field, _ = REFUSED[stem]
        assert f"{stem}.yaml:{line}:{column}: {field}: " in text
    assert "Traceback" not in text
    assert "RecursionError" not in text
    assert "OverflowError" not in text


# -- item 8: the bounds, at load and at construction --------------------------------------


@pytest.mark.parametrize(
    ("where", "field", "bound"),
    [
        (("agents", "main", "policy"), "max_retries", MAX_RETRIES),
        (("agents", "main"), "max_steps", MAX_STEPS),
        (("agents", "main", "model", "adversarial"), "max_turns", MAX_TURNS),
        (("agents", "main", "model", "adversarial"), "fan_out", MAX_FAN_OUT),
        (("agents", "main", "model", "adversarial"), "oversized_bytes", MAX_OVERSIZED_BYTES),
    ],
)
def test_item8_numbers_up_to_their_bound_load_and_one_more_is_refused_naming_the_bound(
    where: tuple[str, ...], field: str, bound: int
) -> None:
    def scenario(value: int) -> dict[str, Any]:
        data = _minimal()
        if where[-1] == "adversarial":
            data["agents"]["main"]["model"] = {"adversarial": {"seed": 1}}
        target = data
        for key in where:
            target = target.setdefault(key, {})
        target[field] = value
        return data

    assert load_dict(scenario(bound))
    message = _refusal(scenario(bound + 1))
    assert f"{'.'.join(where)}.{field}: must be <= {bound}" in message


def test_item8_a_run_of_at_most_max_turns_turns_loads_and_one_more_is_refused() -> None:
    assert load_dict(_minimal(run=["go"] * MAX_TURNS))
    assert f"run: must have at most {MAX_TURNS} items" in _refusal(_minimal(run=["go"] * 10_001))


@pytest.mark.parametrize("value", [MAX_SECONDS, "8784h"])  # 366 days
def test_item8_a_latency_of_one_year_is_the_largest_accepted(value: object) -> None:
    data = _minimal(agents={"main": {"model": {"script": [{"text": "x", "latency": value}]}}})
    assert load_dict(data)
    data["agents"]["main"]["model"]["script"][0]["latency"] = "8785h"
    assert "must be at most 31622400 seconds" in _refusal(data)


@pytest.mark.parametrize("value", [MAX_SECONDS + 1, "8785h", BIG, "9" * 400, math.inf])
def test_item8_a_timeout_beyond_a_year_is_refused_at_load(value: object) -> None:
    data = _minimal()
    data["agents"]["main"]["policy"] = {"timeout": value}
    message = _refusal(data)
    assert "agents.main.policy.timeout: invalid duration" in message
    assert "at most 31622400 seconds" in message
    assert len(message) < 300  # a 400-digit number is not printed in full


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_retries": MAX_RETRIES + 1}, f"HandoffPolicy.max_retries: must be <= {MAX_RETRIES}"),
        ({"timeout": BIG}, "HandoffPolicy.timeout: invalid duration <an integer of ~400 digits>"),
        ({"timeout": MAX_SECONDS * 2}, "must be at most 31622400 seconds"),
        ({"timeout": "9000h"}, "must be at most 31622400 seconds"),
        ({"timeout": math.nan}, "must be a finite number"),
    ],
)
def test_item8_handoff_policy_refuses_numbers_beyond_their_bound(
    kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(PolicyError) as caught:
        HandoffPolicy(**kwargs)
    assert message in str(caught.value)
    assert len(str(caught.value)) < 300


def test_item8_handoff_policy_accepts_its_bounds() -> None:
    policy = HandoffPolicy(max_retries=MAX_RETRIES, timeout=MAX_SECONDS)
    assert (policy.attempts, policy.timeout) == (MAX_RETRIES + 1, MAX_SECONDS)


@pytest.mark.parametrize(
    ("knob", "bound"),
    [("max_turns", MAX_TURNS), ("fan_out", MAX_FAN_OUT), ("oversized_bytes", MAX_OVERSIZED_BYTES)],
)
def test_item8_adversarial_model_knobs_are_bounded_at_construction(knob: str, bound: int) -> None:
    assert getattr(AdversarialModel(**{knob: bound}), knob) == bound  # type: ignore[arg-type]
    for value in (bound + 1, BIG):
        with pytest.raises(
            ConfigurationError, match=rf"{knob} must be an int >= \d+ and <= {bound}"
        ):
            AdversarialModel(**{knob: value})  # type: ignore[arg-type]


@pytest.mark.parametrize("latency", [BIG, MAX_SECONDS + 1, math.inf, math.nan, "1e400"])
def test_item8_script_step_latency_is_bounded_at_construction(latency: object) -> None:
    with pytest.raises(ConfigurationError, match=r"^script step 1: latency: invalid duration"):
        ScriptedModel([{"text": "x", "latency": latency}])


def test_item8_endless_adversarial_latency_still_never_answers_until_the_timeout() -> None:
    """The bound is on durations someone writes; the endless behaviour waits forever on purpose."""
    child = Agent("child", AdversarialModel(0, ["endless_latency"]))
    root = Agent(
        "root",
        ScriptedModel(
            [{"tool_calls": [{"name": "subagent_child", "arguments": {"task": "x"}}]}, "ok"]
        ),
        subagents=[SubAgent("child", agent=child)],
        handoff_policy=HandoffPolicy(timeout="1h"),
    )
    outcome = run_hostile(root)
    (record,) = outcome.trace.handoffs()
    assert (record.status, record.reason) == ("failed", "timeout")
    assert record.duration_ms == 3_600_000


# -- item 9: the other holes of the loader ---------------------------------------------


def test_item9_a_directory_named_like_a_scenario_file_is_a_located_error(tmp_path: Path) -> None:
    folder = tmp_path / "looks_like.yaml"
    folder.mkdir()
    with pytest.raises(ScenarioFileError, match=r"looks_like\.yaml:1:1: <file>: is a directory"):
        load_file(folder)


@pytest.mark.parametrize(
    ("text", "field", "fragment"),
    [
        ("seed: " + "9" * 5000, "<yaml>", "integer too large"),
        ("description: 2024-02-30", "<yaml>", "as timestamp"),
        ("expect: {elapsed: .nan}", "expect.elapsed", "finite"),
        ("expect: {elapsed: .inf}", "expect.elapsed", "at most 31622400 seconds"),
        ("expect: {handoffs: [{duration_ms: .nan}]}", "handoffs.0.duration_ms", "from 0 to"),
        ("expect: {handoffs: [{duration_ms: " + "9" * 400 + "}]}", "duration_ms", "from 0 to"),
        ("expect: {trace: [{type: run_end, t: .inf}]}", "expect.trace.0.t", "at most"),
        ("expect: {trace: [{type: run_end, t: [1]}]}", "expect.trace.0.t", "invalid duration"),
        (
            "expect: {trace: [{type: handoff_end, duration_ms: -1}]}",
            "expect.trace.0.duration_ms",
            "from 0 to 31622400000 milliseconds",
        ),
        ("expect: {trace: [{type: run_end, t: 1e999s}]}", "expect.trace.0.t", "invalid duration"),
        ("description: &d [*d]", "<yaml>", "recursive alias"),
    ],
)
def test_item9_huge_unbuildable_and_non_finite_values_are_located_problems(
    text: str, field: str, fragment: str
) -> None:
    source = "scenario: s\nagents: {main: {model: {script: [done]}}}\nrun: [go]\n" + text + "\n"
    with pytest.raises(ScenarioFileError) as caught:
        load_text(source, "x.yaml")
    (problem,) = caught.value.problems
    assert (problem.line, problem.field.endswith(field)) == (4, True), str(caught.value)
    assert fragment in problem.message


def test_item9_nesting_up_to_the_bound_loads_and_one_level_more_is_refused() -> None:
    def document(levels: int) -> str:
        """The root mapping, tools, t, then lists: ``x`` sits ``levels`` deep."""
        lists = levels - 4
        return (
            "scenario: s\nagents: {main: {model: {script: [done]}}}\nrun: [go]\n"
            f"tools: {{t: {{returns: {'[' * lists}x{']' * lists}}}}}\n"
        )

    assert load_text(document(MAX_YAML_DEPTH))
    with pytest.raises(ScenarioFileError, match=f"nested deeper than {MAX_YAML_DEPTH} levels"):
        load_text(document(MAX_YAML_DEPTH + 1))


def test_item9_aliases_that_expand_deeper_than_the_bound_are_refused() -> None:
    lines = ["a0: &a0 " + "[" * 60 + "x" + "]" * 60]
    lines += [f"a{i}: &a{i} " + "[" * 60 + f"*a{i - 1}" + "]" * 60 for i in (1, 2)]
    source = "scenario: s\ndescription:\n" + "".join(f"  {line}\n" for line in lines)
    with pytest.raises(ScenarioFileError, match="once aliases are expanded"):
        load_text(source)


@pytest.mark.parametrize("kind", ["deep", "self"])
def test_item9_load_dict_refuses_deep_or_self_containing_data(kind: str) -> None:
    value: Any = "x"
    if kind == "deep":
        for _ in range(5_000):
            value = [value]
    else:
        value = []
        value.append(value)
    message = _refusal(_minimal(description=value))
    assert message.startswith("<dict>:1:1: <root>: nested deeper than")


def test_item9_load_dict_refuses_an_integer_too_long_to_write() -> None:
    assert "not plain data" in _refusal(_minimal(seed=10**5000))


# -- item 13: tags named after pytest markers ---------------------------------------------


@pytest.mark.parametrize("tag", sorted(RESERVED_TAGS | {"XFail", "SKIP", "Flaky"}))
def test_item13_a_reserved_tag_is_refused_at_load_at_its_position(tag: str) -> None:
    source = (
        f"scenario: s\ntags: [fine, {tag}]\nagents: {{m: {{model: {{script: [x]}}}}}}\nrun: [x]\n"
    )
    with pytest.raises(ScenarioFileError) as caught:
        load_text(source, "t.yaml")
    (problem,) = caught.value.problems
    assert (problem.line, problem.column, problem.field) == (2, 14, "tags.1")
    assert f"tag '{tag}' is reserved" in problem.message


@pytest.mark.parametrize("tag", ["_private", "1st", "has-dash", ""])
def test_item13_a_tag_that_cannot_be_a_marker_is_refused_at_load(tag: str) -> None:
    message = _refusal(_minimal(tags=[tag]))
    assert "tags.0: must match ^[A-Za-z][A-Za-z0-9_]*$" in message


def test_item13_ordinary_tags_still_load() -> None:
    (scenario,) = load_dict(_minimal(tags=["timeouts", "retry", "xfail_like", "skip2"]))
    assert scenario.tags == ("timeouts", "retry", "xfail_like", "skip2")


FAILING = """\
scenario: must-fail
tags: [{tag}]
agents:
  main:
    model: {{script: [wrong answer]}}
run: [go]
expect:
  output: right answer
"""


@pytest.mark.parametrize("tag", ["xfail", "skip", "skipif", "parametrize", "usefixtures"])
def test_item13_a_failing_scenario_tagged_like_a_pytest_marker_never_passes_or_skips(
    pytester: pytest.Pytester, tag: str
) -> None:
    pytester.mkdir("scenarios")
    (pytester.path / "scenarios" / "f.yaml").write_text(FAILING.format(tag=tag))
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios")
    assert result.ret != pytest.ExitCode.OK
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([f"*f.yaml:2:8: tags.0: tag '{tag}' is reserved*"])
    assert "Traceback" not in result.stdout.str()


def test_item13_collection_refuses_a_reserved_tag_even_if_the_loader_let_it_through(
    pytester: pytest.Pytester,
) -> None:
    """Defence in depth: whatever loaded the scenario, a reserved tag never becomes a marker."""
    pytester.makeconftest(
        textwrap.dedent(
            """
            import dataclasses
            import handoff_sim.scenarios as scenarios

            _load = scenarios.load_file

            def _sneaky(path):
                return [dataclasses.replace(s, tags=("xfail",)) for s in _load(path)]

            def pytest_configure(config):
                scenarios.load_file = _sneaky

            def pytest_unconfigure(config):
                scenarios.load_file = _load
            """
        )
    )
    pytester.mkdir("scenarios")
    (pytester.path / "scenarios" / "f.yaml").write_text(FAILING.format(tag="fine"))
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*f.yaml:2:8: tags.0: tag 'xfail' is reserved*"])


def test_item13_an_ordinary_tag_still_selects_a_failing_scenario_that_fails(
    pytester: pytest.Pytester,
) -> None:
    pytester.mkdir("scenarios")
    (pytester.path / "scenarios" / "f.yaml").write_text(FAILING.format(tag="nightly"))
    result = pytester.runpytest_inprocess(
        "--handoff-scenarios", "scenarios", "--strict-markers", "-m", "nightly"
    )
    result.assert_outcomes(failed=1)


def test_item8_every_bound_is_in_the_table_of_the_scenario_docs() -> None:
    docs = (Path(__file__).parents[2] / "docs" / "scenarios.md").read_text(encoding="utf-8")
    table = docs[docs.index("## Bounds") : docs.index("## Errors")]
    for row in [
        f"| retries per handoff | 0 to {MAX_RETRIES} |",
        f"| 0 to one year: {MAX_SECONDS:,.0f} s |",
        f"| expected milliseconds | 0 to {MAX_SECONDS * 1000:,.0f} |",
        f"| model calls per agent run | 1 to {MAX_STEPS:,} |",
        f"| turns of a scenario run | 1 to {MAX_TURNS:,} |",
        f"| adversarial turns | 0 to {MAX_TURNS:,} |",
        f"| adversarial calls in one fan-out turn | 1 to {MAX_FAN_OUT:,} |",
        f"| adversarial oversized arguments | 1 to {MAX_OVERSIZED_BYTES:,} bytes |",
        f"| nesting of mappings and lists | {MAX_YAML_DEPTH} levels |",
        f"| values once aliases are expanded | {MAX_YAML_NODES:,} |",
    ]:
        assert row in table
