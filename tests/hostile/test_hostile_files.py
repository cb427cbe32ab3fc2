"""Every hostile scenario file through ``handoff-sim validate``, ``handoff-sim run`` and pytest.

The corpus is ``tests/hostile/files/`` (each file says on its first line what it attacks)
plus what git cannot store, made here: links that loop or point nowhere, a directory
link back to its parent, a second link to a file, and a FIFO. Each front end runs once
over the whole corpus, in a subprocess limited to 2 GiB of address space and 30 seconds
(``run`` and pytest with a user pattern's time budget cut to :data:`QUICK_PATTERN_SECONDS`),
and must:

* print no Python traceback;
* exit with exactly the code its verdicts call for: ``validate`` 0 or 2, ``run`` 0, 1 or
  2, pytest 0, 1 or 2 (a refused scenario file is a collection error that does not stop
  the other files, and ends the session with 2, as ``handoff-sim run`` does);
* give every refused file a ``path:line:col: field: message`` line, and give every other
  file its verdict (``ok``, ``PASS``/``FAIL``, a test item);
* agree: pytest refuses exactly the files ``validate`` refuses, with the same lines, and
  ``run`` prints them too.
"""

from __future__ import annotations

import os
import re
import resource
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import FOREIGN_PLUGINS_OFF

FILES = Path(__file__).parent / "files"
SUFFIXES = (".yaml", ".yml")
MEMORY_LIMIT = 2 * 1024**3  # bytes of address space for each subprocess
TIME_LIMIT = 30.0  # seconds for each subprocess
TRACEBACK = "Traceback (most recent call last)"
# A user pattern's time budget in the front ends started here: the files that backtrack
# catastrophically fail at it as they do at the real one (a second each, which
# test_bounded_patterns.py pins through the command), in a twentieth of the time.
QUICK_PATTERN_SECONDS = 0.05
# Runs ``python -m <module> <args>`` with that budget (sys.argv: the module, then its args).
QUICK_PATTERNS = (
    "import runpy, sys; from handoff_sim import _patterns; "
    f"_patterns.MAX_PATTERN_SECONDS = {QUICK_PATTERN_SECONDS}; sys.argv = sys.argv[1:]; "
    "runpy.run_module(sys.argv[0], run_name='__main__', alter_sys=True)"
)

# What the corpus copy adds: name -> what it must be reported as (None: loaded once, silently).
MADE_HERE = {
    "made_loop_a.yaml": "symlink loop",
    "made_loop_b.yaml": "symlink loop",
    "made_dangling.yaml": "dangling symlink",
    "made_fifo.yaml": "not a regular file",
    "made_dir/up": "symlink loop",
    "made_alias.yaml": None,
}


def corpus_files() -> list[Path]:
    return sorted(p for p in FILES.rglob("*") if p.suffix in SUFFIXES and p.is_file())


def make_corpus(root: Path) -> Path:
    """A copy of ``files/`` plus the entries of :data:`MADE_HERE`."""
    corpus = root / "corpus"
    shutil.copytree(FILES, corpus, symlinks=True)
    os.symlink("made_loop_b.yaml", corpus / "made_loop_a.yaml")
    os.symlink("made_loop_a.yaml", corpus / "made_loop_b.yaml")
    os.symlink("no_such_file.yaml", corpus / "made_dangling.yaml")
    os.mkfifo(corpus / "made_fifo.yaml")
    (corpus / "made_dir").mkdir()
    os.symlink("..", corpus / "made_dir" / "up")
    os.symlink(corpus_files()[0].relative_to(FILES), corpus / "made_alias.yaml")
    return corpus


def candidates(corpus: Path) -> list[Path]:
    """Every path of the corpus that a front end must give a verdict on (links included)."""
    found = [
        p for p in corpus.rglob("*") if p.suffix in SUFFIXES and (p.is_symlink() or not p.is_dir())
    ]
    found.append(corpus / "made_dir" / "up")
    return sorted(p for p in found if p.relative_to(corpus).as_posix() != "made_alias.yaml")


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


@dataclass
class Outcome:
    """What a front end printed and how it exited."""

    name: str
    code: int
    out: str
    err: str

    @property
    def text(self) -> str:
        return self.out + self.err

    def error_lines(self, path: Path) -> list[str]:
        """The ``path:line:col: field: message`` lines about ``path``."""
        pattern = re.compile(rf"^{re.escape(str(path))}:\d+:\d+: \S.*$", re.MULTILINE)
        return pattern.findall(self.text)


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))}
    env.update(PYTHONUNBUFFERED="1", COLUMNS="200", PYTHONDONTWRITEBYTECODE="1")
    return env


