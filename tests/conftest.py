"""Every test starts outside CI, whatever machine runs the suite.

The plugin's record modes refuse to record when the ``CI`` variable is set, and pytest
shortens its own summaries by it: a test about either sets ``CI`` itself.
"""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _outside_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
