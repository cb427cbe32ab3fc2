"""Every test starts outside CI, whatever machine runs the suite.

The plugin's record modes refuse to record when the ``CI`` variable is set, and pytest
shortens its own summaries by it: a test about either sets ``CI`` itself.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

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


@pytest.fixture(autouse=True)
def _no_default_loop_left_open() -> Iterator[None]:
    """Close the thread's default event loop a framework's sync entry point left open.

    pydantic-ai's ``run_sync`` and openai-agents' ``Runner.run_sync`` keep a default loop
    on purpose; left behind, it is garbage-collected during some later test, whose run
    then fails on the loop's ``ResourceWarning`` under ``filterwarnings = error``.
    """
    yield
    policy = asyncio.get_event_loop_policy()
    local = getattr(policy, "_local", None)  # asyncio's default policy; reading it makes no loop
    loop = getattr(local, "_loop", None)
    if isinstance(loop, asyncio.AbstractEventLoop) and not loop.is_running():
        policy.set_event_loop(None)
        if not loop.is_closed():
            loop.close()
