"""Flink input types named by import path (``package.module:Name``), resolved at load time.

A type is imported with the scenario file's directory and its root directory (the
nearest one above holding ``pyproject.toml``, ``setup.cfg``, ``setup.py``, ``tox.ini``,
``pytest.ini`` or ``.git``) in front of ``sys.path``, for that import only, as input
filters are. A reference that does not resolve is a :class:`LoadFailure`: an error the
scenario may expect, else a load problem at its ``input_type`` key.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Sequence
from pathlib import Path

from handoff_sim._references import resolve_reference
from handoff_sim.errors import ConfigurationError
from handoff_sim.scenarios.load._agent_types import LoadFailure
from handoff_sim.scenarios.schema import ScenarioSpec, SubAgentSpec

__all__ = ["InputTypes", "load_input_types", "resolve_input_type", "search_path"]

InputTypes = dict[str, object]
_ROOT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", "tox.ini", "pytest.ini", ".git")
_ABSENT = (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP)  # as pathlib tells "absent"
_ABSENT_WINDOWS = (21, 123, 1921)  # not ready, invalid name, cannot access (link loop)


def search_path(scenario_file: Path) -> tuple[Path, ...]:
    """The scenario file's directory, then its root directory when that is another one."""
    here = scenario_file.parent.resolve()
    root = _root_above(str(here))
    return (here,) if root is None or root == str(here) else (here, Path(root))


def _root_above(directory: str) -> str | None:
    """The nearest of ``directory`` (absolute, resolved) and its parents holding a root
    marker; walked on path text, once per built scenario, so it makes no ``Path`` objects."""
    while True:
        if _is_root(directory):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def _is_root(directory: str) -> bool:
    try:
        return any(_exists(os.path.join(directory, marker)) for marker in _ROOT_MARKERS)
    except OSError:  # a directory that cannot be looked into is not the root
        return False


def _exists(path: str) -> bool:
    """``Path(path).exists()``: False when there is nothing there, another failure raises."""
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno in _ABSENT or getattr(exc, "winerror", None) in _ABSENT_WINDOWS:
            return False
        raise
    except ValueError:  # a NUL in the name: nothing can be there
        return False
    return True


def load_input_types(
    spec: ScenarioSpec, scenario_file: Path
) -> tuple[InputTypes, list[LoadFailure]]:
    """Every ``input_type`` of the scenario's Flink mounts by reference, and what failed."""
    found: InputTypes = {}
    failures: list[LoadFailure] = []
    search: tuple[Path, ...] | None = None  # looked up for the first reference only
    for name, agent in spec.agents.items():
        for index, mount in agent.entries():
            if not isinstance(mount, SubAgentSpec) or mount.input_type is None:
                continue
            if mount.style != "flink":
                continue  # reported as a misused key
            reference = mount.input_type
            if reference in found:
                continue
            search = search_path(scenario_file) if search is None else search
            try:
                found[reference] = resolve_input_type(reference, search)
            except ConfigurationError as exc:
                at = ("agents", name, "subagents", index, "input_type")
                failures.append(LoadFailure(at, exc))
    return found, failures


def resolve_input_type(reference: str, search: Sequence[Path] = ()) -> object:
    """What ``package.module:Name`` names; ConfigurationError saying why it cannot."""
    try:
        return resolve_reference(reference, search, ConfigurationError)
    except ConfigurationError as exc:
        raise ConfigurationError(f"cannot resolve input type '{reference}': {exc}") from (
            exc.__cause__
        )
