"""Where a test's recording lives: pytest-recording's layout, one file per test.

``<test module dir>/recordings/<module stem>/<test name>.yaml`` by default; the
``handoff_recording`` marker may name another file, relative to that folder.
Imports only pytest and the standard library.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePath

import pytest

__all__ = [
    "MARKER",
    "Binding",
    "MarkerProblem",
    "binding",
    "default_name",
    "module_recordings_dir",
    "safe_file_name",
    "shown_path",
]

MARKER = "handoff_recording"

SUFFIXES = (".yaml", ".yml")

#: A file name keeps letters, digits and ``_ . - [ ] = + ,``; any other run becomes ``-``.
_UNSAFE = re.compile(r"[^A-Za-z0-9_.\-\[\]=+,]+")
_DOTS = re.compile(r"\.{2,}")

#: The longest stem a generated name keeps (file systems allow 255 bytes; leave room).
MAX_STEM = 100
_HASH = 8


class MarkerProblem(ValueError):
    """The ``handoff_recording`` marker of a test was used wrongly (what and how to fix)."""


@dataclass(frozen=True)
class Binding:
    """What the marker says: the file (relative to the recordings folder) and strictness."""

    name: str
    match: str | None = None


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:_HASH]


def safe_file_name(name: str, *, suffix: str = ".yaml") -> str:
    """``name`` as one safe file name: no separator, no ``..``, not hidden, bounded length.

    A name that had to change gets 8 hex of its hash, so two ids that differ only in
    replaced characters (``a/b`` and ``a:b``) never share a file.
    """
    stem = _DOTS.sub("-", _UNSAFE.sub("-", name)).lstrip(".-") or "recording"
    changed = stem != name
    if changed or len(stem) > MAX_STEM:
        stem = f"{stem[: MAX_STEM - _HASH - 1].rstrip('.-')}-{_digest(name)}"
    return stem + suffix


def default_name(item: pytest.Item) -> str:
    """``<Class>.<test name>.yaml`` (classes as pytest-recording names them), made safe."""
    classes = [node.name for node in item.listchain() if isinstance(node, pytest.Class)]
    return safe_file_name(".".join([*classes, item.name]))


def module_recordings_dir(module_path: Path) -> Path:
    """``<module dir>/recordings/<module stem>``: test modules never share a folder."""
    return module_path.parent / "recordings" / module_path.stem


def _relative_file(value: object, where: str) -> str:
    """The marker's file argument, checked: a relative path that stays in its folder."""
    if not isinstance(value, str | os.PathLike):
        raise MarkerProblem(
            f"{where}: the file argument must be a file name or a relative path, "
            f"got {type(value).__name__}"
        )
    text = os.fspath(value)
    if not isinstance(text, str) or not text.strip():
        raise MarkerProblem(f"{where}: the file argument is empty")
    path = PurePath(text)
    if path.is_absolute() or path.drive or text.startswith(("/", "\\")):
        raise MarkerProblem(
            f"{where}: {text!r} is absolute; name a file relative to the recordings folder "
            "(override the handoff_recording_dir fixture to move the folder)"
        )
    if ".." in re.split(r"[\\/]", text):
        raise MarkerProblem(
            f"{where}: {text!r} leaves the recordings folder ('..'); override the "
            "handoff_recording_dir fixture to share recordings between modules"
        )
    return text if path.suffix in SUFFIXES else text + ".yaml"


def _match(value: object, where: str) -> str | None:
    from pytest_handoff._record_modes import MATCHES

    if value is None or value in MATCHES:
        return None if value is None else str(value)
    raise MarkerProblem(
        f"{where}: match={value!r} is not a strictness; choose one of {', '.join(MATCHES)}"
    )


def binding(item: pytest.Item) -> Binding:
    """The item's recording from its ``handoff_recording`` markers (the closest wins)."""
    where = f"{item.nodeid}: @pytest.mark.{MARKER}"
    name: str | None = None
    options: dict[str, object] = {}
    for mark in reversed(list(item.iter_markers(MARKER))):  # farthest first, closest last
        if len(mark.args) > 1:
            raise MarkerProblem(f"{where}: takes one file argument, got {len(mark.args)}")
        unknown = sorted(set(mark.kwargs) - {"match"})
        if unknown:
            raise MarkerProblem(
                f"{where}: unknown keyword {', '.join(unknown)}; the marker takes a file "
                "name and match="
            )
        if mark.args:
            name = _relative_file(mark.args[0], where)
        options.update(mark.kwargs)
    return Binding(name or default_name(item), _match(options.get("match"), where))


def shown_path(config: pytest.Config, path: Path) -> str:
    """``path`` relative to the rootdir when it lies in it (as node ids are), else as is."""
    try:
        return path.relative_to(config.rootpath).as_posix()
    except ValueError:
        return str(path)
