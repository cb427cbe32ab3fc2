"""Stash keys the plugin's modules share; imports nothing but pytest."""

from __future__ import annotations

from pathlib import Path

import pytest

__all__ = ["BROKEN_FILES", "SCENARIO_DIRS"]

#: The resolved scenario directories of this session (CLI > ini).
SCENARIO_DIRS = pytest.StashKey[tuple[Path, ...]]()

#: How many scenario files failed to collect in this session.
BROKEN_FILES = pytest.StashKey[int]()
