"""Flink input types named by import path (``package.module:Name``), imported when built.

Loading a file only records each reference (its syntax is checked by the schema): no
module a scenario file names is imported by loading it, so ``handoff-sim validate`` runs
no code of the file's. The type is imported the first time the scenario is built (run,
rendered, collected and run by pytest), with the scenario file's directory and its root
directory (the nearest one above holding ``pyproject.toml``, ``setup.cfg``, ``setup.py``,
``tox.ini``, ``pytest.ini`` or ``.git``) in front of ``sys.path``, for that import only,
as input filters are. A reference that does not resolve is a ``ConfigurationError``
naming ``path:line:col`` and its ``input_type`` key: the run's error, which the scenario
may expect.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from handoff_sim._errors._families import ConfigurationError
from handoff_sim._references import resolve_reference
from handoff_sim.scenarios._load._yaml import FieldPath
from handoff_sim.scenarios._schema import ScenarioSpec, SubAgentSpec

__all__ = ["InputTypes", "input_type_places", "resolve_input_type", "search_path"]

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


class InputTypes(Mapping[str, object]):
    """The input types of one scenario by reference, each imported on its first lookup.

    ``places`` gives each reference where it is first written (``path:line:col: field``)
    for the error of one that does not resolve; the outcome, type or error, is kept.
    """

    def __init__(self, places: Mapping[str, str], scenario_file: Path | None = None) -> None:
        self._places = dict(places)
        self._file = scenario_file
        self._found: dict[str, object] = {}
        self._failed: dict[str, ConfigurationError] = {}

    def __getitem__(self, reference: str) -> object:
        if reference not in self._places:
            raise KeyError(reference)
        if reference not in self._found and reference not in self._failed:
            self._resolve(reference)
        failed = self._failed.get(reference)
        if failed is not None:
            raise ConfigurationError(str(failed)) from failed.__cause__
        return self._found[reference]

    def _resolve(self, reference: str) -> None:
        search = search_path(self._file) if self._file is not None else ()
        try:
            self._found[reference] = resolve_input_type(reference, search)
        except ConfigurationError as exc:
            located = ConfigurationError(f"{self._places[reference]}: {exc}")
            located.__cause__ = exc.__cause__
            self._failed[reference] = located

    def __contains__(self, reference: object) -> bool:
        return reference in self._places  # never imports

    def __iter__(self) -> Iterator[str]:
        return iter(self._places)

    def __len__(self) -> int:
        return len(self._places)

    def __repr__(self) -> str:
        return f"InputTypes({list(self._places)!r})"


def input_type_places(spec: ScenarioSpec) -> dict[str, FieldPath]:
    """Each ``input_type`` reference of the scenario's Flink mounts, at its first key."""
    places: dict[str, FieldPath] = {}
    for name, agent in spec.agents.items():
        for index, mount in agent.entries():
            if not isinstance(mount, SubAgentSpec) or mount.input_type is None:
                continue
            if mount.style != "flink":
                continue  # reported as a misused key
            places.setdefault(mount.input_type, ("agents", name, "subagents", index, "input_type"))
    return places


def resolve_input_type(reference: str, search: Sequence[Path] = ()) -> object:
    """What ``package.module:Name`` names; ConfigurationError saying why it cannot."""
    try:
        return resolve_reference(reference, search, ConfigurationError)
    except ConfigurationError as exc:
        raise ConfigurationError(f"cannot resolve input type '{reference}': {exc}") from (
            exc.__cause__
        )
