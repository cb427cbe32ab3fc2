"""``handoff-sim fuzz``: run generated (and bundled) scenarios and check every invariant.

Exit status 0 when no invariant broke, 1 when one did (the shrunk case is
written as a Python and a YAML reproducer), 2 for bad arguments: every number has a
range (``MAX_*`` below), and so has the size of the trees that depth and breadth allow.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from handoff_sim._durations import shown
from handoff_sim._limits import MAX_SECONDS
from handoff_sim.fuzzing import FAULTS, FuzzFailure, ScenarioOptions
from handoff_sim.fuzzing._case import case_of, check_case
from handoff_sim.fuzzing._faults import Fault
from handoff_sim.fuzzing._repro import write_reproducer
from handoff_sim.fuzzing._seeded import seeded_search
from handoff_sim.fuzzing._stats import FuzzStats

if TYPE_CHECKING:
    from handoff_sim.scenarios import LoadedScenario

__all__ = [
    "DEFAULT_EXAMPLES",
    "MAX_AGENTS",
    "MAX_BREADTH",
    "MAX_DEPTH",
    "MAX_EXAMPLES",
    "MAX_SEED",
    "build_parser",
    "main",
    "tree_size",
]

DEFAULT_EXAMPLES = 200
MAX_EXAMPLES = 10_000_000
"""``--examples``: 1 to this many generated cases (days of fuzzing; ``--seconds`` for longer)."""
MAX_DEPTH = 20
"""``--max-depth``: 0 (one agent) to this many levels of sub-agents."""
MAX_BREADTH = 100
"""``--max-breadth``: 0 to this many sub-agents per agent."""
MAX_AGENTS = 1_000
"""The most agents a tree of ``--max-depth`` and ``--max-breadth`` may hold (1 + b + b² + …
+ b^d): a generated case of the largest takes about 0.1 s, so the default 200 examples end
within a minute."""
MAX_SEED = 2**64 - 1
"""``--seed``: 0 to this (an unseeded run picks a 32-bit seed)."""
_PROGRESS_EVERY = 50


def build_parser(prog: str = "handoff-sim fuzz") -> argparse.ArgumentParser:
    """The options of ``handoff-sim fuzz``."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Fuzz handoff configurations against adversarial and scripted models.",
    )
    parser.add_argument(
        "--examples",
        type=_integer(1, MAX_EXAMPLES),
        default=None,
        metavar="N",
        help=f"generated cases, 1 to {MAX_EXAMPLES:,} (default {DEFAULT_EXAMPLES})",
    )
    parser.add_argument(
        "--seconds",
        type=_seconds,
        default=None,
        metavar="SECONDS",
        help=f"a wall-clock budget instead, more than 0 and at most {MAX_SECONDS:,.0f} (a year)",
    )
    parser.add_argument(
        "--seed",
        type=_integer(0, MAX_SEED),
        default=None,
        metavar="N",
        help="seed of the search, 0 to 2**64-1 (default: a random one, printed)",
    )
    parser.add_argument(
        "--max-depth",
        type=_integer(0, MAX_DEPTH),
        default=2,
        metavar="N",
        help=f"deepest sub-agent level, 0 to {MAX_DEPTH} (default 2)",
    )
    parser.add_argument(
        "--max-breadth",
        type=_integer(0, MAX_BREADTH),
        default=2,
        metavar="N",
        help=f"sub-agents per agent, 0 to {MAX_BREADTH} (default 2); the tree they allow may "
        f"hold at most {MAX_AGENTS:,} agents",
    )
    parser.add_argument(
        "--scenarios",
        action="append",
        default=None,
        metavar="DIR",
        help="also run these scenario files or folders (default: ./scenarios if present)",
    )
    parser.add_argument(
        "--out", default=".handoff-fuzz", help="where reproducers go (default .handoff-fuzz)"
    )
    parser.add_argument(
        "--inject-fault",
        choices=sorted(FAULTS),
        default=None,
        help="test-only: break the runtime on purpose to prove the fuzzer catches it",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    return parser


def _integer(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: an integer from ``low`` to ``high``, else a usage error saying so."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"must be an integer from {low:,} to {high:,}, got {shown(text)}"
            )
        return value

    parse.__name__ = "integer"  # argparse names the type in its own messages
    return parse


def _seconds(text: str) -> float:
    """An argparse type: a finite number of seconds, more than 0 and at most ``MAX_SECONDS``."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value <= MAX_SECONDS:  # nan fails it too
        raise argparse.ArgumentTypeError(
            f"must be a number of seconds more than 0 and at most {MAX_SECONDS:,.0f} "
            f"(a year), got {shown(text)}"
        )
    return value


def tree_size(depth: int, breadth: int) -> int:
    """The most agents a generated tree may hold: ``1 + breadth + breadth**2 + ... (depth)``."""
    return sum(breadth**level for level in range(depth + 1))


def _check_tree(parser: argparse.ArgumentParser, options: argparse.Namespace) -> None:
    """A usage error (exit 2) when depth and breadth allow trees of more than ``MAX_AGENTS``."""
    size = tree_size(options.max_depth, options.max_breadth)
    if size > MAX_AGENTS:
        parser.error(
            f"--max-depth {options.max_depth} with --max-breadth {options.max_breadth} allows "
            f"trees of {size:,} agents (1 + b + b^2 + ... + b^d), more than {MAX_AGENTS:,}: "
            "lower one of them"
        )


class _Session:
    """One fuzz session: counters, progress and the failures found."""

    def __init__(self, options: argparse.Namespace, err: TextIO) -> None:
        self.options = options
        self.err = err
        self.started = time.monotonic()
        self.stats = FuzzStats(on_run=self._progress)
        self.failures: list[tuple[FuzzFailure, tuple[Path, Path]]] = []
        self.scenario_notes: list[str] = []
        self.seed: int = (
            options.seed if options.seed is not None else random.SystemRandom().getrandbits(32)
        )

    def _progress(self, stats: FuzzStats) -> None:
        if not self.options.quiet and stats.runs % _PROGRESS_EVERY == 0:
            print(
                f"fuzz: {stats.runs} runs, {len(self.failures)} failures, "
                f"{time.monotonic() - self.started:.1f}s",
                file=self.err,
            )

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def fail(self, failure: FuzzFailure) -> None:
        paths = write_reproducer(failure.case, self.options.out, fault=failure.fault)
        self.failures.append((failure, paths))

    def generated(self) -> None:
        """Search generated cases by example count or time budget, until a failure."""
        options = self.options
        examples = options.examples
        if examples is None and options.seconds is None:
            examples = DEFAULT_EXAMPLES
        failure = seeded_search(
            ScenarioOptions(max_depth=options.max_depth, max_breadth=options.max_breadth),
            examples=examples,
            seconds=None if options.seconds is None else options.seconds - self.elapsed(),
            seed=self.seed,
            stats=self.stats,
            fault=options.inject_fault,
        )
        if failure is not None:
            self.fail(failure)

    def bundled(self) -> None:
        """Run every bundled scenario file once and check its invariants."""
        folders = self.options.scenarios
        if folders is None:
            folders = ["scenarios"] if Path("scenarios").is_dir() else []
        from handoff_sim.scenarios._errors import ScenarioError

        for folder in folders:
            for case, source in self._load(folder):
                try:
                    result = check_case(
                        case, fault=_fault(self.options.inject_fault), source=source
                    )
                except ScenarioError as exc:  # e.g. a model kind only a plugin builds
                    self.scenario_notes.append(f"not fuzzed: {exc}")
                    continue
                self.stats.record(result)
                if result.violations:
                    self.fail(FuzzFailure(case, result.violations, self.options.inject_fault))

    def _load(self, folder: str) -> list[tuple[dict[str, Any], LoadedScenario]]:
        from handoff_sim.scenarios import load_path
        from handoff_sim.scenarios._errors import ScenarioError

        try:
            loaded = load_path(folder)
        except ScenarioError as exc:
            self.scenario_notes.append(f"{folder}: not loaded: {exc}")
            return []
        return [(case_of(s), s) for s in loaded]


def _fault(name: str | None) -> Callable[[], Fault] | None:
    return FAULTS[name] if name is not None else None


def _summary(session: _Session, out: TextIO) -> None:
    stats = session.stats
    print(
        f"handoff-sim fuzz: {stats.runs} runs, {stats.checks} invariant checks "
        f"({stats.checks_per_run} per run), {len(session.failures)} failure(s) "
        f"in {session.elapsed():.1f}s",
        file=out,
    )
    if stats.build_errors or stats.run_errors:
        errors = ", ".join(f"{k} x{v}" for k, v in sorted(stats.run_errors.items()))
        print(
            f"  expected outcomes: {stats.build_errors} refused at construction; "
            f"run errors: {errors or 'none'}",
            file=out,
        )
    if session.options.seed is None:
        print(f"  seed {session.seed} (run again with --seed {session.seed})", file=out)
    for note in session.scenario_notes:
        print(f"  {note}", file=out)
    for failure, (python_path, yaml_path) in session.failures:
        print(f"FAILED {failure.case.get('scenario')} (seed {failure.case.get('seed')}):", file=out)
        for violation in failure.violations:
            print(f"  - {violation}", file=out)
        print(f"  reproduce: python {python_path}", file=out)
        print(f"  scenario:  {yaml_path}", file=out)


def main(args: Sequence[str] | None = None) -> int:
    """Entry point of ``handoff-sim fuzz``; returns the exit status."""
    parser = build_parser()
    try:
        options = parser.parse_args(list(sys.argv[1:] if args is None else args))
        _check_tree(parser, options)
    except SystemExit as exc:
        return int(exc.code or 0)
    session = _Session(options, sys.stderr)
    session.bundled()
    if not session.failures:
        session.generated()
    _summary(session, sys.stdout)
    return 1 if session.failures else 0
