"""What names and selects a file's scenarios, read without validating the rest.

A test collector needs each scenario's id (``name`` or ``name[variant]``), its line and
its tags, and nothing else; validating the whole file costs more than running most
scenarios. :func:`scenario_names` reads only those fields, and only when they are
written plainly (a name and ids the schema accepts, tags that may be markers, no
duplicate id): for a file the loader accepts, it names exactly the scenarios
:func:`load_file` returns. Anything else (a syntax error, a name of another type, a
refused tag) gives ``None``: the caller loads the file, whose error says what is wrong
and where.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from handoff_sim.scenarios._errors import Problem, ScenarioFileError
from handoff_sim.scenarios._load._loader import _read
from handoff_sim.scenarios._load._yaml import FieldPath, SourceMap, parse_yaml
from handoff_sim.scenarios._schema._scenario import NAME_PATTERN
from handoff_sim.scenarios._schema._types import tag_problem

__all__ = ["ScenarioName", "scenario_names"]

_NAME = re.compile(NAME_PATTERN)


@dataclass(frozen=True, slots=True)
class ScenarioName:
    """One scenario (one matrix variant) of a file, as a test item is named and selected."""

    id: str
    name: str
    line: int
    tags: tuple[str, ...]
    description: str


def scenario_names(path: Path) -> list[ScenarioName] | None:
    """The scenarios of ``path`` in the loader's order, or ``None`` when only loading the
    file can tell (and word what is wrong with it)."""
    try:
        text = _read(path)
    except ScenarioFileError:
        return None
    parsed = parse_yaml(text, str(path))
    if isinstance(parsed, Problem) or parsed.problems or not isinstance(parsed.data, dict):
        return None
    data: dict[str, Any] = parsed.data
    entries: list[tuple[FieldPath, Any]] = [((), data)]
    if "scenarios" in data and "scenario" not in data:
        listed = data["scenarios"]
        if not isinstance(listed, list) or not listed:
            return None
        entries = [(("scenarios", i), item) for i, item in enumerate(listed)]
    found: list[ScenarioName] = []
    for prefix, item in entries:
        named = _names(item, parsed.source, prefix)
        if named is None:
            return None
        found += named
    if len({n.id for n in found}) != len(found):
        return None  # the loader words a duplicate name
    return found


def _names(item: Any, source: SourceMap, prefix: FieldPath) -> list[ScenarioName] | None:
    """One scenario's items (one per matrix variant), or ``None`` when a field is not plain."""
    if not isinstance(item, dict):
        return None
    name, tags = item.get("scenario"), item.get("tags", [])
    description = item.get("description", "")
    if not (isinstance(name, str) and _NAME.fullmatch(name) and isinstance(description, str)):
        return None
    if not isinstance(tags, list) or any(tag_problem(tag) is not None for tag in tags):
        return None
    variants = _variant_ids(item.get("matrix"))
    if variants is None:
        return None
    line = source.position((*prefix, "scenario"))[0]
    return [
        ScenarioName(
            id=name if variant is None else f"{name}[{variant}]",
            name=name,
            line=line,
            tags=tuple(tags),
            description=description,
        )
        for variant in variants
    ]


def _variant_ids(matrix: Any) -> list[str | None] | None:
    """The matrix's variant ids (``[None]``: no matrix), or ``None`` when one is not plain."""
    if matrix is None:
        return [None]
    if not isinstance(matrix, list) or not matrix:
        return None
    ids = [variant.get("id") if isinstance(variant, dict) else None for variant in matrix]
    if not all(isinstance(i, str) and _NAME.fullmatch(i) for i in ids):
        return None
    return list(ids)
