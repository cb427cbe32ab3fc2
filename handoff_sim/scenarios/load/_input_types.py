"""Flink input types named by import path (``package.module:Name``), resolved at load time.

A type is imported with the scenario file's directory and its root directory (the
nearest one above holding ``pyproject.toml``, ``setup.cfg``, ``setup.py``, ``tox.ini``,
``pytest.ini`` or ``.git``) in front of ``sys.path``, for that import only, as input
filters are. A reference that does not resolve is a :class:`LoadFailure`: an error the
scenario may expect, else a load problem at its ``input_type`` key.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from handoff_sim._references import resolve_reference
from handoff_sim.errors import ConfigurationError
from handoff_sim.scenarios.load._agent_types import LoadFailure
from handoff_sim.scenarios.schema import ScenarioSpec, SubAgentSpec

__all__ = ["InputTypes", "load_input_types", "resolve_input_type", "search_path"]

InputTypes = dict[str, object]
_ROOT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", "tox.ini", "pytest.ini", ".git")


def search_path(scenario_file: Path) -> tuple[Path, ...]:
    """The scenario file's directory, then its root directory when that is another one."""
    here = scenario_file.parent.resolve()
    root = next((d for d in (here, *here.parents) if _is_root(d)), None)
    return (here,) if root is None or root == here else (here, root)


def _is_root(directory: Path) -> bool:
    try:
        return any((directory / marker).exists() for marker in _ROOT_MARKERS)
    except OSError:  # a directory that cannot be looked into is not the root
        return False


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