def run_all(commands: dict[str, list[str]], cwd: Path) -> Iterator[Outcome]:
    """Start every command at once (each under the limits), then collect each."""
    started = {
        name: subprocess.Popen(
            command,
            cwd=cwd,
            env=_environment(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=_limit,
        )
        for name, command in commands.items()
    }
    try:
        for name, process in started.items():
            try:
                out, err = process.communicate(timeout=TIME_LIMIT)
            except subprocess.TimeoutExpired:
                process.kill()
                out, err = process.communicate()
                tail = "\n".join((out + err).splitlines()[-15:])
                pytest.fail(f"{name} ran longer than {TIME_LIMIT:g}s; its last lines:\n{tail}")
            yield Outcome(name, process.returncode, out, err)
    finally:
        for process in started.values():
            if process.poll() is None:
                process.kill()
                process.wait()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_corpus(tmp_path_factory.mktemp("hostile"))


@pytest.fixture(scope="module")
def outcomes(corpus: Path) -> dict[str, Outcome]:
    """Each front end, run once over the whole corpus (all three at the same time)."""
    root = corpus.parent
    (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")  # no ini from above
    quick = [sys.executable, "-c", QUICK_PATTERNS]
    commands = {
        "validate": [sys.executable, "-m", "handoff_sim", "validate", str(corpus)],
        "run": [*quick, "handoff_sim", "run", "-q", str(corpus)],
        "pytest": [
            *quick, "pytest", "-c", str(root / "pytest.ini"),
            "--rootdir", str(root), "-p", "no:cacheprovider", "-p", "no:hypothesispytest",
            *FOREIGN_PLUGINS_OFF.split(),
            "--handoff-scenarios", str(corpus), "--tb=native", "-q", "-rfE",
        ],
    }  # fmt: skip
    return {o.name: o for o in run_all(commands, root)}


def refused_by(outcome: Outcome, corpus: Path) -> dict[Path, list[str]]:
    return {p: lines for p in candidates(corpus) if (lines := outcome.error_lines(p))}


def test_every_corpus_file_says_what_it_attacks() -> None:
    silent = [p.name for p in corpus_files() if not p.read_bytes().startswith(b"#")]
    assert corpus_files()
    assert silent == [], "a hostile file starts with a comment saying what it attacks"


@pytest.mark.parametrize("front_end", ["validate", "run", "pytest"])
@pytest.mark.slow
def test_no_front_end_prints_a_traceback(outcomes: dict[str, Outcome], front_end: str) -> None:
    outcome = outcomes[front_end]
    assert TRACEBACK not in outcome.text, outcome.text[-4000:]


@pytest.mark.slow
def test_validate_gives_every_file_a_verdict_and_exits_2_for_refusals(
    outcomes: dict[str, Outcome], corpus: Path
) -> None:
    validate = outcomes["validate"]
    refused = refused_by(validate, corpus)
    accepted = {p for p in candidates(corpus) if f"ok {p}: " in validate.out}
    assert set(refused) & accepted == set()
    assert set(candidates(corpus)) - set(refused) - accepted == set()
    assert validate.code == (2 if refused else 0)
    assert f"{corpus}/made_alias.yaml" not in validate.text


@pytest.mark.slow
def test_validate_reports_what_the_corpus_copy_adds(
    outcomes: dict[str, Outcome], corpus: Path
) -> None:
    refused = refused_by(outcomes["validate"], corpus)
    for name, what in MADE_HERE.items():
        path = corpus / name
        if what is None:
            assert path not in refused
            assert str(path) not in outcomes["validate"].text
        else:
            assert any(what in line for line in refused.get(path, [])), (name, refused.get(path))
    unknown = refused[corpus / "unknown_model_kind.yaml"]
    assert any("kind: unknown model kind 'replay'" in line for line in unknown)


@pytest.mark.slow
def test_run_agrees_with_validate_and_exits_for_its_worst_verdict(
    outcomes: dict[str, Outcome], corpus: Path
) -> None:
    validate, run = outcomes["validate"], outcomes["run"]
    refused = refused_by(validate, corpus)
    refused_by_run = refused_by(run, corpus)
    for path, lines in refused.items():
        assert refused_by_run.get(path) == lines, path
    verdicts = re.findall(r"^(PASS|FAIL) (\S+?)::", run.out, re.MULTILINE)
    ran = {Path(where) for _, where in verdicts}
    late = {p for p in candidates(corpus) if p not in refused and p not in ran}
    for path in late:  # a file refused only when its run starts: still at its line
        assert re.search(rf"^{re.escape(str(path))}:\d+(:\d+)?: ", run.err, re.MULTILINE), path
    errors = len(re.findall(r"^\S+:\d+(:\d+)?: ", run.err, re.MULTILINE))
    expected = 2 if errors else (1 if any(v == "FAIL" for v, _ in verdicts) else 0)
    assert run.code == expected, run.text[-3000:]


@pytest.mark.slow
def test_pytest_refuses_exactly_what_validate_refuses_without_interrupting(
    outcomes: dict[str, Outcome], corpus: Path
) -> None:
    validate, session = outcomes["validate"], outcomes["pytest"]
    refused = refused_by(validate, corpus)
    collected_errors = {  # at collection, or at the setup of the file's items
        corpus.parent / name
        for name in re.findall(r"^ERROR (\S+?)(?:::\S+)?(?: - .*)?$", session.out, re.MULTILINE)
    }
    assert collected_errors == set(refused), session.out[-3000:]
    root = corpus.parent  # pytest names files from its rootdir, as in node ids
    for path, lines in refused.items():
        relative = [line.removeprefix(f"{root}/") for line in lines]
        assert session.error_lines(path.relative_to(root)) == relative, path
    failed = re.search(r"\b\d+ (failed|errors?)\b", session.out.splitlines()[-1])
    expected = 2 if refused else (1 if failed else 0)
    assert session.code == expected, session.text[-3000:]
