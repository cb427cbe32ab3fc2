"""Issue 19, item 5: a user's regular expression ends in bounded time, and fails when it cannot.

``^(a|a)+$`` against sixty ``a`` and a ``!`` takes about 2**60 steps under ``re``: hours.
Matched by the ``regex`` module with a time budget, it stops, and the expectation it
served fails with a ``PatternTimeoutError`` message naming the pattern and its field —
in value matchers, in ``expect.error.match`` and in a script step's ``expect``. The
budget is patched down to 50 ms here so the tests stay fast; one test runs the
command at the real budget, in a subprocess under an outer time limit.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from handoff_sim import _patterns
from handoff_sim._limits import MAX_PATTERN_SIZE
from handoff_sim.errors import PatternTimeoutError, ScriptAssertionError
from handoff_sim.scenarios import ScenarioFileError, load_dict, load_file, run_scenario
from handoff_sim.scenarios._expect import text_matches

FILES = Path(__file__).parent / "files"
SIXTY = "a" * 60 + "!"
BACKTRACKS = "^(a|a)+$"  # the regex module's own shortcuts do not save it
REPORTED = "^(a+)+$"  # the pattern: hours under re, at once under regex
OUTER_LIMIT = 60.0  # seconds: far above what a bounded run takes, far below hours
FAST = 0.05  # the per-match budget in these tests, in seconds


@pytest.fixture(autouse=True)
def fast_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_patterns, "MAX_PATTERN_SECONDS", FAST)


def ends(fn: Callable[[], Any], limit: float = OUTER_LIMIT) -> Any:
    """``fn()``'s result, or a test failure if it is still running after ``limit`` seconds."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["result"] = fn()
        except BaseException as exc:  # re-raised in the test's thread
            box["error"] = exc

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(limit)
    if worker.is_alive():
        pytest.fail(f"still running after {limit:g}s")
    if "error" in box:
        raise box["error"]
    return box["result"]


def _scenario(**overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "scenario": "patterns",
        "agents": {
            "main": {
                "model": {
                    "script": [
                        {"tool_calls": [{"id": "c1", "name": "delegate_w", "arguments": {}}]},
                        {"text": SIXTY},
                    ]
                },
                "subagents": [{"agent": "w", "tool_name": "delegate_w"}],
            },
            "w": {"model": {"script": [{"text": SIXTY}]}},
        },
        "run": ["go"],
    }
    data.update(overrides)
    return data


@pytest.mark.parametrize(
    ("expect", "field"),
    [
        ({"output": {"match": BACKTRACKS}}, "expect.output"),
        ({"output": {"contains": "a", "match": BACKTRACKS}}, "expect.output"),
        ({"handoffs": [{"output": {"match": BACKTRACKS}}]}, "expect.handoffs.0"),
        ({"trace": [{"type": "run_end", "output": {"match": BACKTRACKS}}]}, "expect.trace"),
        (
            {"sessions": [{"messages": [{}, {"content": {"match": BACKTRACKS}}]}, {}]},
            "expect.sessions",
        ),
    ],
)
def test_a_backtracking_value_pattern_fails_its_field_instead_of_hanging(
    expect: dict[str, Any], field: str
) -> None:
    result = ends(lambda: run_scenario(_scenario(expect=expect)))
    assert not result.passed
    (mismatch,) = [m for m in result.mismatches if m.kind == "pattern"]
    assert mismatch.field == field
    assert f"pattern '{BACKTRACKS}' took longer than {FAST:g}s" in mismatch.message
    assert "characters" in mismatch.message


def test_a_backtracking_pattern_in_a_turn_expectation_fails_that_turn() -> None:
    data = _scenario(run=[{"input": "go", "expect": {"output": {"match": BACKTRACKS}}}])
    result = ends(lambda: run_scenario(data))
    assert [(m.kind, m.field) for m in result.mismatches] == [("pattern", "run.0.expect.output")]


def test_a_backtracking_error_match_fails_instead_of_passing_or_hanging() -> None:
    data = _scenario(expect={"error": {"type": "SimulatedModelError", "match": BACKTRACKS}})
    data["agents"]["main"]["model"]["script"] = [{"error": SIXTY}]
    result = ends(lambda: run_scenario(data))
    assert not result.passed
    assert [(m.kind, m.field) for m in result.mismatches] == [("pattern", "expect.error")]


