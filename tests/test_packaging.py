"""What the package declares to installers and indexes (pyproject.toml)."""

from __future__ import annotations

import tomllib
from pathlib import Path

PROJECT = tomllib.loads(
    (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text(encoding="utf-8")
)["project"]


def test_the_package_is_listed_as_a_pytest_plugin() -> None:
    """PyPI and pytest's plugin list find plugins by this classifier and the pytest11 entry."""
    assert "Framework :: Pytest" in PROJECT["classifiers"]
    assert PROJECT["entry-points"]["pytest11"] == {"handoff": "pytest_handoff.plugin"}


def test_the_classifiers_match_the_declared_python_and_licence() -> None:
    classifiers = PROJECT["classifiers"]
    assert PROJECT["requires-python"] == ">=3.11"
    assert "Programming Language :: Python :: 3.11" in classifiers
    assert "License :: OSI Approved :: MIT License" in classifiers
    assert PROJECT["license"] == {"text": "MIT"}


def test_the_version_has_one_source_and_heads_the_changelog() -> None:
    """pyproject reads the version from the package, and the changelog's newest entry is it."""
    import re

    import handoff_sim

    root = Path(__file__).resolve().parents[1]
    whole = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in PROJECT
    assert PROJECT["dynamic"] == ["version"]
    source = whole["tool"]["setuptools"]["dynamic"]["version"]
    assert source == {"attr": "handoff_sim._version.__version__"}
    changelog = (root / "CHANGELOG.md").read_text(encoding="utf-8")
    newest = re.search(r"^## (\S+)", changelog, re.MULTILINE)
    assert newest is not None
    released = handoff_sim.__version__.split(".dev")[0]
    assert newest.group(1) == released, (newest.group(1), handoff_sim.__version__)
