"""YAML text to plain data plus a map from field paths back to lines and columns.

Hostile text is refused as a located problem, never an exception: a character YAML
forbids (NUL), nesting deeper than ``MAX_YAML_DEPTH``, aliases that expand past
``MAX_YAML_NODES`` values or into themselves, a scalar Python cannot build (a
5,000-digit integer, the date 2024-13-45).

Two parsers, one verdict. libyaml (PyYAML's C parser, when PyYAML was built with it)
reads a file about ten times faster and gives every node the same line and column;
PyYAML's pure-Python parser is the reference. libyaml only ever *accepts* a file: on
any error, on a duplicate key or a bound passed, and on text the two read (or might
read) differently (a tab, a byte-order mark or a Unicode line break inside the text,
``?`` inside a plain scalar in ``[...]`` or ``{...}``, a comment glued to a block
scalar header, an empty value tagged ``!``, an empty document or list item), the pure
parser reads the file again and its verdict and message stand. So every message is
the one the pure parser gives.
"""

from __future__ import annotations

import functools
import operator
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import yaml

try:  # PyYAML built without libyaml has no C parser
    from yaml.cyaml import CSafeLoader as _CSafeLoader
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    _CSafeLoader = None  # type: ignore[assignment,misc]

from handoff_sim._durations import shown
from handoff_sim._limits import MAX_SCENARIO_FILE_BYTES, MAX_YAML_DEPTH, MAX_YAML_NODES
from handoff_sim.scenarios._errors import Problem
from handoff_sim.scenarios._load._surrogates import may_hold_surrogates, surrogate_problem
from handoff_sim.scenarios._load._yaml_quick import STR_TAG as _STR_TAG
from handoff_sim.scenarios._load._yaml_quick import Entries as _Entries
from handoff_sim.scenarios._load._yaml_quick import QuickBuild, _Unusual

__all__ = ["FieldPath", "ParsedYaml", "SourceMap", "dotted", "parse_yaml"]

FieldPath = tuple[str | int, ...]


def dotted(parts: Sequence[str | int]) -> str:
    """``("agents", "m", "tools", 0)`` as ``agents.m.tools.0``; the empty path is ``<root>``."""
    return ".".join(str(p) for p in parts) or "<root>"


class SourceMap:
    """Finds the line and column of a field path in a composed YAML document.

    It keeps an index of plain tuples, not the document's nodes: a suite holds one map
    per file for the whole session, and tuples of numbers and text cost the garbage
    collector nothing, where a node tree costs it hundreds of objects to visit.
    """

    __slots__ = ("_entries", "_root")

    def __init__(self, root: yaml.Node | None, entries: _Entries | None = None) -> None:
        """The map of ``root``'s document; ``entries`` when its index was built already."""
        self._root = (root.start_mark.line, root.start_mark.column) if root is not None else None
        if entries is None:
            entries = _index(root) if root is not None else {}
        self._entries = entries

    def _walk(self, parts: Sequence[str | int]) -> tuple[int, tuple[int, int] | None]:
        """How many leading parts exist, and the 0-based line and column to report.

        A mapping entry reports its key's position, a sequence item its own.
        """
        entries, mark, parent = self._entries, self._root, 0
        matched = 0
        for part in parts:
            found = entries.get((parent, part)) if isinstance(part, int) else None
            if found is None:
                found = entries.get((parent, str(part)))
            if found is None:
                break
            parent, line, column = found
            mark = (line, column)
            matched += 1
        return matched, mark

    def position(self, parts: Sequence[str | int]) -> tuple[int, int]:
        """1-based ``(line, column)`` of the deepest existing node on ``parts``."""
        mark = self._walk(parts)[1]
        return (mark[0] + 1, mark[1] + 1) if mark is not None else (1, 1)

    def exists(self, parts: Sequence[str | int]) -> bool:
        """Whether every part of the path is present in the document."""
        return self._walk(parts)[0] == len(parts)


def _index(root: yaml.Node) -> _Entries:
    """``(parent, key or item index) -> (child, line, column)``; the root is parent 0.

    A mapping's first entry of a key wins, as a reader scanning the file finds it; a node
    reached again through an alias keeps its number, so the index grows with the text.
    """
    entries: _Entries = {}
    numbers: dict[int, int] = {id(root): 0}
    stack = [root]
    while stack:
        node = stack.pop()
        parent = numbers[id(node)]
        if isinstance(node, yaml.MappingNode):
            pairs = [
                (key.value, key, value)
                for key, value in node.value
                if isinstance(key, yaml.ScalarNode)
            ]
        elif isinstance(node, yaml.SequenceNode):
            pairs = [(index, item, item) for index, item in enumerate(node.value)]
        else:
            continue
        for part, at, child in pairs:
            if (parent, part) in entries:
                continue
            number = numbers.get(id(child))
            if number is None:
                number = numbers[id(child)] = len(numbers)
                stack.append(child)
            entries[parent, part] = (number, at.start_mark.line, at.start_mark.column)
    return entries


