"""Stash keys the plugin's modules share; imports nothing but pytest."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from handoff_sim.scenarios.load import Discovery

__all__ = ["BROKEN_FILES", "DISCOVERY", "SCENARIO_DIRS"]

#: The resolved scenario directories of this session (CLI > ini).
SCENARIO_DIRS = pytest.StashKey[tuple[Path, ...]]()

#: How many scenario files failed to collect in this session.
BROKEN_FILES = pytest.StashKey[int]()

#: The scenario files of the scenario directories (each once) and what is wrong with them.
DISCOVERY: pytest.StashKey[Discovery] = pytest.StashKey()
