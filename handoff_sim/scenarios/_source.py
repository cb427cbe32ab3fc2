"""YAML text to plain data plus a map from field paths back to lines and columns (Y4)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from handoff_sim.scenarios._errors import Problem

__all__ = ["FieldPath", "ParsedYaml", "SourceMap", "dotted", "parse_yaml"]

FieldPath = tuple[str | int, ...]


def dotted(parts: Sequence[str | int]) -> str:
    """``("agents", "m", "tools", 0)`` as ``agents.m.tools.0``; the empty path is ``<root>``."""
    return ".".join(str(p) for p in parts) or "<root>"


class SourceMap:
    """Finds the line and column of a field path in a composed YAML document."""

    def __init__(self, root: yaml.Node | None) -> None:
        self.root = root

    def walk(self, parts: Sequence[str | int]) -> tuple[int, yaml.Node | None, yaml.Mark | None]:
        """How many leading parts exist, the deepest node reached and the mark to report.

        A mapping entry reports its key's position, a sequence item its own.
        """
        node = self.root
        mark = node.start_mark if node is not None else None
        matched = 0
        for part in parts:
            found = _child(node, part)
            if found is None:
                break
            mark, node = found
            matched += 1
        return matched, node, mark

    def position(self, parts: Sequence[str | int]) -> tuple[int, int]:
        """1-based ``(line, column)`` of the deepest existing node on ``parts``."""
        _, _, mark = self.walk(parts)
        return (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)

    def exists(self, parts: Sequence[str | int]) -> bool:
        """Whether every part of the path is present in the document."""
        return self.walk(parts)[0] == len(parts)


def _child(node: yaml.Node | None, part: str | int) -> tuple[yaml.Mark, yaml.Node] | None:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode) and key.value == str(part):
                return key.start_mark, value
    elif (
        isinstance(node, yaml.SequenceNode)
        and isinstance(part, int)
        and 0 <= part < len(node.value)
    ):
        item = node.value[part]
        return item.start_mark, item
    return None


@dataclass(frozen=True, slots=True)
class ParsedYaml:
    """A parsed document: its data, its source map and any duplicate-key problems."""

    data: Any
    source: SourceMap
    problems: list[Problem]


def parse_yaml(text: str, path: str) -> ParsedYaml | Problem:
    """Compose and construct one YAML document; a syntax error comes back as a Problem."""
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        duplicates = _duplicate_keys(node, (), path, set()) if node is not None else []
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        message = " ".join(str(p) for p in (exc.context, exc.problem) if p)
        return Problem(path, line, column, "<yaml>", f"invalid YAML: {message}")
    except yaml.YAMLError as exc:
        return Problem(path, 1, 1, "<yaml>", f"invalid YAML: {exc}")
    finally:
        loader.dispose()
    return ParsedYaml(data, SourceMap(node), duplicates)


def _duplicate_keys(node: yaml.Node, at: FieldPath, path: str, visited: set[int]) -> list[Problem]:
    """PyYAML keeps the last of two equal keys silently; report the later ones instead."""
    problems: list[Problem] = []
    if id(node) in visited:  # an alias seen before (or a recursive one)
        return problems
    visited.add(id(node))
    if isinstance(node, yaml.MappingNode):
        seen: dict[str, yaml.Mark] = {}
        for key, value in node.value:
            name = key.value if isinstance(key, yaml.ScalarNode) else None
            if isinstance(name, str) and name in seen:
                first = seen[name].line + 1
                problems.append(
                    Problem(
                        path,
                        key.start_mark.line + 1,
                        key.start_mark.column + 1,
                        dotted((*at, name)),
                        f"duplicate key '{name}' (first defined at line {first})",
                    )
                )
            elif isinstance(name, str):
                seen[name] = key.start_mark
            child = (*at, name if name is not None else "?")
            problems.extend(_duplicate_keys(value, child, path, visited))
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            problems.extend(_duplicate_keys(item, (*at, index), path, visited))
    return problems
