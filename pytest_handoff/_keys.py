"""Stash keys the plugin's modules share; imports nothing but pytest."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from handoff_sim.scenarios._load import Discovery
    from pytest_handoff._execute import Outcome

__all__ = ["BROKEN_FILES", "DISCOVERY", "OUTCOMES", "SCENARIO_DIRS"]

#: The resolved scenario directories of this session (CLI > ini).
SCENARIO_DIRS = pytest.StashKey[tuple[Path, ...]]()

#: How many scenario files failed to collect in this session.
BROKEN_FILES = pytest.StashKey[int]()

#: The scenario files of the scenario directories (each once) and what is wrong with them.
DISCOVERY: pytest.StashKey[Discovery] = pytest.StashKey()

#: On a test item: the outcome of each scenario the test ran, in order (an item runs one).
OUTCOMES: pytest.StashKey[list[Outcome]] = pytest.StashKey()