def test_the_reported_pattern_ends_at_once_as_an_output_that_differs() -> None:
    result = ends(lambda: run_scenario(_scenario(expect={"output": {"match": REPORTED}})))
    assert [(m.kind, m.message) for m in result.mismatches] == [("output", "output differs")]
    matched = run_scenario(_scenario(expect={"output": {"match": "^(a+)+!$"}}))
    assert matched.passed, matched.render_failure()


@pytest.mark.parametrize("expect_error", [{"type": "Exception"}, {}])
def test_a_backtracking_step_expect_pattern_fails_the_step_whatever_expect_error_says(
    expect_error: dict[str, Any],
) -> None:
    data = _scenario(run=[SIXTY], expect={"error": expect_error})
    data["agents"]["main"]["model"]["script"][0]["expect"] = {"input": {"match": BACKTRACKS}}
    result = ends(lambda: run_scenario(data))
    assert not result.passed
    assert isinstance(result.error, ScriptAssertionError)
    assert str(result.error).startswith("agent 'main', script step 1: pattern '^(a|a)+$' took")
    assert [m.kind for m in result.mismatches] == ["step_expect"]


def test_a_backtracking_tool_description_pattern_fails_the_step() -> None:
    data = _scenario()
    description = {"delegate_w": {"match": "^(\\w|\\w)+$"}}
    data["agents"]["main"]["model"]["script"][0]["expect"] = {"tool_descriptions": description}
    data["agents"]["main"]["subagents"][0]["description"] = "w" * 60 + "!"
    result = ends(lambda: run_scenario(data))
    assert isinstance(result.error, ScriptAssertionError)
    assert "took longer than" in str(result.error)


def test_the_patterns_of_one_check_share_one_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two hundred turns, each with a backtracking output pattern: at 50 ms each that is
    ten seconds; the check's shared budget (patched to 0.2 s) ends it after a few."""
    from handoff_sim.scenarios._expect import _check

    monkeypatch.setattr(_check, "MAX_PATTERN_CHECK_SECONDS", 0.2)
    turns = [{"input": "go", "expect": {"output": {"match": BACKTRACKS}}}] * 200
    data = _scenario(run=turns)
    data["agents"]["main"]["model"]["script"] = [{"text": SIXTY}] * 200
    started = time.monotonic()
    result = ends(lambda: run_scenario(data))
    assert [(m.kind, m.field) for m in result.mismatches] == [("pattern", "run.0.expect.output")]
    assert time.monotonic() - started < 5  # 200 budgets of 50 ms would be 10 s


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        (r"id R-\d+", "found id R-17 here"),
        (r"^code-", "code-review"),
        (r"\.py$", "auth.py"),
        (r"\.py$", "auth.py\n"),  # $ before a final newline, as re does
        (r"(?i)HELLO", "hello"),
        (r"(?<=a)b", "ab"),
        (r"(?P<x>a)(?P=x)", "aa"),
        (r"\bword\b", "a word."),
        (r"\w+", "héllo"),  # unicode word characters
        (r"a{2,3}", "a"),
        ("", "anything"),
        (r"\d", "٣"),  # unicode digits, as re
        (r"^$", ""),
        (r"x*", "yyy"),
    ],
)
def test_ordinary_patterns_match_as_re_search_does(pattern: str, text: str) -> None:
    expected = re.search(pattern, text) is not None
    assert _patterns.search(pattern, text) is expected
    assert text_matches({"match": pattern}, text) is expected


@pytest.mark.parametrize(
    ("pattern", "fragment"),
    [
        (r"\p{L}", "bad escape \\p"),  # regex syntax, not re's: refused as the docs say
        ("(?i)a(?s)b", "global flags not at the start"),
        ("a{100000000000000000000}", "repetition number is too large"),
        ("(?:a{1000}){1000}", f"make 1000000 items, at most {MAX_PATTERN_SIZE}"),
        ("((a{100}){100}){100}", "too big"),
    ],
)
def test_a_pattern_refused_by_re_or_too_big_unrolled_is_a_load_error_at_its_key(
    pattern: str, fragment: str
) -> None:
    data = _scenario(expect={"output": {"match": pattern}})
    with pytest.raises(ScenarioFileError) as caught:
        load_dict(data)
    (problem,) = caught.value.problems
    assert problem.field == "expect.output.match"
    assert fragment in problem.message


