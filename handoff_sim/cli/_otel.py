"""``handoff-sim check`` and ``handoff-sim run --otel``: traces in and out as OTLP/JSON.

``check TRACE.json [--expect FILE_OR_DIR]`` reads every trace of an OTLP/JSON file
(no OpenTelemetry package needed), checks the invariants of each and, with
``--expect``, a scenario's ``expect`` block, printing the same report as a failed
scenario; with ``--gate``/``--gates``, thresholds (``cli/_check_gates.py``) as a table and
``--junitxml``. Exit 0 when all hold, 1 when one does not, 2 on an ill-formed file,
5 when the file holds no span. :func:`open_suite` and :func:`close_suite` wrap
``handoff_sim.otel._suite.OtelSuite`` for ``run --otel``: the file of every scenario's trace.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from handoff_sim._terminal import escape_value
from handoff_sim.cli._check_gates import add_gate_arguments, check_trace_gates, chosen_gates

if TYPE_CHECKING:
    from handoff_sim.otel._suite import OtelSuite
    from handoff_sim.scenarios import LoadedScenario, ScenarioResult
    from handoff_sim.trace import ImportedTrace, Trace

__all__ = [
    "CHECK_HELP",
    "OTEL_HELP",
    "add_check_arguments",
    "close_suite",
    "open_suite",
    "run_check",
]

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_NOTHING = 0, 1, 2, 5

CHECK_HELP = (
    "check a recorded trace (OTLP JSON): invariants, a scenario's expect block, and gates "
    "(thresholds on latency, depth, loops, forbidden tools, error rates)"
)
OTEL_HELP = (
    "also write every scenario's trace to FILE as OTLP JSON (OpenTelemetry GenAI spans; "
    "needs the optional extra 'otel')"
)


def add_check_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``handoff-sim check``."""
    parser.add_argument(
        "trace", metavar="TRACE", help="an OTLP/JSON file (one request, or one per line)"
    )
    parser.add_argument(
        "--expect",
        metavar="PATH",
        help="a scenario file, a directory of them, or a file holding an expect block alone: "
        "the expectations the trace(s) must meet; a file holding several traces is matched "
        "to scenarios by name (path::scenario, or the scenario id)",
    )
    parser.add_argument(
        "--trace-id",
        dest="trace_id",
        metavar="ID",
        help="check only the trace with this id or name",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="print failures only")
    add_gate_arguments(parser)


@dataclass
class _Report:
    out: TextIO
    err: TextIO
    quiet: bool
    failed: int = 0
    passed: int = 0
    notes: list[str] = field(default_factory=list)

    def exit_code(self) -> int:
        return EXIT_FAILED if self.failed else EXIT_OK


def run_check(args: argparse.Namespace) -> int:
    """Run ``handoff-sim check`` with parsed ``args``; returns the exit code."""
    from handoff_sim.errors import OtlpError
    from handoff_sim.trace import read_otlp

    out, err = sys.stdout, sys.stderr
    gates, readable = chosen_gates(args, err)
    if not readable:
        return EXIT_USAGE
    try:
        traces = read_otlp(args.trace)
    except OtlpError as exc:
        print(f"handoff-sim check: {exc}", file=err)
        return EXIT_USAGE
    if args.trace_id is not None:
        traces = [t for t in traces if args.trace_id in (t.trace_id, t.name)]
        if not traces:
            print(f"handoff-sim check: {args.trace}: no trace {args.trace_id!r}", file=err)
            return EXIT_USAGE
    if not traces:
        print(f"handoff-sim check: {args.trace}: holds no span, nothing to check", file=err)
        return EXIT_NOTHING
    report = _Report(out, err, args.quiet)
    if not _check_each(traces, args.expect, report):
        return EXIT_USAGE
    print(f"== {report.passed} passed, {report.failed} failed ==", file=out)
    if gates is not None:
        held = check_trace_gates(traces, gates, args, out, err)
        return EXIT_USAGE if held is None else max(report.exit_code(), int(not held))
    return report.exit_code()


def _check_each(traces: list[ImportedTrace], expect: str | None, report: _Report) -> bool:
    """The invariants of each trace, and ``expect``'s scenarios; False when those cannot
    be paired with the traces (after saying why)."""
    if expect is None:
        for trace in traces:
            _check_alone(trace, report)
        return True
    pairs = _pairs(traces, expect, report.err)
    if pairs is None:
        return False
    for trace, scenario in pairs:
        if scenario is None:
            _check_alone(trace, report)
        else:
            _check_against(trace, scenario, report)
    return True


