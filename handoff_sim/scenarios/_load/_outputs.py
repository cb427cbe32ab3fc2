"""An output path (an HTML report, an OTLP file) must not be one of the inputs.

``handoff-sim run x.yaml --html x.yaml`` would replace the scenario file with the report.
An output is refused when it is an input (the same path, or the same file through a
symbolic or a hard link), when it would land in a scenario directory as a ``.yaml`` or
``.yml`` file (replacing a scenario file, or read as one by the next run), or when two
outputs are one file. The command line and the pytest plugin both ask here.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from handoff_sim.scenarios._load._discovery import SUFFIXES, discover

__all__ = ["output_problems"]


def output_problems(
    outputs: Sequence[tuple[str, str | Path | None]], inputs: Sequence[str | Path]
) -> list[str]:
    """Why each output may not be written, as ``OPTION PATH: reason`` (empty: all may).

    ``outputs`` are ``(option, path)`` pairs (a ``None`` path was not given); ``inputs``
    the scenario files and directories the command reads.
    """
    given = [(option, Path(path)) for option, path in outputs if path]
    problems = []
    for index, (option, path) in enumerate(given):
        reason = _input_problem(path, [Path(p) for p in inputs])
        if reason is None:
            reason = next(
                (f"is also {o} {p}" for o, p in given[:index] if _same_file(path, p)), None
            )
        if reason is not None:
            problems.append(f"{option} {path}: {reason}")
    return problems


def _input_problem(output: Path, inputs: list[Path]) -> str | None:
    """How ``output`` would overwrite (or be read as) one of ``inputs``, or None."""
    real = os.path.realpath(output)
    for given in inputs:
        directory = given.is_dir()
        if _same_file(output, given):
            what = "directory" if directory else "file"
            return f"is the scenario {what} {given}: it would be overwritten"
        if not directory:
            continue
        inside = _inside(real, os.path.realpath(given))
        if inside and Path(real).suffix in SUFFIXES and os.path.isfile(real):
            return f"is the scenario file {real}: it would be overwritten"  # through a link
        if inside and output.suffix in SUFFIXES:
            return (
                f"is a {output.suffix} file in the scenario directory {given}: it would "
                "replace a scenario file, or be read as one"
            )
        linked = _hard_link_in(output, given)
        if linked is not None:
            return f"is the scenario file {linked} (a hard link): it would be overwritten"
    return None


def _same_file(first: Path, second: Path) -> bool:
    """The same path once links are resolved, or (both existing) the same file."""
    if os.path.realpath(first) == os.path.realpath(second):
        return True
    try:
        return os.path.samefile(first, second)
    except (OSError, ValueError):  # one of them does not exist (yet)
        return False


def _inside(path: str, folder: str) -> bool:
    return path.startswith(folder if folder.endswith(os.sep) else folder + os.sep)


def _hard_link_in(output: Path, folder: Path) -> Path | None:
    """The scenario file under ``folder`` that ``output`` is another name of, if any.

    Only an existing file with more than one link is looked for, so the tree is walked
    only then.
    """
    try:
        facts = output.stat()
    except (OSError, ValueError):
        return None
    if facts.st_nlink < 2:
        return None
    for file in discover([folder]).files:
        try:
            found = file.stat()
        except OSError:
            continue
        if (found.st_dev, found.st_ino) == (facts.st_dev, facts.st_ino):
            return file
    return None
