"""Which scenario files a path stands for: every ``*.yaml``/``*.yml`` below it, each once.

Shared by ``load_path``, the ``handoff-sim`` command and the pytest plugin, so all three
load the same files. Symbolic links are followed under four rules that keep the walk
finite and every file single:

* a file reached twice (a link to a file of the tree, two links to one file, a path given
  twice) is loaded once, under the path the walk meets without a link when it has one;
* a directory link whose target contains the link is a loop: reported, not followed;
* a directory link into a directory already walked is skipped (its files are loaded
  under their own paths);
* a ``*.yaml`` link that points nowhere or into a loop, and a ``*.yaml`` entry that is
  not a regular file (a FIFO, a device), is reported.

Directories whose name starts with a dot (``.git``, ``.venv``) are not entered, as pytest
does not enter them.

A report is a :class:`Problem` at line 1, column 1 of the offending path.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from handoff_sim.scenarios._errors import Problem

__all__ = ["SUFFIXES", "Discovery", "discover"]

SUFFIXES = (".yaml", ".yml")


@dataclass
class Discovery:
    """The files to load (in order), what is wrong with the tree, the directory links walked."""

    files: list[Path] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    followed: set[Path] = field(default_factory=set)
    real_files: set[Path] = field(default_factory=set, repr=False)

    def repeats(self, path: Path) -> bool:
        """Whether ``path`` is another way (a link) to a file :attr:`files` already has."""
        if len(self._taken) != len(self.files):
            self._taken = set(self.files)
        if path in self._taken:
            return False
        try:
            return path.resolve() in self.real_files
        except RuntimeError:  # a loop of links leads to no file at all
            return False

    _taken: set[Path] = field(default_factory=set, repr=False)


def discover(paths: Iterable[str | Path]) -> Discovery:
    """Walk each path (a directory or a file) in order; see the module docstring for the rules.

    A directory's files come sorted by path. A path named directly is loaded whatever its
    suffix; a path that does not exist is a problem.
    """
    walk = _Walk()
    for path in paths:
        walk.top(Path(path))
    return walk.found


class _Walk:
    def __init__(self) -> None:
        self.found = Discovery()
        self._files = self.found.real_files  # real paths of the files taken
        self._dirs: set[Path] = set()  # real paths of the directories walked

    def top(self, path: Path) -> None:
        target = self._target(path, named=True)
        if target is None:
            return
        if target.is_dir():
            if target in self._dirs:  # given twice, or inside a directory given before
                return
            found: list[Path] = []
            self._tree(path, found)
            self.found.files.extend(sorted(found))
        else:
            self._take(path, target, self.found.files)

    def _problem(self, path: Path, what: str, message: str) -> None:
        self.found.problems.append(Problem(str(path), 1, 1, what, message))

    def _target(self, path: Path, *, named: bool) -> Path | None:
        """The real path behind ``path``; ``None`` (reported when it matters) when there is none."""
        try:
            return path.resolve(strict=True)
        except RuntimeError:  # Python 3.11 raises this for a loop of links
            reason = "symlink loop: following its links never reaches a file"
        except OSError as exc:
            if not os.path.lexists(path):
                reason = "no such file or directory"
            elif path.is_symlink() and exc.errno in (errno.ENOENT, errno.ENOTDIR):
                reason = f"dangling symlink: its target {os.readlink(path)!r} does not exist"
            else:
                reason = f"cannot read: {exc.strerror or exc}"
        if named or path.suffix in SUFFIXES:
            self._problem(path, "<file>", reason)
        return None

    def _tree(self, top: Path, found: list[Path]) -> None:
        """Every file below ``top``: the directories reached without a link first, then links."""
        links: list[Path] = []
        stack = [top]
        while stack:
            folder = stack.pop()
            real_folder = folder.resolve()
            self._dirs.add(real_folder)
            try:
                entries = list(os.scandir(folder))
            except OSError as exc:
                self._problem(folder, "<directory>", f"cannot read: {exc.strerror or exc}")
                continue
            for entry in entries:
                path = Path(entry.path)
                if entry.is_symlink():
                    links.append(path)
                elif entry.is_dir(follow_symlinks=False):
                    if not _hidden(path) and path.resolve() not in self._dirs:
                        stack.append(path)
                elif path.suffix in SUFFIXES:
                    if entry.is_file(follow_symlinks=False):  # its type, read with the listing
                        self._take(path, real_folder / entry.name, found)
                    else:
                        self._entry(path, path.resolve(), found)
        for link in sorted(links):
            self._link(link, found)

    def _link(self, link: Path, found: list[Path]) -> None:
        target = self._target(link, named=False)
        if target is None:
            return
        if not target.is_dir():
            if link.suffix in SUFFIXES:
                self._entry(link, target, found)
            return
        if _hidden(link):
            return
        home = link.parent.resolve()
        if target == home or target in home.parents:
            self._problem(
                link,
                "<directory>",
                f"symlink loop: it points to {target}, which contains it; not followed",
            )
        elif target not in self._dirs:
            self.found.followed.add(link)
            self._tree(link, found)

    def _entry(self, path: Path, real: Path, found: list[Path]) -> None:
        """A file met by the walk: only a regular file can be a scenario file."""
        try:
            regular = stat.S_ISREG(real.stat().st_mode)
        except OSError as exc:
            self._problem(path, "<file>", f"cannot read: {exc.strerror or exc}")
            return
        if not regular:
            self._problem(path, "<file>", "not a regular file (a FIFO, a device or a socket)")
            return
        self._take(path, real, found)

    def _take(self, path: Path, real: Path, found: list[Path]) -> None:
        if real not in self._files:
            self._files.add(real)
            found.append(path)


def _hidden(folder: Path) -> bool:
    """``.git``, ``.venv``, ``.cache``...: pytest does not enter them either."""
    return folder.name.startswith(".")