def _label(trace: ImportedTrace) -> str:
    """The trace's name for a report line; a control character in it is an escape."""
    return escape_value(f"{trace.source}::{trace.label}")


def _violations(trace: Trace) -> list[str]:
    from handoff_sim._invariants import check_invariants

    return [escape_value(v) for v in check_invariants(trace)]


def _notes(trace: ImportedTrace) -> list[str]:
    lines = [f"note: {escape_value(note)}" for note in trace.notes]
    lines += [f"not mapped: {escape_value(span)}" for span in trace.unmapped]
    return lines


def _check_alone(trace: ImportedTrace, report: _Report) -> None:
    violations = _violations(trace)
    out = report.out
    if violations:
        report.failed += 1
        print(f"FAIL {_label(trace)}: {len(violations)} invariant violation(s)", file=out)
        for line in violations:
            print(f"  - {line}", file=out)
    else:
        report.passed += 1
        count = len(trace.handoffs())
        print(f"PASS {_label(trace)} ({len(trace)} events, {count} handoff(s))", file=out)
    _print_notes(trace, report)
    if violations or not report.quiet:
        _print_trace(trace, out, events=bool(violations))


def _check_against(trace: ImportedTrace, scenario: LoadedScenario, report: _Report) -> None:
    from handoff_sim.cli._trace_check import check_recorded
    from handoff_sim.scenarios import render_failure

    result = check_recorded(trace, scenario)
    violations = _violations(trace)
    out = report.out
    where = f"{_label(trace)} against {escape_value(scenario.path)}::{scenario.id}"
    if result.passed and not violations:
        report.passed += 1
        print(f"PASS {where}", file=out)
        _print_notes(trace, report)
        if not report.quiet:
            _print_trace(trace, out, events=False)
        return
    report.failed += 1
    print(f"FAIL {where}", file=out)
    print(render_failure(_as_failed(result)).rstrip("\n"), file=out)
    if violations:
        print("\ninvariant violations:", file=out)
        for line in violations:
            print(f"  - {line}", file=out)
    _print_notes(trace, report)


def _as_failed(result: ScenarioResult) -> ScenarioResult:
    return replace(result, passed=False)


def _print_notes(trace: ImportedTrace, report: _Report) -> None:
    for line in _notes(trace):
        print(f"  {line}", file=report.out)


def _print_trace(trace: Trace, out: TextIO, *, events: bool) -> None:
    print(_indent(trace.render_tree()), file=out)
    if events:
        print(_indent(trace.render() or "(no events)\n"), file=out)


def _indent(text: str) -> str:
    return "\n".join(f"    {line}" for line in text.rstrip("\n").split("\n"))


def _pairs(
    traces: list[ImportedTrace], expect: str, err: TextIO
) -> list[tuple[ImportedTrace, LoadedScenario | None]] | None:
    """Each trace with the scenario it is checked against (``None``: invariants only)."""
    from handoff_sim.scenarios._errors import ScenarioError

    try:
        scenarios = load_expectations(expect)
    except ScenarioError as exc:
        print(exc, file=err)
        return None
    if not scenarios:
        print(f"handoff-sim check: --expect {expect}: no scenario found", file=err)
        return None
    if len(traces) == 1 and len(scenarios) == 1:
        return [(traces[0], scenarios[0])]
    chosen = _choose(traces, scenarios, err)
    if chosen is None:
        return None
    picked = {id(scenario) for scenario in chosen.values()}
    missing = [scenario for scenario in scenarios if id(scenario) not in picked]
    if not chosen:
        names = ", ".join(escape_value(t.label) for t in traces[:10])
        print(
            f"handoff-sim check: no scenario of {expect} has a trace of its name "
            f"(path::scenario or the scenario id) in the file (traces: {names})",
            file=err,
        )
        return None
    for scenario in missing:
        print(
            f"SKIP {escape_value(scenario.path)}::{scenario.id}: no trace of that name in the file "
            "(a run that recorded no event leaves none)",
            file=err,
        )
    return [(trace, chosen.get(index)) for index, trace in enumerate(traces)]