def test_a_large_flat_repeat_is_still_accepted() -> None:
    load_dict(_scenario(expect={"output": {"match": "a{65535}|b"}}))


def test_the_million_item_pattern_file_is_refused_at_its_line_and_column() -> None:
    path = FILES / "regex_unrolled_repeats_million.yaml"
    with pytest.raises(ScenarioFileError) as caught:
        load_file(path)
    (problem,) = caught.value.problems
    assert (problem.line, problem.column, problem.field) == (10, 12, "expect.output.match")


@pytest.fixture
def default_sigint_handler() -> Iterator[None]:
    """Python's own SIGINT handler (raise KeyboardInterrupt), whatever pytest set."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.mark.usefixtures("default_sigint_handler")
def test_ctrl_c_interrupts_a_match_in_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a 30 s budget the match would run 30 s; a SIGINT 0.1 s in stops it at once."""
    monkeypatch.setattr(_patterns, "MAX_PATTERN_SECONDS", 30.0)
    timer = threading.Timer(0.1, signal.raise_signal, (signal.SIGINT,))
    started = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            run_scenario(_scenario(expect={"output": {"match": BACKTRACKS}}))
    finally:
        timer.cancel()
    assert time.monotonic() - started < 20


def test_a_match_that_takes_too_long_is_a_typed_error_naming_pattern_and_text() -> None:
    with pytest.raises(PatternTimeoutError) as caught:
        _patterns.search(BACKTRACKS, SIXTY)
    assert (caught.value.pattern, caught.value.length, caught.value.seconds) == (
        BACKTRACKS,
        61,
        FAST,
    )


@pytest.mark.slow
def test_the_command_fails_a_backtracking_file_at_the_real_budget() -> None:
    """The shipped budget (one second), in a real process under an outer limit of a
    minute; the hostile-files suite runs every such file through each front end."""
    done = subprocess.run(
        [sys.executable, "-m", "handoff_sim", "run", str(FILES / "regex_backtracking_output.yaml")],
        capture_output=True,
        text=True,
        timeout=OUTER_LIMIT,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "expect.output: pattern '^(a|a)+$' took longer than 1s on a text of 61 characters" in (
        done.stdout
    )
    assert "Traceback" not in done.stdout + done.stderr


def test_pytest_fails_a_backtracking_pattern_item_naming_the_pattern(
    pytester: pytest.Pytester,
) -> None:
    (pytester.path / "scenarios").mkdir()
    source = (FILES / "regex_backtracking_output.yaml").read_text("utf-8")
    (pytester.path / "scenarios" / "backtracking.yaml").write_text(source, "utf-8")
    result = ends(lambda: pytester.runpytest_inprocess("--handoff-scenarios", "scenarios"))
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [f"*backtracking.yaml:10: expect.output: pattern '^(a|a)+$' took longer than {FAST:g}s*"]
    )


FUZZ_CASE = """\
scenario: flink-blank-input-schema
agents:
  main:
    subagents: [{agent: reviewer, style: flink, input_schema: "  "}]
    model: {script: []}
  reviewer:
    model: {script: []}
run: [go]
expect:
  error: {type: ConfigurationError, match: '^([^k]|[^k]|[^k])+$'}
"""


def test_the_fuzzer_reads_a_backtracking_expected_error_pattern_as_not_expecting_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The case's construction error is checked against its expect.error.match; a pattern
    that takes too long (3**28 ways to read the message before its 'k', under re) cannot
    show the error was meant, so it stays a violation."""
    from handoff_sim.cli._fuzz import main as fuzz

    (tmp_path / "suite").mkdir()
    (tmp_path / "suite" / "blank.yaml").write_text(FUZZ_CASE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    arguments = ["--scenarios", "suite", "--examples", "1", "-q", "--out", "out"]
    status = ends(lambda: fuzz(arguments))
    assert status == 1
    assert "construction failed without a reason in the case" in capsys.readouterr().out
