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
