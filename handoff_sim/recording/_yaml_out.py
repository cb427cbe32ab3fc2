"""YAML a person can read: block style, keys in the order given, long texts as literal
blocks, short lists of plain values on one line."""

from __future__ import annotations

from typing import Any

import yaml

__all__ = ["render"]

_SHORT = 72
"""Lists of plain values up to this many characters are written on one line."""


class _Dumper(yaml.SafeDumper):
    """SafeDumper that never writes aliases (each value is written where it stands)."""

    def ignore_aliases(self, data: Any) -> bool:
        return True

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        # a list under a key is indented below it, as people write YAML
        super().increase_indent(flow, False)


class _Flow(list[Any]):
    """A list written on one line: ``[a, b]``."""


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if "\n" in value:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


def _flow(dumper: yaml.SafeDumper, value: _Flow) -> yaml.SequenceNode:
    return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=True)


_Dumper.add_representer(str, _text)
_Dumper.add_representer(_Flow, _flow)


def _shaped(value: Any) -> Any:
    """``value`` with short lists of plain values marked to be written on one line."""
    if isinstance(value, dict):
        return {key: _shaped(item) for key, item in value.items()}
    if isinstance(value, list):
        items = [_shaped(item) for item in value]
        plain = all(isinstance(i, str | int | float | bool) and "\n" not in str(i) for i in items)
        if plain and len(", ".join(map(str, items))) <= _SHORT:
            return _Flow(items)
        return items
    return value


def render(document: dict[str, Any], header: str = "") -> str:
    """``document`` as YAML text, ``header`` (comment lines) first."""
    body = yaml.dump(
        _shaped(document),
        Dumper=_Dumper,
        sort_keys=False,
        default_flow_style=False,
        allow_unicode=True,
        width=100,
        indent=2,
    )
    return header + body
