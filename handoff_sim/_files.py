"""Read a file the user named, refusing what is not a regular file or is too large.

A FIFO would block the reader forever, a device (``/dev/zero``) or a multi-gigabyte
(even sparse) file would fill the memory: both are refused before anything is read, with
a reason the caller prints after the path. Scenario files and OTLP traces are read here.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

__all__ = ["UnreadableFile", "read_regular"]


class UnreadableFile(Exception):
    """Why a path cannot be read: ``reason`` reads after the path (``is a directory``)."""

    def __init__(self, reason: str, *, directory: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.directory = directory


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them.

    One open that never waits on a FIFO, one stat; a file that grows past ``limit``
    while it is read is refused too. Raises :class:`UnreadableFile`.
    """
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        if _irregular(path):  # a socket, say, that cannot even be opened
            raise UnreadableFile("is not a regular file") from None
        raise UnreadableFile(f"cannot read: {exc.strerror or exc}") from None
    try:
        facts = os.fstat(descriptor)
        if stat.S_ISDIR(facts.st_mode):
            raise UnreadableFile("is a directory", directory=True)
        if not stat.S_ISREG(facts.st_mode):
            raise UnreadableFile("is not a regular file")
        if facts.st_size > limit:
            raise UnreadableFile(_too_large(facts.st_size, limit))
        with os.fdopen(descriptor, "rb", closefd=False) as stream:
            raw = stream.read(limit + 1)
    except OSError as exc:
        raise UnreadableFile(f"cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(descriptor)
    if len(raw) > limit:
        raise UnreadableFile(_too_large(None, limit))
    return raw


def _too_large(size: int | None, limit: int) -> str:
    found = f"{size:,} bytes" if size is not None else "it grew while read"
    return f"is too large: {found}, over the bound of {limit:,} bytes"


def _irregular(path: Path) -> bool:
    """Whether ``path`` exists and is not a regular file (False when that cannot be told)."""
    try:
        return path.exists() and not path.is_file()
    except OSError:
        return False
