"""Text a trace or a scenario controls never controls the terminal, nor forges a line.

The corpus (``files/control_characters_in_names.yaml``, ``files/otlp_control_characters_
in_names.json``, ``files/expect_control_characters.yaml``) puts ESC and OSC sequences
(window title, OSC 52 clipboard write, erase line), a C1 CSI, bare CRs, line breaks
followed by ``PASS ...``, U+2028/U+2029/U+0085, bidi overrides and isolates and lone
surrogates (in recorded outputs: a scenario file, or a recorded name, holding one is
refused at load) in agent names, tool names, call ids, outputs, errors and expected values.
Every front end runs on it; what it prints must hold no control character but ``\\n``
and ``\\t``, and no line may be a forged ``PASS`` line.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import unicodedata
from collections.abc import Callable
from pathlib import Path

import pytest

from handoff_sim._terminal import escape_text, escape_value
from handoff_sim.cli import main
from handoff_sim.trace import Trace
from pytest_handoff import (
    HandoffAssertionError,
    assert_denied,
    assert_fallback_unavailable,
    assert_retry_count,
)

FILES = Path(__file__).parent / "files"
SCENARIOS = FILES / "control_characters_in_names.yaml"
OTLP = FILES / "otlp_control_characters_in_names.json"
EXPECT = FILES / "expect_control_characters.yaml"
REFUSED = FILES / "control_characters_in_refused_names.yaml"

# Format characters that reorder or hide what a terminal shows (bidi embeddings,
# overrides, isolates and marks); every other control is found by its category.
_BIDI = {0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)}


def raw_controls(text: str) -> list[str]:
    """Every character of ``text`` a terminal would act on rather than show (repr'd)."""
    return [
        repr(char)
        for char in text
        if char not in "\n\t"
        and (unicodedata.category(char) in {"Cc", "Cs", "Zl", "Zp"} or ord(char) in _BIDI)
    ]


def forged_lines(text: str) -> list[str]:
    """Lines that only a value of the corpus could have started (its payloads say ``forged``)."""
    return [line for line in text.split("\n") if line.lstrip().startswith("PASS forged")]


# what each front end is given, and the exit code it must end with
COMMANDS: dict[str, tuple[list[str], int]] = {
    "validate": (["validate", str(SCENARIOS)], 0),
    "validate a refused file": (["validate", str(REFUSED)], 2),
    "run a refused file": (["run", str(REFUSED)], 2),
    "run": (["run", str(SCENARIOS)], 1),
    "run -v": (["run", "-v", str(SCENARIOS)], 1),
    "run -q": (["run", "-q", str(SCENARIOS)], 1),
    "render text": (["render", str(SCENARIOS), "-s", "hostile-passes"], 0),
    "render tree": (["render", str(SCENARIOS), "-s", "hostile-passes", "--format", "tree"], 0),
    "render mermaid": (
        ["render", str(SCENARIOS), "-s", "hostile-passes", "--format", "mermaid"],
        0,
    ),
    "render jsonl": (["render", str(SCENARIOS), "-s", "hostile-passes", "--format", "jsonl"], 0),
    "render a failing one": (["render", str(SCENARIOS), "-s", "hostile-fails"], 0),
    "check": (["check", str(OTLP)], 0),
    "check --expect": (["check", str(OTLP), "--expect", str(EXPECT)], 1),
    "check --expect, no trace of that name": (
        ["check", str(OTLP), "--expect", str(SCENARIOS)],
        2,
    ),
}


@pytest.mark.parametrize(("argv", "code"), COMMANDS.values(), ids=COMMANDS.keys())
def test_terminal_never_receives_control_characters_from_a_front_end(
    argv: list[str], code: int, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == code
    out, err = capsys.readouterr()
    assert out or err
    assert not raw_controls(out + err)
    assert not forged_lines(out + err)


def test_terminal_never_receives_control_characters_from_a_pytest_run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "1")  # whole messages in the short summary
    folder = pytester.path / "scenarios"
    folder.mkdir()
    shutil.copy(SCENARIOS, folder / SCENARIOS.name)
    report = pytester.path / "report.html"
    result = pytester.runpytest_inprocess(
        "--handoff-scenarios",
        "scenarios",
        "-rA",
        "-v",
        "--handoff-show-trace",
        f"--handoff-report={report}",
    )
    text = result.stdout.str() + result.stderr.str()
    result.assert_outcomes(passed=1, failed=1)
    assert "boss\\x1b]0;pwned\\x07\\u202e" in text  # the names are shown, as escapes
    assert not raw_controls(text)
    assert not forged_lines(text)
    assert report.stat().st_size > 0


def test_pytest_collection_error_keeps_each_problem_on_one_escaped_line(
    pytester: pytest.Pytester,
) -> None:
    shutil.copy(REFUSED, pytester.path / REFUSED.name)
    result = pytester.runpytest_inprocess("--handoff-scenarios", REFUSED.name)
    text = result.stdout.str() + result.stderr.str()
    result.assert_outcomes(errors=1)
    problems = [line for line in result.outlines if line.startswith(f"{REFUSED.name}:")]
    assert len(problems) == 3
    assert "undefined agent 'nobody\\x1b]0;t\\x07\\nPASS forged.yaml::agent'" in problems[0]
    assert not raw_controls(text)
    assert not forged_lines(text)


def test_run_html_report_is_written_whatever_the_names_hold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "report.html"
    assert main(["run", str(SCENARIOS), "--html", str(page)]) == 1
    out, err = capsys.readouterr()
    assert not raw_controls(out + err)
    assert "hostile-fails" in page.read_text("utf-8")


@pytest.mark.slow
def test_commands_print_lone_surrogates_as_escapes_on_a_real_stdout(tmp_path: Path) -> None:
    """A real stdout (strict UTF-8) raises on a lone surrogate: nothing raw may reach it.

    One interpreter runs ``run -v`` and ``check`` (a second of start-up and imports)."""
    program = (
        "import sys\n"
        "from handoff_sim.cli import main\n"
        f"codes = (main(['run', '-v', {str(SCENARIOS)!r}]),\n"
        f"    main(['check', {str(OTLP)!r}, '--expect', {str(EXPECT)!r}]))\n"
        "sys.exit(0 if codes == (1, 1) else 3)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, cwd=tmp_path, timeout=120, check=False
    )
    out, err = done.stdout.decode("utf-8"), done.stderr.decode("utf-8")
    assert done.returncode == 0, err
    assert "Traceback" not in err
    assert "\\ud800" in out  # the recorded output
    assert not raw_controls(out + err)
    assert not forged_lines(out)


def test_a_recorded_trace_cannot_forge_a_pass_line_in_check(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["check", str(OTLP), "--expect", str(EXPECT)]) == 1
    lines = capsys.readouterr().out.split("\n")
    verdicts = [line for line in lines if line.startswith(("PASS", "FAIL"))]
    assert len(verdicts) == 1
    assert verdicts[0].startswith(f"FAIL {OTLP}::run\\x1b]0;t\\x07\\nPASS forged")


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("\x1b]0;title\x07", "\\x1b]0;title\\x07"),
        ("\x1b]52;c;Y2xpcA==\x07", "\\x1b]52;c;Y2xpcA==\\x07"),
        ("a\x1b[2Kb", "a\\x1b[2Kb"),
        ("a\rPASS b", "a\\rPASS b"),
        ("a\nPASS b", "a\\nPASS b"),
        ("tab\there", "tab\\there"),
        ("\x00\x7f\x85\x9b", "\\x00\\x7f\\x85\\x9b"),
        ("\u2028\u2029", "\\u2028\\u2029"),
        ("\u202e\u2066\u200f", "\\u202e\\u2066\\u200f"),
        ("\ud800 and \udfff", "\\ud800 and \\udfff"),
    ],
)
def test_control_characters_are_shown_as_repr_style_escapes(value: str, shown: str) -> None:
    assert escape_value(value) == shown


