"""Every hostile file through ``handoff-sim render`` (each format) and ``handoff-sim check``.

``test_hostile_files.py`` runs ``validate``, ``run`` and pytest over the corpus; this runs
the two commands that take one file at a time. Both go through one interpreter per
command, limited to 2 GiB of address space as the other front ends are (and in time), which
calls the command's ``main`` once per file and reports each exit code and what it
printed. Each call must end with an exit code the command documents, print no
traceback, and send no control character (other than a line break) to the terminal.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hostile.test_hostile_files import (
    FILES,
    MEMORY_LIMIT,
    QUICK_PATTERN_SECONDS,
    TIME_LIMIT,
    TRACEBACK,
    corpus_files,
)

# Both commands run over the whole corpus in a limited interpreter.
pytestmark = pytest.mark.slow
RENDER_FORMATS = ("text", "tree", "mermaid", "jsonl")
# One interpreter serves every file of a command, so its limit is the per-file limit's
# generous multiple: a file that hung would still exceed it, a busy machine would not.
OUTER_LIMIT = TIME_LIMIT * 6
# Files that spend a pattern's whole time budget (QUICK_PATTERN_SECONDS here, as in
# test_hostile_files.py) run in one format only, as does the deepest YAML: what they attack
# is the matching or the parser, which every format shares.
ONE_FORMAT = ("regex_backtracking_", "real_clock_step_expect_backtracking", "yaml_nested_1000")
# Anything a terminal acts on: C0 and C1 controls but the line break, line and paragraph
# separators, bidi controls and lone surrogates (printed as escapes instead).
RAW_CONTROL = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)

# Calls main() of the command line once per argument list and prints one JSON line each.
DRIVER = r"""
import contextlib, io, json, resource, sys, traceback
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
from handoff_sim import _patterns
from handoff_sim.cli import main
_patterns.MAX_PATTERN_SECONDS = {quick}
for argv in json.loads(sys.stdin.read()):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
        except BaseException:
            code = "escaped"
            err.write(traceback.format_exc())
    text = (out.getvalue() + err.getvalue()).encode("utf-8", "surrogateescape")
    print(json.dumps([argv, code, text.decode("utf-8", "replace")]), flush=True)
"""


def _drive(calls: list[list[str]]) -> list[tuple[list[str], object, str]]:
    """Run every call in one limited interpreter; each call's argv, exit code and output."""
    process = subprocess.run(
        [sys.executable, "-c", DRIVER.format(limit=MEMORY_LIMIT, quick=QUICK_PATTERN_SECONDS)],
        input=json.dumps(calls),
        capture_output=True,
        text=True,
        timeout=OUTER_LIMIT,
        env={"PYTHONUNBUFFERED": "1", "COLUMNS": "200", "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert process.returncode == 0, process.stderr[-4000:]
    return [tuple(json.loads(line)) for line in process.stdout.splitlines()]  # type: ignore[misc]


def _trace_files() -> list[Path]:
    return sorted(p for p in FILES.rglob("*") if p.suffix in (".json", ".jsonl"))


@pytest.fixture(scope="module")
def rendered() -> list[tuple[list[str], object, str]]:
    calls = [
        ["render", str(path), "--format", form]
        for path in corpus_files()
        for form in (RENDER_FORMATS[:1] if path.name.startswith(ONE_FORMAT) else RENDER_FORMATS)
    ]
    return _drive(calls)


@pytest.fixture(scope="module")
def checked() -> list[tuple[list[str], object, str]]:
    return _drive([["check", str(path)] for path in _trace_files()])


def test_render_gives_every_hostile_file_a_documented_exit_and_no_traceback(
    rendered: list[tuple[list[str], object, str]],
) -> None:
    assert {tuple(argv[1:2]) for argv, _, _ in rendered} == {(str(p),) for p in corpus_files()}
    wrong = [(argv, code) for argv, code, text in rendered if code not in (0, 1, 2)]
    assert wrong == []
    tracebacks = [argv for argv, _, text in rendered if TRACEBACK in text]
    assert tracebacks == []
    assert any(code == 0 for _, code, _ in rendered)
    assert any(code == 2 for _, code, _ in rendered)


def test_render_of_the_hostile_corpus_sends_no_control_character_to_the_terminal(
    rendered: list[tuple[list[str], object, str]],
) -> None:
    raw = [(argv, RAW_CONTROL.findall(text)[:3]) for argv, _, text in rendered]
    assert [entry for entry in raw if entry[1]] == []


def test_check_gives_every_hostile_trace_a_documented_exit_and_no_traceback(
    checked: list[tuple[list[str], object, str]],
) -> None:
    assert len(checked) == len(_trace_files()) >= 5
    assert [(argv, code) for argv, code, _ in checked if code not in (0, 1, 2, 5)] == []
    assert [argv for argv, _, text in checked if TRACEBACK in text] == []
    raw = [(argv, RAW_CONTROL.findall(text)[:3]) for argv, _, text in checked]
    assert [entry for entry in raw if entry[1]] == []
