"""Plain data from a libyaml node tree without aliases, in one walk that also indexes lines.

It builds what PyYAML's safe constructor builds from the same tree, and checks on the
way what the two-parser rule needs (no duplicate key, within the bounds, no plain scalar
the parsers read differently). Anything else is :class:`_Unusual`: the caller leaves the
document to PyYAML's own constructor (or the pure parser), which words any refusal.
"""

from __future__ import annotations

from typing import Any

import yaml

from handoff_sim._limits import MAX_YAML_DEPTH, MAX_YAML_NODES

__all__ = ["STR_TAG", "Entries", "QuickBuild"]

_TAG = "tag:yaml.org,2002:"
STR_TAG, _SEQ_TAG, _MAP_TAG = f"{_TAG}str", f"{_TAG}seq", f"{_TAG}map"
_SCALAR_TAGS = frozenset(
    f"{_TAG}{t}" for t in ("null", "bool", "int", "float", "binary", "timestamp")
)
_Scalar, _Mapping, _Sequence = yaml.ScalarNode, yaml.MappingNode, yaml.SequenceNode

Entries = dict[tuple[int, str | int], tuple[int, int, int]]
"""A source map's index: ``(parent, key or item index) -> (child, line, column)``."""


class _Unusual(Exception):
    """Left to PyYAML's constructor: another tag, a merge key, a duplicate key, a bound passed."""


def _text(node: Any, in_flow: bool) -> str | None:
    """A ``str`` scalar's text when it needs no more checks (most values), else ``None``.

    An empty plain one, or a plain one holding ``?`` in a flow collection, is read
    differently by the two parsers: :meth:`QuickBuild.scalar` refuses those.
    """
    if type(node) is not _Scalar or node.tag != STR_TAG:
        return None
    text: str = node.value
    if node.style or (text and not (in_flow and "?" in text)):
        return text
    return None


class QuickBuild:
    """The walk: nodes are numbered as met (the root is 0) and indexed under their parent."""

    __slots__ = ("count", "entries", "loader")

    def __init__(self, loader: yaml.cyaml.CSafeLoader) -> None:
        self.loader = loader
        self.count = 0  # nodes numbered so far, the root (number 0) aside
        self.entries: Entries = {}

    def value(self, node: Any, depth: int, in_flow: bool, number: int) -> Any:
        """The value of ``node`` (a ``yaml.Node``), numbered ``number``, at level ``depth``."""
        if depth > MAX_YAML_DEPTH:
            raise _Unusual
        kind = type(node)  # libyaml makes these exact classes; anything else is unusual
        if kind is _Scalar:
            return self.scalar(node, in_flow)
        if kind is _Mapping and node.tag == _MAP_TAG:
            return self.mapping(node, depth, bool(node.flow_style), number)
        if kind is _Sequence and node.tag == _SEQ_TAG:
            return self.sequence(node, depth, bool(node.flow_style), number)
        raise _Unusual

    def scalar(self, node: yaml.ScalarNode, in_flow: bool) -> Any:
        """A text, a number, a boolean, null, a date, bytes; any other tag is unusual."""
        tag, value = node.tag, node.value
        if not node.style and ((in_flow and "?" in value) or (value == "" and tag == STR_TAG)):
            raise _Unusual  # read differently by the two parsers
        if tag == STR_TAG:
            return value
        if tag in _SCALAR_TAGS:
            return self.loader.yaml_constructors[tag](self.loader, node)
        raise _Unusual

    def _next(self, step: int) -> int:
        """The number ``step`` nodes on; past ``MAX_YAML_NODES`` nodes it is unusual."""
        count = self.count + step
        if count >= MAX_YAML_NODES:
            raise _Unusual
        self.count = count
        return count

    def sequence(self, node: yaml.SequenceNode, depth: int, flow: bool, number: int) -> list[Any]:
        """A list; each item's position is indexed under ``(number, index)``.

        An empty plain item is unusual: libyaml may place it elsewhere.
        """
        items: list[Any] = []
        if node.value and depth >= MAX_YAML_DEPTH:
            raise _Unusual
        entries = self.entries
        for index, item in enumerate(node.value):
            child = self._next(1)
            mark = item.start_mark
            entries[number, index] = (child, mark.line, mark.column)
            text = _text(item, flow)
            if text is not None:
                items.append(text)
                continue
            if type(item) is _Scalar and not item.style and item.value == "":
                raise _Unusual
            items.append(self.value(item, depth + 1, flow, child))
        return items

    def mapping(self, node: yaml.MappingNode, depth: int, flow: bool, number: int) -> Any:
        """A dict whose keys are scalars written differently, each indexed at its key
        (numbered before its value)."""
        pairs = node.value
        if pairs and depth >= MAX_YAML_DEPTH:
            raise _Unusual
        mapping = {}
        entries = self.entries
        for key, item in pairs:
            if type(key) is not _Scalar or (number, key.value) in entries:
                raise _Unusual  # a collection as a key, or a key written twice
            child = self._next(2)
            mark = key.start_mark
            entries[number, key.value] = (child, mark.line, mark.column)
            name = _text(key, flow)
            if name is None:
                name = self.scalar(key, flow)
            text = _text(item, flow)
            mapping[name] = text if text is not None else self.value(item, depth + 1, flow, child)
        return mapping