def test_escaping_keeps_printable_text_as_it_is() -> None:
    printable = "manager → reviewer via delegate [handoff:c1] é 日本 😀 C:\\path \\x1b «»"
    assert escape_value(printable) == printable
    assert escape_text(f"{printable}\n\tnext line") == f"{printable}\n\tnext line"


def test_escape_text_keeps_line_breaks_but_escapes_a_carriage_return() -> None:
    assert escape_text("one\ntwo\rPASS three\x1b") == "one\ntwo\\rPASS three\\x1b"


@pytest.mark.parametrize(
    "check",
    [
        lambda trace: assert_denied(trace),
        lambda trace: assert_retry_count(trace, trace.handoffs()[0].tool, 3),
        lambda trace: assert_fallback_unavailable(trace),
    ],
    ids=["assert_denied", "assert_retry_count", "assert_fallback_unavailable"],
)
def test_assertion_helpers_messages_hold_no_control_characters(
    check: Callable[[Trace], object],
) -> None:
    trace = Trace.from_otlp(OTLP)
    with pytest.raises(HandoffAssertionError) as failed:
        check(trace)
    message = str(failed.value)
    assert "boss\\x1b]0;pwned\\x07" in message
    assert not raw_controls(message)
    assert not forged_lines(message)


# A model kind whose answers hold a lone surrogate and escapes: a scenario file cannot
# (it is refused at load), but a plugin's model, a Python tool or a recorded trace can.
SURROGATE_PLUGIN = """\
from handoff_sim.testing import FunctionModel


def pytest_handoff_make_model(config, scenario, agent_name, model_spec):
    if model_spec["kind"] != "surrogates":
        return None
    return FunctionModel(lambda _: "lone \\ud800 \\x1b]0;t\\x07\\nPASS forged.yaml::x")
"""

