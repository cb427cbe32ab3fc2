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

import yaml

from handoff_sim.scenarios._errors import Problem, ScenarioFileError
from handoff_sim.scenarios._load._loader import _read
from handoff_sim.scenarios._load._yaml import (
    LIBYAML,
    FieldPath,
    SourceMap,
    _pure_only,
    parse_yaml,
)
from handoff_sim.scenarios._load._yaml_quick import STR_TAG
from handoff_sim.scenarios._schema import NAME_PATTERN, tag_problem

__all__ = ["ScenarioName", "scenario_names"]

_NAME = re.compile(NAME_PATTERN)
_SEQ_TAG, _MAP_TAG = "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"


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
    root = _libyaml_tree(text)
    if root is not None:
        quick = _from_tree(root)
        if quick is not None:
            return quick
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


def _libyaml_tree(text: str) -> yaml.Node | None:
    """libyaml's node tree of ``text``, when libyaml and the pure parser read it alike and
    it has no alias; else ``None`` (the full reading decides)."""
    if LIBYAML is None or _pure_only(text) or ("*" in text and "&" in text):
        return None
    try:
        node: yaml.Node | None = LIBYAML(text).get_single_node()
    except Exception:  # any refusal is worded by the full reading
        return None
    return node


def _keys(node: Any) -> dict[str, Any] | None:
    """A mapping node's values by key, when every key is a text written once."""
    if type(node) is not yaml.MappingNode or node.tag != _MAP_TAG:
        return None
    found: dict[str, Any] = {}
    for key, value in node.value:
        if type(key) is not yaml.ScalarNode or key.tag != STR_TAG or key.value in found:
            return None
        found[key.value] = (key, value)
    return found


def _text(node: Any) -> str | None:
    return node.value if type(node) is yaml.ScalarNode and node.tag == STR_TAG else None


def _items(node: Any) -> list[Any] | None:
    if type(node) is not yaml.SequenceNode or node.tag != _SEQ_TAG:
        return None
    return list(node.value)


def _from_tree(root: yaml.Node) -> list[ScenarioName] | None:
    """The names read straight from libyaml's nodes (no data built), or ``None`` when a
    field is not plain text where the schema wants text."""
    top = _keys(root)
    if top is None:
        return None
    entries = [top]
    if "scenarios" in top and "scenario" not in top:
        listed = _items(top["scenarios"][1])
        if not listed:
            return None
        entries = [e for e in (_keys(item) for item in listed) if e is not None]
        if len(entries) != len(listed):
            return None
    found: list[ScenarioName] = []
    for entry in entries:
        named = _tree_names(entry)
        if named is None:
            return None
        found += named
    return found if len({n.id for n in found}) == len(found) else None


def _tree_names(entry: dict[str, Any]) -> list[ScenarioName] | None:
    """One scenario's names from its mapping node's entries."""
    if "scenario" not in entry:
        return None
    key, value = entry["scenario"]
    name = _text(value)
    tags = _items(entry["tags"][1]) if "tags" in entry else []
    description = _text(entry["description"][1]) if "description" in entry else ""
    if name is None or not _NAME.fullmatch(name) or tags is None or description is None:
        return None
    texts = [_text(tag) for tag in tags]
    if any(t is None or tag_problem(t) is not None for t in texts):
        return None
    matrix = None
    if "matrix" in entry:
        variants = _items(entry["matrix"][1])
        if not variants:
            return None
        ids = [(_keys(v) or {}).get("id") for v in variants]
        matrix = [_text(i[1]) if i is not None else None for i in ids]
    return _scenario(name, key.start_mark.line + 1, tuple(texts), description, matrix)  # type: ignore[arg-type]


def _scenario(
    name: str, line: int, tags: tuple[str, ...], description: str, matrix: list[Any] | None
) -> list[ScenarioName] | None:
    variants = _variant_ids(matrix)
    if variants is None:
        return None
    return [
        ScenarioName(
            id=name if variant is None else f"{name}[{variant}]",
            name=name,
            line=line,
            tags=tags,
            description=description,
        )
        for variant in variants
    ]


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
    line = source.position((*prefix, "scenario"))[0]
    return _scenario(name, line, tuple(tags), description, item.get("matrix"))


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