def _choose(
    traces: list[ImportedTrace], scenarios: list[LoadedScenario], err: TextIO
) -> dict[int, LoadedScenario] | None:
    """Trace index -> the scenario it is checked against; ``None`` (after saying why) when
    two scenarios name one trace equally well: one of them would never be checked."""
    chosen: dict[int, tuple[int, LoadedScenario]] = {}
    for scenario in scenarios:
        found = _match(traces, scenario)
        if found is None:
            continue
        index, rank = found
        held = chosen.get(index)
        if held is not None and held[0] == rank:
            print(_ambiguous(traces[index], held[1], scenario), file=err)
            return None
        if held is None or rank < held[0]:  # a full path::scenario name beats a bare id
            chosen[index] = (rank, scenario)
    return {index: scenario for index, (_, scenario) in chosen.items()}


def _ambiguous(trace: ImportedTrace, first: LoadedScenario, second: LoadedScenario) -> str:
    """Why a trace matched by two scenarios of ``--expect`` is refused, naming both."""
    return (
        f"handoff-sim check: trace {trace.label!r} matches scenario {first.id!r} at "
        f"{first.path}:{first.line} and at {second.path}:{second.line}; name the trace "
        "path::scenario, or give --expect one of the files"
    )


_EXPECT_ONLY = frozenset({"scenario", "description", "tags", "seed", "expect"})
_STAND_IN = "agents: {recorded: {model: {script: [unused]}}}\nrun: [recorded]\n"


def load_expectations(path: str | Path) -> list[LoadedScenario]:
    """Scenarios to check traces against: scenario files, or one file holding an ``expect``
    block alone (``scenario``, ``description`` and ``tags`` allowed beside it).

    An expect-only file is given a stand-in agent and turn after its last line, so every
    line number of a mismatch is still the file's own.
    """
    from handoff_sim._files import UnreadableFile, read_regular
    from handoff_sim._limits import MAX_SCENARIO_FILE_BYTES
    from handoff_sim.scenarios import load_path, load_text
    from handoff_sim.scenarios._load import ParsedYaml, parse_yaml

    file = Path(path)
    if not file.is_file():
        return load_path(file)
    try:
        text = read_regular(file, MAX_SCENARIO_FILE_BYTES).decode("utf-8")
    except (UnreadableFile, UnicodeDecodeError):
        return load_path(file)  # reports the problem the way scenario files do
    parsed = parse_yaml(text, str(file))
    data = parsed.data if isinstance(parsed, ParsedYaml) else None
    block = not text.lstrip().startswith(("{", "["))
    if not (block and isinstance(data, dict) and "expect" in data and set(data) <= _EXPECT_ONLY):
        return load_path(file)
    if "scenario" in data:
        return load_text(f"{text.rstrip()}\n{_STAND_IN}", file)
    loaded = load_text(f"{text.rstrip()}\nscenario: recorded\n{_STAND_IN}", file)
    return [replace(scenario, line=1) for scenario in loaded]  # the name is ours, not a line


def _match(traces: Sequence[ImportedTrace], scenario: LoadedScenario) -> tuple[int, int] | None:
    """The index of the trace named after ``scenario``, and how closely (0: its full name)."""
    full = f"{scenario.path}::{scenario.id}"
    names = [t.name or "" for t in traces]
    for rank, candidates in enumerate(
        (
            [i for i, n in enumerate(names) if n == full],
            [i for i, n in enumerate(names) if _same_file(n, scenario)],
            [i for i, n in enumerate(names) if n == scenario.id or n.endswith(f"::{scenario.id}")],
        )
    ):
        if len(candidates) == 1:
            return candidates[0], rank
    return None


def _same_file(name: str, scenario: LoadedScenario) -> bool:
    path, _, ident = name.rpartition("::")
    if ident != scenario.id or not path:
        return False
    try:
        return os.path.samefile(path, scenario.path)
    except OSError:
        return False


def open_suite(path: str | None, err: TextIO) -> tuple[OtelSuite | None, bool]:
    """The suite ``--otel PATH`` asks for (``None`` without it), and whether it could open."""
    if path is None:
        return None, True
    try:
        from handoff_sim.otel._suite import OtelSuite
    except ImportError as exc:
        print(f"handoff-sim run --otel: {exc}", file=err)
        return None, False
    return OtelSuite(path), True


def close_suite(suite: OtelSuite | None, err: TextIO) -> bool:
    """Write the suite's file, if any; ``False`` (after saying why) when it cannot be written."""
    if suite is None:
        return True
    try:
        suite.write()
    except OSError as exc:
        print(f"handoff-sim run --otel: cannot write {suite.path}: {exc.strerror or exc}", file=err)
        return False
    print(f"handoff-sim run --otel: {suite.summary()}", file=err)
    return True
