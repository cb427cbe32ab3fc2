"""Refuse lone surrogates (``"\\ud800"`` written as a YAML escape) in scenario files.

A surrogate code point is not a character: it cannot be written as UTF-8, so a name or an
id holding one would crash every report, trace file and terminal line it reaches. YAML's
``\\u`` escapes still make them (PyYAML's pure parser builds them; libyaml refuses them),
so every scalar and key of a composed document is checked before anything is built.
"""

from __future__ import annotations

import re

import yaml

from handoff_sim.scenarios._errors import Problem

__all__ = ["may_hold_surrogates", "surrogate_problem"]

_SURROGATE = re.compile("[\ud800-\udfff]")
_ESCAPE = re.compile(r"\\(?:u|U0000)[dD][89abcdefABCDEF]")
_Path = tuple[str | int, ...]


def may_hold_surrogates(text: str) -> bool:
    """Whether ``text`` has an escape that may stand for a surrogate (cheap, over-eager)."""
    return "\\" in text and _ESCAPE.search(text) is not None


def surrogate_problem(root: yaml.Node, path: str) -> Problem | None:
    """The first scalar or key (in document order) holding a surrogate, as a Problem."""
    stack: list[tuple[yaml.Node, _Path]] = [(root, ())]
    seen: set[int] = set()
    while stack:
        node, at = stack.pop()
        if id(node) in seen:  # an alias: checked where its anchor is
            continue
        seen.add(id(node))
        if isinstance(node, yaml.ScalarNode):
            found = _SURROGATE.search(node.value) if isinstance(node.value, str) else None
            if found is not None:
                return _problem(node, at, node.value, found.start(), path)
        elif isinstance(node, yaml.MappingNode):
            children: list[tuple[yaml.Node, _Path]] = []
            for key, value in node.value:
                name = _escaped(key.value) if isinstance(key, yaml.ScalarNode) else "?"
                children += [(key, (*at, name)), (value, (*at, name))]
            stack.extend(reversed(children))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(reversed([(item, (*at, i)) for i, item in enumerate(node.value)]))
    return None


def _problem(node: yaml.Node, at: _Path, text: str, index: int, path: str) -> Problem:
    code = ord(text[index])
    message = f"contains a lone surrogate U+{code:04X}, which cannot be written as UTF-8"
    pair = text[index : index + 2]
    if len(pair) == 2 and 0xD800 <= code < 0xDC00 and 0xDC00 <= ord(pair[1]) <= 0xDFFF:
        whole = 0x10000 + ((code - 0xD800) << 10) + (ord(pair[1]) - 0xDC00)
        message += f" (a pair of \\u escapes is two of them: write \\U{whole:08X})"
    field = ".".join(str(part) for part in at) or "<root>"
    mark = node.start_mark
    return Problem(path, mark.line + 1, mark.column + 1, field, message)


def _escaped(name: object) -> str:
    """A key as a field path part, each surrogate written as its escape."""
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", str(name))