@dataclass(frozen=True, slots=True)
class ParsedYaml:
    """A parsed document: its data, its source map and any duplicate-key problems."""

    data: Any
    source: SourceMap
    problems: list[Problem]


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader, bounded in depth, with located errors for unbuildable scalars."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                event = self.peek_event()  # type: ignore[no-untyped-call]
                raise yaml.composer.ComposerError(None, None, _too_deep(), event.start_mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except (ValueError, OverflowError) as exc:
            if node.tag.endswith(":int"):
                reason = f"integer too large: {len(str(node.value))} digits"
            else:
                reason = f"cannot read {shown(node.value)} as {node.tag.rsplit(':', 1)[-1]}: {exc}"
            raise yaml.constructor.ConstructorError(
                None, None, f"{reason} (quote it to keep it as text)", node.start_mark
            ) from None


def _too_deep() -> str:
    return f"nested deeper than {MAX_YAML_DEPTH} levels"


def _libyaml_loader() -> type[yaml.cyaml.CSafeLoader] | None:
    """PyYAML's libyaml safe loader, its resolver calls made cheaper when that is exact.

    Without path resolvers (PyYAML's experimental ones; none are registered here) a
    scalar's tag depends only on its text and style, so it is remembered; and noting
    the path of each node serves nothing.
    """
    if _CSafeLoader is None:  # pragma: no cover - depends on how PyYAML was built
        return None
    if _CSafeLoader.yaml_path_resolvers:  # pragma: no cover - someone registered one
        return _CSafeLoader
    tables = {"yaml_implicit_resolvers": _CSafeLoader.yaml_implicit_resolvers}
    resolver = type("_Resolver", (yaml.resolver.BaseResolver,), tables)()

    @functools.lru_cache(maxsize=4096)
    def resolve(kind: type[yaml.Node], value: Any, implicit: Any) -> str:
        return resolver.resolve(kind, value, implicit)  # type: ignore[no-any-return]

    # libyaml's composer calls these two around every node; built-in callables that
    # ignore their result (two arguments; none) cost less than a Python function
    members = {
        "resolve": staticmethod(resolve),
        "descend_resolver": staticmethod(operator.is_),
        "ascend_resolver": staticmethod(tuple),
    }
    return type("_LibyamlLoader", (_CSafeLoader,), members)


LIBYAML: type[yaml.cyaml.CSafeLoader] | None = _libyaml_loader()
"""The libyaml loader used first, or None (PyYAML without libyaml; tests set it to None)."""

_PURE_ONLY_CHARACTERS = ("\t", "\ufeff", "\x85", "\u2028", "\u2029")
_GLUED_COMMENT = re.compile(r"[|>][-+0-9]*#")


def _pure_only(text: str) -> bool:
    """Text the two parsers read (or might read) differently: left to the pure parser."""
    if any(c in text for c in _PURE_ONLY_CHARACTERS) or may_hold_surrogates(text):
        return True  # libyaml refuses a surrogate escape: the pure parser words why
    # a block scalar header needs '|' or '>': most files have neither, so no regex search
    return ("|" in text or ">" in text) and _GLUED_COMMENT.search(text) is not None


def parse_yaml(text: str, path: str) -> ParsedYaml | Problem:
    """Compose and construct one YAML document; a syntax error comes back as a Problem.

    Text over ``MAX_SCENARIO_FILE_BYTES`` characters is refused unread; running out of
    memory is a refusal too, never a reason to read the text again with the pure parser.
    """
    if len(text) > MAX_SCENARIO_FILE_BYTES:
        reason = f"is too large: {len(text):,} characters, over the bound of "
        return Problem(path, 1, 1, "<file>", f"{reason}{MAX_SCENARIO_FILE_BYTES:,} bytes")
    try:
        if LIBYAML is not None and not _pure_only(text):
            parsed = _parse_libyaml(LIBYAML, text)
            if parsed is not None:
                return parsed
        return _parse_pure(text, path)
    except MemoryError:
        return Problem(path, 1, 1, "<yaml>", "invalid YAML: out of memory while reading it")


def _parse_libyaml(loader_type: type[yaml.cyaml.CSafeLoader], text: str) -> ParsedYaml | None:
    """The document read by libyaml, or None when the pure parser must have the last word."""
    try:
        loader = loader_type(text)
        node = loader.get_single_node()
        if node is None:
            return ParsedYaml(None, SourceMap(None), [])
        if _empty(node):  # its position may differ (the pure parser words the refusal)
            return None
        if "*" not in text or "&" not in text:  # no alias (none without an anchor): a tree
            build = QuickBuild(loader)
            try:
                data = build.value(node, 1, False, 0)
            except _Unusual:
                pass
            else:
                return ParsedYaml(data, SourceMap(node, build.entries), [])
        if not _accepted(node):
            return None
        data = loader.construct_document(node)
    except MemoryError:  # the pure parser would only grind for minutes and fail the same
        raise
    except Exception:  # any refusal is worded by the pure parser, exactly as it always was
        return None
    return ParsedYaml(data, SourceMap(node), [])


def _accepted(root: yaml.Node) -> bool:
    """Whether the pure parser reads this libyaml tree the same and has nothing to report.

    One walk, each node once: no duplicate key, within ``MAX_YAML_DEPTH`` and
    ``MAX_YAML_NODES``, no plain scalar the parsers read differently. A node reached
    twice (an alias) leaves the expanded bounds to :func:`_measure`, which raises.
    """
    stack: list[tuple[yaml.Node, int, bool]] = [(root, 1, False)]
    seen: set[int] = set()
    shared = False
    while stack:
        node, depth, in_flow = stack.pop()
        if id(node) in seen:
            shared = True
        elif depth > MAX_YAML_DEPTH or not _node_accepted(node, in_flow):
            return False
        else:
            seen.add(id(node))
            flow = bool(getattr(node, "flow_style", False))
            stack.extend((child, depth + 1, flow) for child in _children(node))
    if shared:
        _measure(root)
    return len(seen) <= MAX_YAML_NODES


def _node_accepted(node: yaml.Node, in_flow: bool) -> bool:
    """No duplicate key in a mapping; no plain scalar the two parsers read differently."""
    if isinstance(node, yaml.MappingNode):
        names = [key.value for key, _ in node.value if isinstance(key, yaml.ScalarNode)]
        return len(set(names)) == len(names)
    if isinstance(node, yaml.SequenceNode):
        return not any(_empty(item) for item in node.value)
    if isinstance(node, yaml.ScalarNode) and not node.style:
        return not _read_differently(node, in_flow)
    return True


def _empty(node: yaml.Node) -> bool:
    """An empty plain scalar: libyaml may place it elsewhere (at the end of the input)."""
    return isinstance(node, yaml.ScalarNode) and not node.style and node.value == ""


def _read_differently(node: yaml.ScalarNode, in_flow: bool) -> bool:
    """A plain scalar libyaml reads otherwise: ``?`` in a flow collection, an empty ``!``."""
    return (in_flow and "?" in node.value) or (node.value == "" and node.tag == _STR_TAG)


def _parse_pure(text: str, path: str) -> ParsedYaml | Problem:
    """The reference reading, with every refusal located."""
    loader: _Loader | None = None
    try:
        loader = _Loader(text)
        node = loader.get_single_node()
        if node is not None:
            _measure(node)
            surrogate = surrogate_problem(node, path)
            if surrogate is not None:
                return surrogate
        duplicates = _duplicate_keys(node, (), path, set()) if node is not None else []
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        message = " ".join(str(p) for p in (exc.context, exc.problem) if p)
        return Problem(path, line, column, "<yaml>", f"invalid YAML: {message}")
    except yaml.reader.ReaderError as exc:
        line, column = _line_column(text, exc.position)
        reason = f"unacceptable character #x{exc.character:04x}: {exc.reason}"
        return Problem(path, line, column, "<yaml>", f"invalid YAML: {reason}")
    except yaml.YAMLError as exc:
        return Problem(path, 1, 1, "<yaml>", f"invalid YAML: {exc}")
    except RecursionError:  # a guard above missed a way to nest: still a located refusal
        return Problem(path, 1, 1, "<yaml>", f"invalid YAML: {_too_deep()}")
    finally:
        if loader is not None:
            loader.dispose()
    return ParsedYaml(data, SourceMap(node), duplicates)


def _line_column(text: str, position: int) -> tuple[int, int]:
    """1-based line and column of a character offset."""
    line = text.count("\n", 0, position) + 1
    return line, position - (text.rfind("\n", 0, position) + 1) + 1


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _measure(root: yaml.Node) -> None:
    """Refuse a document whose aliases expand too deep, too large, or into themselves.

    Aliases share one node, so each node is measured once; sizes stay small because
    the walk stops as soon as a bound is passed.
    """
    done: dict[int, tuple[int, int]] = {}  # id(node) -> (values, height)
    on_path: set[int] = set()

    def visit(node: yaml.Node, depth: int) -> tuple[int, int]:
        key = id(node)
        if key in on_path:
            raise _refusal(node, "an alias refers to a value that contains it (recursive alias)")
        known = done.get(key)
        size, height = known if known is not None else _fresh(node, depth)
        if depth > MAX_YAML_DEPTH or depth + height - 1 > MAX_YAML_DEPTH:
            raise _refusal(node, f"{_too_deep()} once aliases are expanded")
        return size, height

    def _fresh(node: yaml.Node, depth: int) -> tuple[int, int]:
        if depth > MAX_YAML_DEPTH:
            raise _refusal(node, f"{_too_deep()} once aliases are expanded")
        on_path.add(id(node))
        size, height = 1, 1
        for child in _children(node):
            child_size, child_height = visit(child, depth + 1)
            size, height = size + child_size, max(height, child_height + 1)
            if size > MAX_YAML_NODES:
                raise _refusal(node, f"more than {MAX_YAML_NODES} values once aliases are expanded")
        on_path.discard(id(node))
        done[id(node)] = (size, height)
        return size, height

    visit(root, 1)


def _refusal(node: yaml.Node, message: str) -> yaml.MarkedYAMLError:
    return yaml.composer.ComposerError(None, None, message, node.start_mark)


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
