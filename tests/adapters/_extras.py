"""Whether a framework extra is installed, found without importing the framework.

Importing openai-agents or pydantic-ai takes seconds, and every pytest-xdist worker
collects every test module: the adapter tests ask for the package's import spec while
collecting and import the framework only in the tests that run it.
"""

from __future__ import annotations

import importlib.util
import sys

import pytest


def installed(module: str) -> bool:
    """``module`` can be imported (``sys.modules[module] = None`` hides it, like an uninstall)."""
    return importlib.util.find_spec(module) is not None


def needs(extra: str) -> str:
    """The reason a test skips without ``extra``."""
    return f"needs the {extra!r} extra: pip install 'handoff-sim[{extra}]'"


def hide(monkeypatch: pytest.MonkeyPatch, framework: str, adapter: str) -> None:
    """Make ``framework`` uninstalled for this test, in this process.

    ``sys.modules[framework] = None`` makes its import fail as in a fresh interpreter
    without it; ``adapter`` (which may have been imported by an earlier test) is dropped
    so that importing it runs its extra check again. Both come back after the test.
    """
    monkeypatch.setitem(sys.modules, framework, None)
    monkeypatch.delitem(sys.modules, adapter, raising=False)
