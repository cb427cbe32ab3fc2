"""Gate files and ``--gate`` options: one validation, problems at file:line:col with the
field path and "did you mean", bounded numbers, and a JSON Schema that agrees."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from handoff_sim import Gates, GateSpecError
from handoff_sim._gates import gates_from, gates_json_schema, load_gates, parse_gate_options


def write(folder: Path, text: str) -> Path:
    path = folder / "gates.yaml"
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def problem(path: Path, text: str) -> str:
    with pytest.raises(GateSpecError) as caught:
        load_gates(write(path, text))
    return str(caught.value)


def test_a_full_gate_file_reads_into_each_threshold(tmp_path: Path) -> None:
    gates = load_gates(
        write(
            tmp_path,
            """
            handoff_latency:
              p50: 2s
              p95: 30s
              max: 1m
              per_tool: {delegate_billing: {p95: 250ms}}
              per_agent: {billing: {max: 5}}
            max_attempts: 3
            max_handoffs: 50
            max_depth: 3
            max_loops: 1
            forbidden_tools: {billing: [delete_account], "*": [drop_table]}
            max_handoff_error_rate: 5%
            max_tool_error_rate: 0.1
            """,
        )
    )
    latency = gates.handoff_latency
    assert (latency.p50, latency.p95, latency.max) == (2.0, 30.0, 60.0)
    assert latency.per_tool["delegate_billing"].p95 == 0.25
    assert latency.per_agent["billing"].max == 5.0
    assert (gates.max_attempts, gates.max_handoffs, gates.max_depth, gates.max_loops) == (
        3,
        50,
        3,
        1,
    )
    assert gates.forbidden_tools == {"billing": ["delete_account"], "*": ["drop_table"]}
    assert (gates.max_handoff_error_rate, gates.max_tool_error_rate) == (0.05, 0.1)


def test_an_empty_gate_file_still_forbids_delegation_loops(tmp_path: Path) -> None:
    gates = load_gates(write(tmp_path, "# no thresholds\n"))
    assert gates.max_loops == 0
    assert load_gates(write(tmp_path, "max_loops: null\n")).max_loops is None


def test_an_unknown_key_is_named_at_its_line_with_the_nearest_gate(tmp_path: Path) -> None:
    text = problem(tmp_path, "max_depth: 3\nmax_atempts: 2\n")
    where = tmp_path / "gates.yaml"
    assert (
        text
        == f"{where}:2:1: max_atempts: unknown gate 'max_atempts'; did you mean 'max_attempts'?"
    )


def test_a_nested_bad_duration_is_named_by_its_field_path_line_and_column(tmp_path: Path) -> None:
    text = problem(
        tmp_path,
        """
        handoff_latency:
          per_tool:
            delegate_billing:
              p95: soon
        """,
    )
    assert text.startswith(
        f"{tmp_path / 'gates.yaml'}:4:7: handoff_latency.per_tool.delegate_billing.p95: "
    )
    assert "invalid duration 'soon'" in text


@pytest.mark.parametrize(
    ("text", "field", "words"),
    [
        ("max_depth: 202\n", "max_depth", "less than or equal to 201"),
        ("max_attempts: -1\n", "max_attempts", "greater than or equal to 0"),
        ("max_handoffs: 1000000001\n", "max_handoffs", "less than or equal to 1000000000"),
        ("max_attempts: true\n", "max_attempts", "valid integer"),
        ("max_loops: 1.5\n", "max_loops", "valid integer"),
        ("max_tool_error_rate: 150%\n", "max_tool_error_rate", "from 0% to 100%"),
        ("max_tool_error_rate: 1.5\n", "max_tool_error_rate", "less than or equal to 1"),
        ("max_tool_error_rate: .nan\n", "max_tool_error_rate", "finite number"),
        ("handoff_latency: {p95: 400d}\n", "handoff_latency.p95", "invalid duration"),
        ("handoff_latency: {p95: 9000h}\n", "handoff_latency.p95", "at most"),
        ("handoff_latency: {p90: 1s}\n", "handoff_latency.p90", "did you mean 'p99'"),
        ("forbidden_tools: {billing: delete_account}\n", "forbidden_tools.billing", "valid list"),
        ("forbidden_tools: {billing: ['']}\n", "forbidden_tools.billing.0", "at least 1 character"),
    ],
)
def test_each_out_of_bounds_or_mistyped_value_is_refused_naming_its_field(
    tmp_path: Path, text: str, field: str, words: str
) -> None:
    message = problem(tmp_path, text)
    assert ":1:" in message, message
    assert f": {field}: " in message, message
    assert words in message, message


def test_a_file_that_is_no_mapping_or_no_yaml_is_refused(tmp_path: Path) -> None:
    assert problem(tmp_path, "- max_depth\n").endswith("<root>: must be a mapping of gates")
    assert "gates.yaml:2:1: <yaml>: invalid YAML" in problem(tmp_path, "max_depth: [\n")
    with pytest.raises(GateSpecError, match=r"missing\.yaml:1:1: <file>"):
        load_gates(tmp_path / "missing.yaml")


def test_options_take_short_names_and_dotted_paths_and_name_the_bad_option() -> None:
    gates = parse_gate_options(
        [
            "p95=30s",
            "max_latency=40s",
            "max_depth=3",
            "forbidden=billing:delete_account,drop_table",
            "forbidden=*:rm",
            "handoff_latency.per_tool.delegate_billing.p50=100ms",
            "max_tool_error_rate=5%",
        ]
    )
    assert (gates.handoff_latency.p95, gates.handoff_latency.max, gates.max_depth) == (30, 40, 3)
    assert gates.forbidden_tools == {"billing": ["delete_account", "drop_table"], "*": ["rm"]}
    assert gates.handoff_latency.per_tool["delegate_billing"].p50 == 0.1
    assert gates.max_tool_error_rate == 0.05
    with pytest.raises(GateSpecError) as caught:
        parse_gate_options(["p59=1s", "max_depth=deep", "p95"])
    assert str(caught.value).splitlines() == [
        "--gate max_depth=deep: max_depth: Input should be a valid integer",
        "--gate p59=1s: p59: unknown gate 'p59'; did you mean 'p99'?",
        "--gate p95: <option>: expected KEY=VALUE, like p95=30s",
    ]


def test_options_override_the_gate_file_they_are_given_over(tmp_path: Path) -> None:
    base = load_gates(write(tmp_path, "max_depth: 3\nhandoff_latency: {p95: 30s, max: 1m}\n"))
    gates = parse_gate_options(["p95=10s"], base)
    assert (gates.max_depth, gates.handoff_latency.p95, gates.handoff_latency.max) == (3, 10, 60)


def test_keywords_take_the_same_names_as_options(tmp_path: Path) -> None:
    gates = gates_from(None, p95="30s", forbidden="billing:delete_account", max_depth=2)
    assert (gates.handoff_latency.p95, gates.max_depth) == (30, 2)
    assert gates.forbidden_tools == {"billing": ["delete_account"]}
    with pytest.raises(GateSpecError, match="gate max_depth: max_depth: Input should be"):
        gates_from(None, max_depth="two")


SAMPLES: list[tuple[dict[str, Any], bool]] = [
    ({}, True),
    ({"max_depth": 3, "max_loops": None}, True),
    ({"handoff_latency": {"p95": "30s", "per_tool": {"t": {"max": 2}}}}, True),
    ({"max_tool_error_rate": "5%"}, True),
    ({"max_tool_error_rate": 0.5}, True),
    ({"forbidden_tools": {"a": ["x"]}}, True),
    ({"max_depth": -1}, False),
    ({"max_depth": 202}, False),
    ({"max_tool_error_rate": 2}, False),
    ({"max_tool_error_rate": "half"}, False),
    ({"handoff_latency": {"p95": "soon"}}, False),
    ({"handoff_latency": {"p90": "1s"}}, False),
    ({"max_dept": 1}, False),
    ({"forbidden_tools": {"a": "x"}}, False),
]


@pytest.mark.parametrize(("data", "valid"), SAMPLES)
def test_the_json_schema_accepts_what_the_loader_accepts(data: dict[str, Any], valid: bool) -> None:
    validator = jsonschema.Draft202012Validator(gates_json_schema())
    assert validator.is_valid(data) is valid
    try:
        Gates.model_validate(data)
    except ValueError:
        loaded = False
    else:
        loaded = True
    assert loaded is valid
