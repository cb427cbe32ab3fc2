"""Issue 19, items 10 and 11: what ``handoff-sim check`` and the scenario loader are given.

Two scenario files of ``--expect DIR`` that both claim a trace are refused (one of them
would never be checked); a FIFO, a device or a file over its size bound is refused before
it is read, as a trace and as a scenario file, exit 2 with the path; running out of
memory in libyaml is a refusal, not a reason to read the text again with the pure parser.
Files over the bounds are sparse: nothing near their size is ever written.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from handoff_sim._limits import MAX_SCENARIO_FILE_BYTES, MAX_TRACE_FILE_BYTES
from handoff_sim.cli import main
from handoff_sim.errors import OtlpFormatError
from handoff_sim.scenarios import ScenarioFileError, load_file, load_text
from handoff_sim.scenarios._load import _yaml
from handoff_sim.trace import read_otlp
from tests._helpers import import_extra

OUTER_LIMIT = 60.0  # seconds: a FIFO that is opened for reading waits forever
SCENARIO = """\
scenario: s
agents:
  main: {model: {script: [done]}}
run: [go]
expect: {output: done}
"""


def _sparse(path: Path, size: int) -> Path:
    with path.open("wb") as stream:
        stream.truncate(size)
    return path


def _command(*args: str) -> subprocess.CompletedProcess[str]:
    """``handoff-sim ARGS`` in a fresh interpreter, ended by the outer limit if it hangs."""
    return subprocess.run(
        [sys.executable, "-m", "handoff_sim", *args],
        capture_output=True,
        text=True,
        timeout=OUTER_LIMIT,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def _recorded(tmp_path: Path, name: str = "source.yaml") -> Path:
    """An OTLP file of one trace, named ``<path>::s`` by ``run --otel`` (skips without otel)."""
    import_extra("otel", "opentelemetry.sdk")
    source = tmp_path / name
    source.write_text(SCENARIO, encoding="utf-8")
    trace = tmp_path / "trace.json"
    assert main(["run", "-q", str(source), "--otel", str(trace)]) == 0
    return trace


# -- item 10: --expect DIR with one scenario name twice ---------------------------------


def test_check_refuses_two_expect_files_that_claim_the_same_trace_naming_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = _recorded(tmp_path)
    expect = tmp_path / "expect"
    expect.mkdir()
    (expect / "a.yaml").write_text(SCENARIO, encoding="utf-8")
    (expect / "b.yaml").write_text(SCENARIO.replace("output: done", "output: never"), "utf-8")
    capsys.readouterr()
    assert main(["check", str(trace), "--expect", str(expect)]) == 2
    captured = capsys.readouterr()
    assert f"matches scenario 's' at {expect / 'a.yaml'}:1 and at {expect / 'b.yaml'}:1" in (
        captured.err
    )
    assert "PASS" not in captured.out


def test_check_gives_a_trace_to_the_file_it_is_named_after_when_another_has_its_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expect = tmp_path / "expect"
    expect.mkdir()
    trace = _recorded(expect, "a.yaml")  # named <expect>/a.yaml::s
    (expect / "b.yaml").write_text(SCENARIO.replace("output: done", "output: never"), "utf-8")
    os.replace(trace, tmp_path / "trace.json")
    capsys.readouterr()
    assert main(["check", str(tmp_path / "trace.json"), "--expect", str(expect)]) == 0
    captured = capsys.readouterr()
    assert f"against {expect / 'a.yaml'}::s" in captured.out
    assert f"SKIP {expect / 'b.yaml'}::s: no trace of that name" in captured.err


# -- item 11: what check reads ---------------------------------------------------------


def test_check_refuses_a_fifo_with_exit_2_instead_of_waiting_forever(tmp_path: Path) -> None:
    fifo = tmp_path / "trace.json"
    os.mkfifo(fifo)
    done = _command("check", str(fifo))
    assert done.returncode == 2, done.stderr
    assert f"{fifo}: is not a regular file" in done.stderr


def test_check_refuses_an_expect_file_over_the_bound_unread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = _recorded(tmp_path)
    big = _sparse(tmp_path / "expect.yaml", 2 * 1024**3)
    capsys.readouterr()
    assert main(["check", str(trace), "--expect", str(big)]) == 2
    assert f"{big}:1:1: <file>: is too large: 2,147,483,648 bytes" in capsys.readouterr().err


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero on this system")
def test_check_refuses_a_device_with_exit_2_and_no_traceback(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["check", "/dev/zero"]) == 2
    err = capsys.readouterr().err
    assert "/dev/zero: is not a regular file" in err
    assert "Traceback" not in err


def test_check_refuses_a_trace_file_over_the_bound_unread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    big = _sparse(tmp_path / "trace.json", 2 * 1024**3)
    assert main(["check", str(big)]) == 2
    err = capsys.readouterr().err
    assert f"{big}: is too large: 2,147,483,648 bytes, over the bound of " in err
    assert f"{MAX_TRACE_FILE_BYTES:,} bytes" in err


def test_read_otlp_refuses_a_trace_one_byte_over_the_bound_and_a_fifo(tmp_path: Path) -> None:
    with pytest.raises(OtlpFormatError, match="is too large"):
        read_otlp(_sparse(tmp_path / "big.json", MAX_TRACE_FILE_BYTES + 1))
    os.mkfifo(tmp_path / "fifo.json")
    with pytest.raises(OtlpFormatError, match="is not a regular file"):
        read_otlp(tmp_path / "fifo.json")  # opened without waiting: no writer needed


def test_a_trace_file_at_the_bound_is_read_and_judged_on_its_content(tmp_path: Path) -> None:
    with pytest.raises(OtlpFormatError) as caught:
        read_otlp(_sparse(tmp_path / "zeros.json", 4096))
    assert "too large" not in str(caught.value)


# -- item 11: what the scenario loader reads ---------------------------------------------


@pytest.mark.parametrize("command", ["validate", "run", "render"])
def test_a_scenario_file_over_the_bound_is_refused_unread_with_exit_2(
    tmp_path: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    big = _sparse(tmp_path / "huge_scalar.yaml", 1_200_000_000)
    assert main([command, str(big)]) == 2
    err = capsys.readouterr().err
    assert f"{big}:1:1: <file>: is too large: 1,200,000,000 bytes, over the bound of " in err
    assert f"{MAX_SCENARIO_FILE_BYTES:,} bytes" in err


def test_a_scenario_file_at_the_bound_is_read_and_one_byte_more_is_not(tmp_path: Path) -> None:
    at_bound = tmp_path / "at.yaml"
    at_bound.write_text(SCENARIO + "#" * (MAX_SCENARIO_FILE_BYTES - len(SCENARIO)), "utf-8")
    assert [s.id for s in load_file(at_bound)] == ["s"]
    with at_bound.open("a", encoding="utf-8") as stream:
        stream.write("#")
    with pytest.raises(ScenarioFileError, match="is too large"):
        load_file(at_bound)


def test_load_text_refuses_text_over_the_bound_without_parsing_it() -> None:
    text = "a: " + "x" * MAX_SCENARIO_FILE_BYTES
    with pytest.raises(ScenarioFileError) as caught:
        load_text(text, "x.yaml")
    [problem] = caught.value.problems
    assert (problem.line, problem.column, problem.field) == (1, 1, "<file>")
    assert problem.message.startswith("is too large")


class _OutOfMemory:
    """A libyaml loader that runs out of memory, as on a 1.2 GB scalar."""

    def __init__(self, text: str) -> None:
        raise MemoryError


def test_libyaml_running_out_of_memory_is_a_refusal_not_a_pure_reparse(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def pure(text: str, path: str) -> object:
        raise AssertionError("the pure parser read the text again")

    monkeypatch.setattr(_yaml, "LIBYAML", _OutOfMemory)
    monkeypatch.setattr(_yaml, "_parse_pure", pure)
    with pytest.raises(ScenarioFileError) as caught:
        load_text(SCENARIO, "x.yaml")
    assert str(caught.value) == "x.yaml:1:1: <yaml>: invalid YAML: out of memory while reading it"


def test_both_size_bounds_are_documented_where_they_apply() -> None:
    docs = Path(__file__).parents[2] / "docs"
    scenarios = (docs / "scenarios.md").read_text(encoding="utf-8")
    bounds = scenarios[scenarios.index("## Bounds") : scenarios.index("## Errors")]
    assert f"| size of a scenario file | {MAX_SCENARIO_FILE_BYTES:,} bytes" in bounds
    otel = (docs / "otel.md").read_text(encoding="utf-8")
    check = otel[otel.index("## `handoff-sim check") :]
    assert f"`MAX_TRACE_FILE_BYTES`,\n  {MAX_TRACE_FILE_BYTES:,} bytes" in check