SURROGATE_SCENARIO = """\
scenario: surrogates
agents:
  bot:
    model: {kind: surrogates}
run: [go]
expect:
  output: something else
"""


def _surrogate_project(folder: Path) -> Path:
    (folder / "surrogate_kinds.py").write_text(SURROGATE_PLUGIN, encoding="utf-8")
    scenario = folder / "scenarios" / "surrogates.yaml"
    scenario.parent.mkdir()
    scenario.write_text(SURROGATE_SCENARIO, encoding="utf-8")
    return scenario


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["run", "-v", "--html", "report.html"], 1),
        (["render"], 0),
        (["render", "--format", "jsonl"], 0),
    ],
    ids=["run --html", "render", "render jsonl"],
)
def test_a_lone_surrogate_from_a_model_is_printed_escaped_by_every_command(
    argv: list[str],
    code: int,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    scenario = _surrogate_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "surrogate_kinds", raising=False)
    assert main([*argv, str(scenario), "-p", "surrogate_kinds"]) == code
    out, err = capsys.readouterr()
    assert "\\ud800" in out, err
    assert not raw_controls(out + err)
    assert not forged_lines(out + err)
    if "--html" in argv:
        assert "\\ud800" in (tmp_path / "report.html").read_text("utf-8")


def test_a_lone_surrogate_from_a_model_is_escaped_in_pytests_report_and_its_html(
    pytester: pytest.Pytester,
) -> None:
    _surrogate_project(pytester.path)
    pytester.makeconftest("from surrogate_kinds import pytest_handoff_make_model\n")
    pytester.syspathinsert()
    report = pytester.path / "report.html"
    result = pytester.runpytest_inprocess(
        "--handoff-scenarios", "scenarios", "-rA", f"--handoff-report={report}"
    )
    text = result.stdout.str() + result.stderr.str()
    result.assert_outcomes(failed=1)
    assert "lone \\ud800 \\x1b]0;t\\x07\\nPASS forged.yaml::x" in text
    assert not raw_controls(text)
    assert not forged_lines(text)
    assert "\\ud800" in report.read_text("utf-8")
