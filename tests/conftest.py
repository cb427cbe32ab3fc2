"""Every test starts outside CI, whatever machine runs the suite.

The plugin's record modes refuse to record when the ``CI`` variable is set, and pytest
shortens its own summaries by it: a test about either sets ``CI`` itself.
"""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _outside_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)


# langsmith (which LangChain brings) registers a pytest plugin that takes about a second of
# processor time to import, in every pytest a test starts (a subprocess, each xdist worker).
# No test here is about it, so the sessions a pytester runs leave it out.
FOREIGN_PLUGINS_OFF = "-p no:langsmith_plugin"


@pytest.fixture(autouse=True)
def _pytester_sessions_without_foreign_plugins(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    if "pytester" in request.fixturenames:
        request.getfixturevalue("pytester")  # it clears PYTEST_ADDOPTS when it starts
        monkeypatch.setenv("PYTEST_ADDOPTS", FOREIGN_PLUGINS_OFF)
