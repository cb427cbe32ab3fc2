"""Fixtures of the plugin's pytester tests: write scenario files, pick serial or xdist."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import hypothesis.internal.observability  # noqa: F401
import pytest

import handoff_sim.scenarios  # noqa: F401
import pytest_handoff._builders
import pytest_handoff._collection
import pytest_handoff._runner
import pytest_handoff._snapshot  # noqa: F401

# pytester restores sys.modules after every in-process run, so a module first imported
# inside a run is imported (and assertion-rewritten) again by the next one. Importing
# them here once keeps each run fast; hypothesis' own plugin imports it in every session.

Write = Callable[..., Path]


@pytest.fixture
def write_scenario(pytester: pytest.Pytester) -> Write:
    """Write a scenario file under ``scenarios/`` (or ``folder``) of the test project."""

    def write(name: str, text: str, folder: str = "scenarios") -> Path:
        path = pytester.path / folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    return write


@pytest.fixture(autouse=True)
def _not_an_xdist_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    """Inner sessions inherit the environment: when this suite runs under xdist, syrupy
    would take an in-process inner session for a worker and hold back its report."""
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
        monkeypatch.delenv(name, raising=False)
