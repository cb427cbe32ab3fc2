"""Hostile gate files and hostile traces under gates: every bound refused at its line, an
alias bomb refused unexpanded, and names from a trace escaped in the table and in JUnit XML
(so no name forges a PASS line in a terminal or a CI log)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from handoff_sim.cli import main
from tests.gates._support import junit_schema

FILES = Path(__file__).parent / "files"
TRACE = FILES / "otlp_control_characters_in_names.json"
_RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def test_gate_names_built_from_hostile_agent_and_tool_names_are_escaped_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    junit = tmp_path / "gates.xml"
    gates = FILES / "gates_control_characters_in_names.yaml"
    code = main(["check", str(TRACE), "--gates", str(gates), "--junitxml", str(junit)])
    out = capsys.readouterr().out
    assert code == 1  # the forbidden call was found: the names matched as written
    assert not _RAW.search(out.replace("\n", "")), "a raw control character reached the terminal"
    assert "  forbidden_tools.boss\\x1b]0;pwned\\x07\\u202e  " in out
    assert not any(line.startswith("PASS forged") for line in out.splitlines())
    text = junit.read_text(encoding="utf-8")
    assert not _RAW.search(text.replace("\n", ""))
    assert not any(line.startswith("PASS forged") for line in text.splitlines())
    junit_schema().validate(str(junit))  # most of a second: xmlschema compiles the XSD


def test_numbers_beyond_their_bounds_are_each_refused_at_their_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    gates = FILES / "gates_numbers_beyond_bounds.yaml"
    assert main(["check", str(TRACE), "--gates", str(gates)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        f"{gates}:2:1: max_handoffs: Input should be less than or equal to 1000000000",
        f"{gates}:3:1: max_attempts: Input should be a valid integer",
        f"{gates}:4:19: handoff_latency.p95: invalid duration '99999999999999999999999999h': "
        "must be at most 31622400 seconds (366 days)",
        f"{gates}:5:1: max_tool_error_rate: invalid rate '1e400%': a percentage from 0% to 100%",
    ]


def test_an_alias_bomb_gate_file_is_refused_without_being_expanded(
    capsys: pytest.CaptureFixture[str],
) -> None:
    gates = FILES / "gates_alias_bomb.yaml"
    assert main(["check", str(TRACE), "--gates", str(gates)]) == 2
    assert "more than 1000000 values once aliases are expanded" in capsys.readouterr().err


def test_a_gate_file_that_is_a_directory_or_a_fifo_is_refused_unread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import os

    fifo = tmp_path / "gates.fifo"
    os.mkfifo(fifo)
    for path in (tmp_path, fifo):
        assert main(["check", str(TRACE), "--gates", str(path)]) == 2
        assert f"{path}:1:1: <file>: " in capsys.readouterr().err
