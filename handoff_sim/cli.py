"""The ``handoff-sim`` command: run, validate and render scenario files; print the schema.

Exit codes: 0 all good, 1 a scenario failed, 2 a file or the command line is wrong.
Errors go to stderr as ``path:line:col: field: message``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TextIO

__all__ = ["main"]

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
RENDER_FORMATS = ("text", "jsonl", "mermaid", "tree")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="handoff-sim",
        description="Run and check handoff scenario files in virtual time.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    run = commands.add_parser("run", help="run scenarios and check their expectations")
    run.add_argument("paths", nargs="+", metavar="PATH", help="scenario files or directories")
    run.add_argument("-k", dest="keyword", help="only scenarios whose id contains this text")
    run.add_argument("-q", "--quiet", action="store_true", help="print traces of failures only")
    validate = commands.add_parser("validate", help="check scenario files without running them")
    validate.add_argument("paths", nargs="+", metavar="PATH")
    schema = commands.add_parser("schema", help="print the JSON Schema of scenario files")
    schema.add_argument("-o", "--output", metavar="FILE", help="write it to FILE instead")
    render = commands.add_parser("render", help="run one scenario and print its trace")
    render.add_argument("path", metavar="PATH")
    render.add_argument("-s", "--scenario", help="the scenario id, when the file holds several")
    render.add_argument("--format", choices=RENDER_FORMATS, default="text")
    fuzz = commands.add_parser("fuzz", help="fuzz policy configurations (if installed)")
    fuzz.add_argument("args", nargs=argparse.REMAINDER)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit code."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["fuzz"]:  # everything after it belongs to the fuzzing command
        return _fuzz(args_list[1:])
    parser = _parser()
    try:
        args, extra = parser.parse_known_args(args_list)
    except SystemExit as stop:
        return int(stop.code) if isinstance(stop.code, int) else EXIT_USAGE
    if extra:
        print(f"handoff-sim: unrecognized arguments: {' '.join(extra)}", file=sys.stderr)
        return EXIT_USAGE
    handlers = {"run": _run, "validate": _validate, "schema": _schema, "render": _render}
    return handlers[args.command](args)


def _files(paths: Sequence[str], err: TextIO) -> Iterator[Path]:
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*") if p.suffix in (".yaml", ".yml"))
        elif path.is_file():
            yield path
        else:
            print(f"{raw}: no such file or directory", file=err)
            yield path  # loading it reports the error and counts it


def _load(path: Path, err: TextIO) -> list[object] | None:
    from handoff_sim.scenarios import ScenarioFileError, load_file

    if not path.exists():
        return None
    try:
        return list(load_file(path))
    except ScenarioFileError as exc:
        print(exc, file=err)
        return None


def _run(args: argparse.Namespace) -> int:
    from handoff_sim.scenarios import LoadedScenario, ScenarioError, render_failure, run_scenario

    out, err = sys.stdout, sys.stderr
    passed = failed = errors = 0
    for path in _files(args.paths, err):
        loaded = _load(path, err)
        if loaded is None:
            errors += 1
            continue
        for scenario in loaded:
            assert isinstance(scenario, LoadedScenario)
            if args.keyword and args.keyword not in scenario.id:
                continue
            try:
                result = run_scenario(scenario)
            except ScenarioError as exc:
                print(exc, file=err)
                errors += 1
                continue
            where = f"{scenario.path}::{scenario.id}"
            if result.passed:
                passed += 1
                print(f"PASS {where} ({_virtual(result.elapsed_ms)} virtual)", file=out)
                if not args.quiet:
                    _print_trace(result.trace, out)
            else:
                failed += 1
                print(f"FAIL {where}", file=out)
                print(render_failure(result), file=out)
    print(f"== {passed} passed, {failed} failed, {errors} error(s) ==", file=out)
    if errors:
        return EXIT_USAGE
    return EXIT_FAILED if failed else EXIT_OK


def _print_trace(trace: object, out: TextIO) -> None:
    from handoff_sim.trace import Trace

    assert isinstance(trace, Trace)
    print(_indent(trace.render_tree()), file=out)
    print(_indent(trace.render()), file=out)


def _indent(text: str) -> str:
    return "\n".join(f"    {line}" for line in text.rstrip("\n").splitlines())


def _validate(args: argparse.Namespace) -> int:
    out, err = sys.stdout, sys.stderr
    status = EXIT_OK
    for path in _files(args.paths, err):
        loaded = _load(path, err)
        if loaded is None:
            status = EXIT_USAGE
        else:
            print(f"ok {path}: {len(loaded)} scenario(s)", file=out)
    return status


def _schema(args: argparse.Namespace) -> int:
    from handoff_sim.scenarios import scenario_json_schema

    text = json.dumps(scenario_json_schema(), indent=2, ensure_ascii=False) + "\n"
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return EXIT_OK


def _render(args: argparse.Namespace) -> int:
    from handoff_sim.scenarios import LoadedScenario, ScenarioError, run_scenario

    err = sys.stderr
    path = Path(args.path)
    if not path.is_file():
        print(f"{args.path}: no such file", file=err)
        return EXIT_USAGE
    loaded = _load(path, err)
    if loaded is None:
        return EXIT_USAGE
    chosen = [s for s in loaded if isinstance(s, LoadedScenario)]
    if args.scenario is not None:
        chosen = [s for s in chosen if args.scenario in (s.id, s.name)]
    if len(chosen) != 1:
        ids = ", ".join(s.id for s in loaded if isinstance(s, LoadedScenario))
        what = "no scenario matches" if not chosen else "several scenarios match"
        print(f"{path}: {what}; choose one with --scenario (ids: {ids})", file=err)
        return EXIT_USAGE
    try:
        result = run_scenario(chosen[0])
    except ScenarioError as exc:
        print(exc, file=err)
        return EXIT_USAGE
    trace = result.trace
    forms = {
        "text": trace.render,
        "jsonl": trace.to_jsonl,
        "mermaid": trace.to_mermaid,
        "tree": trace.render_tree,
    }
    text = forms[args.format]()
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return EXIT_OK


def _fuzz(argv: list[str]) -> int:
    try:
        module = importlib.import_module("handoff_sim.fuzzing.cli")
    except ModuleNotFoundError as exc:
        if exc.name not in ("handoff_sim.fuzzing", "handoff_sim.fuzzing.cli"):
            raise
        print("handoff-sim fuzz: fuzzing is not available in this installation", file=sys.stderr)
        return EXIT_USAGE
    code = module.main(argv)
    return int(code) if isinstance(code, int) else EXIT_OK


def _virtual(ms: float) -> str:
    """A virtual duration for people: ``250ms``, ``90s``, ``2h30m``, ``30d``."""
    if ms < 1000:
        return f"{ms:g}ms"
    seconds = ms / 1000
    if seconds < 120:
        return f"{seconds:g}s"
    minutes, sec = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    days, hours = divmod(hours, 24)
    parts = [(days, "d"), (hours, "h"), (minutes, "m"), (sec, "s")]
    return "".join(f"{n}{unit}" for n, unit in parts if n) or "0s"
