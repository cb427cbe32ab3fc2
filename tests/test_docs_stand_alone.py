"""Shipped code and docs stand alone: no requirement codes, no paths outside the repository.

The product contract names its items with codes (``S7``, ``E3``, ``§11``) and the project's
research notes live outside the repository; neither ships. Docstrings, comments, messages,
docs and the bundled scenarios say what they mean in words. Tests may keep the codes (their
names point at the contract item they check), so ``tests/`` is not scanned.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

PY_DIRS = ("handoff_sim", "pytest_handoff", "bench")
TEXT_GLOBS = (
    "README.md",
    "CHANGELOG.md",
    "docs/*.md",
    "bench/*.md",
    "scenarios/**/*.md",
    "scenarios/**/*.yaml",
    "scenarios/**/*.txt",
)

CODE = re.compile(
    r"\bSPEC\b|§"  # the contract by name, or a section of it
    r"|(?<![\w.-])[SRFKEVMYT]\d{1,2}[a-z]?(?![\w.-])"  # an item code: S7, E3, K1–K6
)
OUTSIDE = re.compile(r"shared/(?:reference|seeds)|\.\./shared|/work/|RESULTS\.md")
MD_LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")
DOC_PATH = re.compile(r"(?<![\w./-])((?:docs|scenarios|bench|examples)/[\w./-]*\.(?:md|svg))\b")
MODULE = re.compile(r"`([\w/.]+(?:\.py|/))`")
PACKAGES = ("handoff_sim", "pytest_handoff")


def _shipped_text_files() -> list[Path]:
    files = {p for pattern in TEXT_GLOBS for p in ROOT.glob(pattern)}
    return sorted(p for p in files if p.is_file())


def _shipped_python_files() -> list[Path]:
    return sorted(p for d in PY_DIRS for p in (ROOT / d).rglob("*.py"))


def _prose(path: Path) -> Iterator[tuple[int, str]]:
    """The comments and string literals of a Python file, with their line numbers."""
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
    for tok in tokens:
        if tok.type == tokenize.COMMENT or (tok.type == tokenize.STRING and " " in tok.string):
            yield tok.start[0], tok.string  # a string without a space is a name, not prose


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    if path.suffix == ".py":
        yield from _prose(path)
    else:
        yield from enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)


def _citations(paths: list[Path]) -> list[str]:
    found = []
    for path in paths:
        rel = path.relative_to(ROOT).as_posix()
        for line_no, text in _lines(path):
            for m in [*CODE.finditer(text), *OUTSIDE.finditer(text)]:
                found.append(f"{rel}:{line_no}: {m.group()!r} in {text.strip()[:90]!r}")
    return found


@pytest.mark.slow
def test_shipped_python_cites_no_requirement_code_and_no_outside_path() -> None:
    assert _citations(_shipped_python_files()) == []


def test_docs_and_bundled_scenarios_cite_no_requirement_code_and_no_outside_path() -> None:
    assert _citations(_shipped_text_files()) == []


def _inside_repo(target: Path) -> bool:
    return target.resolve().is_relative_to(ROOT) and target.exists()


def _link_base(path: Path) -> Path:
    """Links in the benchmark page's template are relative to where it is rendered: docs/."""
    return ROOT / "docs" if path.name == "benchmarks_template.md" else path.parent


def test_every_relative_link_in_the_docs_reaches_a_file_of_the_repository() -> None:
    broken = []
    for path in (p for p in _shipped_text_files() if p.suffix == ".md"):
        for line_no, text in _lines(path):
            for link in MD_LINK.findall(text):
                if re.match(r"[a-z]+:", link):  # https:, mailto:
                    continue
                if not _inside_repo(_link_base(path) / link):
                    broken.append(f"{path.relative_to(ROOT)}:{line_no}: {link}")
    assert broken == []


@pytest.mark.slow
def test_every_doc_named_in_docs_and_docstrings_exists() -> None:
    missing = []
    for path in [*_shipped_text_files(), *_shipped_python_files()]:
        for line_no, text in _lines(path):
            for named in DOC_PATH.findall(text):
                if not _inside_repo(ROOT / named):
                    missing.append(f"{path.relative_to(ROOT)}:{line_no}: {named}")
    assert missing == []


def _module_exists(named: str) -> bool:
    """A path from the top (``handoff_sim/trace.py``) or the end of one in a package (``load/``)."""
    tail = "/" + named.rstrip("/")
    shipped = (p for package in PACKAGES for p in (ROOT / package).rglob("*"))
    return (ROOT / named).exists() or any(
        ("/" + p.relative_to(ROOT).as_posix()).endswith(tail) for p in shipped
    )


def test_every_module_the_architecture_page_names_exists() -> None:
    page = ROOT / "docs" / "architecture.md"
    named = MODULE.findall(page.read_text(encoding="utf-8"))
    assert len(named) > 40, "the page should map the modules"
    assert [n for n in named if not _module_exists(n)] == []


@pytest.mark.parametrize(
    "text",
    [
        "see SPEC §10",
        "depth is bounded (S11)",
        "the dispatcher style (K1–K6)",
        "as R5 says",
        "notes in shared/reference/ai4j-behaviour.md",
        "see ../shared/seeds",
    ],
)
def test_the_scan_flags_codes_and_outside_paths(text: str) -> None:
    assert CODE.search(text) or OUTSIDE.search(text)


@pytest.mark.parametrize(
    "text",
    ["SPAN_KIND_UNSPECIFIED", "call t1 then T1a2", "handoff-sim 0.2", "E2E-ready", "docs/x.md"],
)
def test_the_scan_leaves_ordinary_words_alone(text: str) -> None:
    assert not CODE.search(text)
    assert not OUTSIDE.search(text)
