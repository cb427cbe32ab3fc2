"""The ``handoff-sim`` command: run, validate and render scenario files; print the schema.

Exit codes: 0 all good, 1 a scenario failed, 2 a file, a plugin or the command line is
wrong, 5 nothing was selected (as pytest), 130 interrupted, 141 output closed. Errors go
to stderr as ``path:line:col: field: message``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from handoff_sim._terminal import escape_json, safe_streams
from handoff_sim.cli._otel import close_suite, open_suite, run_check
from handoff_sim.cli._parser import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_NOTHING,
    EXIT_OK,
    EXIT_OUTPUT_CLOSED,
    EXIT_USAGE,
    build_parser,
)
from handoff_sim.cli._recording import read_policies, run_record, scenario_outcome
from handoff_sim.cli._report import CommandReport
from handoff_sim.cli._run_output import NORMAL, QUIET, VERBOSE, RunOutput

if TYPE_CHECKING:
    from handoff_sim.adapters._registry import RuntimeFactory
    from handoff_sim.cli._plugins import CommandPlugins
    from handoff_sim.otel._suite import OtelSuite
    from handoff_sim.scenarios import LoadedScenario, ScenarioRuntime
    from handoff_sim.scenarios._build import ModelFactory
    from handoff_sim.scenarios._schema import PolicySpec

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit code."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    try:
        with safe_streams():  # the last line of defence: no control character reaches a terminal
            if args_list[:1] == ["fuzz"]:  # everything after it belongs to the fuzzing command
                return _fuzz(args_list[1:])
            return _dispatch(args_list)
    except KeyboardInterrupt:
        print("handoff-sim: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader went away: stop quietly, as `cat | head` does
        _silence_stdout()
        return EXIT_OUTPUT_CLOSED


def _silence_stdout() -> None:
    """Point stdout at the null device, so flushing it at exit cannot fail again."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
    except (OSError, ValueError):  # no real file behind stdout (a test's capture)
        pass


def _dispatch(args_list: list[str]) -> int:
    parser = build_parser()
    try:
        args, extra = parser.parse_known_args(args_list)
    except SystemExit as stop:
        return int(stop.code) if isinstance(stop.code, int) else EXIT_USAGE
    if extra:
        print(f"handoff-sim: unrecognized arguments: {' '.join(extra)}", file=sys.stderr)
        return EXIT_USAGE
    handlers = {
        "run": _run,
        "validate": _validate,
        "schema": _schema,
        "render": _render,
        "check": run_check,
        "record": run_record,
    }
    return handlers[args.command](args)


def _plugins(args: argparse.Namespace) -> CommandPlugins | None:
    from handoff_sim.cli._plugins import CommandPlugins, PluginLoadError

    try:
        return CommandPlugins(args.plugins)
    except PluginLoadError as exc:
        print(f"handoff-sim: {exc}", file=sys.stderr)
        return None


def _scenario_files(paths: Sequence[str], err: TextIO) -> tuple[list[Path], int]:
    """The files to load, each once; every broken path or link is reported and counted."""
    from handoff_sim.scenarios._load import discover

    found = discover(paths)
    for problem in found.problems:
        print(problem.format(), file=err)
    return found.files, len(found.problems)


def _load(path: Path, plugins: CommandPlugins, err: TextIO) -> list[LoadedScenario] | None:
    """The scenarios of a file, or ``None`` once its problems are printed.

    Model kinds are checked here, with the plugins' factories, as pytest collection does.
    """
    from handoff_sim.scenarios import ScenarioFileError, load_file
    from handoff_sim.scenarios._build import model_kind_problems

    try:
        loaded = load_file(path)
    except ScenarioFileError as exc:
        print(exc, file=err)
        return None
    problems = model_kind_problems(
        loaded, lambda s: plugins.model_factories(s) if plugins.runtime(s) is None else None
    )
    if problems:
        print(ScenarioFileError(path, problems), file=err)
        return None
    return loaded


@dataclass
class _Tally:
    passed: int = 0
    failed: int = 0
    errors: int = 0
    deselected: int = 0
    not_applicable: int = 0

    def summary(self) -> str:
        text = f"{self.passed} passed, {self.failed} failed, {self.errors} error(s)"
        if self.not_applicable:
            text += f", {self.not_applicable} not applicable"
        return f"== {text}, {self.deselected} deselected ==" if self.deselected else f"== {text} =="

    def exit_code(self) -> int:
        if self.errors:
            return EXIT_USAGE
        if self.failed:
            return EXIT_FAILED
        return EXIT_OK if self.passed or self.not_applicable else EXIT_NOTHING


def _outputs_refused(args: argparse.Namespace) -> bool:
    """Whether ``--html`` or ``--otel`` is refused (each reason printed): it is one of the
    inputs, a ``.yaml`` in a scenario directory, or the other option's file."""
    from handoff_sim.scenarios._load import output_problems

    problems = output_problems([("--html", args.html), ("--otel", args.otel)], args.paths)
    for problem in problems:
        print(f"handoff-sim run: {problem}", file=sys.stderr)
    return bool(problems)


def _run(args: argparse.Namespace) -> int:
    if _outputs_refused(args):  # before anything runs or is written
        return EXIT_USAGE
    report = CommandReport(args.html)  # does nothing without --html
    out, err = sys.stdout, report.watch(sys.stderr)
    plugins = _plugins(args)
    suite, opened = open_suite(args.otel, err)
    usable, runtime = _runtime(args.runtime, err)
    policies = read_policies(args, err)
    if plugins is None or not opened or not usable or policies is None:
        return EXIT_USAGE
    files, broken = _scenario_files(args.paths, err)
    report.add_problem(", ".join(args.paths), id="<paths>")
    tally = _Tally(errors=broken)
    verbosity = QUIET if args.quiet else VERBOSE if args.verbose else NORMAL
    shown = RunOutput(out, verbosity, framework=runtime is not None)
    for path in files:
        loaded = _load(path, plugins, err)
        if loaded is None:
            tally.errors += 1
            report.add_problem(path)
            continue
        for scenario in loaded:
            if args.keyword and args.keyword not in scenario.id:
                tally.deselected += 1
            else:
                chosen = _ChosenRuntime(args.runtime, runtime)
                _run_one(scenario, plugins, shown, tally, suite, report, chosen, policies)
    shown.finish(tally.summary())
    written = report.write(out, err)
    code = tally.exit_code() if close_suite(suite, err) and written else EXIT_USAGE
    if code == EXIT_NOTHING:
        print(f"handoff-sim run: {_nothing(tally, args, files)}", file=err)
    return code


_NO_REPORT = CommandReport(None)


@dataclass(frozen=True)
class _ChosenRuntime:
    """``--runtime``'s name and factory; a recording still runs where it was recorded."""

    name: str
    factory: RuntimeFactory | None

    def for_scenario(
        self, scenario: LoadedScenario, factories: Sequence[ModelFactory]
    ) -> ScenarioRuntime | None:
        from handoff_sim.adapters._recorded_runtime import runtime_for

        return runtime_for(scenario, self.name, self.factory, factories)


def _runtime(name: str, err: TextIO) -> tuple[bool, RuntimeFactory | None]:
    """Whether ``--runtime`` is usable, and its factory (``None``: handoff-sim's own)."""
    from handoff_sim.adapters import MissingExtraError, runtime_factory

    try:
        return True, runtime_factory(name)
    except MissingExtraError as exc:
        print(f"handoff-sim run: --runtime {name}: {exc}", file=err)
        return False, None


def _nothing(tally: _Tally, args: argparse.Namespace, files: list[Path]) -> str:
    if tally.deselected:
        return f"-k {args.keyword!r} matched none of the {tally.deselected} scenario(s)"
    if files:
        return "the files hold no scenario"
    return f"no scenario file (*.yaml, *.yml) in {', '.join(args.paths)}"


def _run_one(
    scenario: LoadedScenario,
    plugins: CommandPlugins,
    shown: RunOutput,
    tally: _Tally,
    suite: OtelSuite | None = None,
    report: CommandReport = _NO_REPORT,
    framework: _ChosenRuntime | None = None,
    policies: Mapping[str, PolicySpec] | None = None,
) -> None:
    from handoff_sim.adapters import ScenarioNotApplicable
    from handoff_sim.scenarios import run_scenario
    from handoff_sim.scenarios._errors import ScenarioError

    factories = plugins.model_factories(scenario)
    runtime = plugins.runtime(scenario)
    try:
        if runtime is None and framework is not None:
            runtime = framework.for_scenario(scenario, factories)
        result, what_if = scenario_outcome(
            scenario,
            policies,
            lambda s: run_scenario(
                s, runtime=runtime, model_factories=factories, observers=plugins.observers(s)
            ),
            lambda s: run_scenario(s, runtime=runtime, model_factories=factories),
        )
    except ScenarioNotApplicable as exc:
        tally.not_applicable += 1
        shown.not_applicable(f"{scenario.path}::{scenario.id}", str(exc))
        return
    except ScenarioError as exc:
        print(exc, file=sys.stderr)
        report.add_problem(scenario.path, str(exc), id=scenario.id)
        tally.errors += 1
        return
    plugins.scenario_result(result)
    report.add(result)
    if suite is not None:
        suite.add(result)
    where = f"{scenario.path}::{scenario.id}"
    if result.passed:
        tally.passed += 1
        shown.passed(where, result)
    else:
        tally.failed += 1
        shown.failed(where, result)
    if what_if:
        print(what_if, end="", file=sys.stdout)


def _validate(args: argparse.Namespace) -> int:
    out, err = sys.stdout, sys.stderr
    plugins = _plugins(args)
    if plugins is None:
        return EXIT_USAGE
    files, broken = _scenario_files(args.paths, err)
    status = EXIT_USAGE if broken else EXIT_OK
    for path in files:
        loaded = _load(path, plugins, err)
        if loaded is None:
            status = EXIT_USAGE
        else:
            print(f"ok {path}: {len(loaded)} scenario(s)", file=out)
    if not files and not broken:
        paths = ", ".join(args.paths)
        print(f"handoff-sim validate: no scenario file (*.yaml, *.yml) in {paths}", file=err)
        return EXIT_NOTHING
    return status


def _schema(args: argparse.Namespace) -> int:
    from handoff_sim.scenarios import scenario_json_schema

    text = json.dumps(scenario_json_schema(), indent=2, ensure_ascii=False) + "\n"
    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as exc:
            print(
                f"handoff-sim schema: cannot write {args.output}: {exc.strerror}", file=sys.stderr
            )
            return EXIT_USAGE
    else:
        sys.stdout.write(text)
    return EXIT_OK


def _render(args: argparse.Namespace) -> int:
    from handoff_sim.scenarios import run_scenario
    from handoff_sim.scenarios._errors import ScenarioError

    err = sys.stderr
    plugins = _plugins(args)
    if plugins is None:
        return EXIT_USAGE
    path = Path(args.path)
    if path.is_dir():
        print(f"{path}: a directory; render takes one scenario file", file=err)
        return EXIT_USAGE
    files, broken = _scenario_files([args.path], err)
    loaded = None if broken else _load(files[0], plugins, err)
    if loaded is None:
        return EXIT_USAGE
    chosen = _choose(loaded, args.scenario, path, err)
    if chosen is None:
        return EXIT_USAGE
    try:
        result = run_scenario(
            chosen,
            runtime=plugins.runtime(chosen),
            model_factories=plugins.model_factories(chosen),
            observers=plugins.observers(chosen),
        )
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
    if args.format == "jsonl":  # escaped the JSON way, so the lines stay the same JSON
        text = escape_json(text)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return EXIT_OK


def _choose(
    loaded: list[LoadedScenario], wanted: str | None, path: Path, err: TextIO
) -> LoadedScenario | None:
    chosen = [s for s in loaded if wanted is None or wanted in (s.id, s.name)]
    if len(chosen) == 1:
        return chosen[0]
    ids = ", ".join(s.id for s in loaded)
    what = "no scenario matches" if not chosen else "several scenarios match"
    print(f"{path}: {what}; choose one with --scenario (ids: {ids})", file=err)
    return None


def _fuzz(argv: list[str]) -> int:
    try:
        module = importlib.import_module("handoff_sim.cli._fuzz")
    except ModuleNotFoundError as exc:
        if exc.name not in ("handoff_sim.fuzzing", "handoff_sim.cli._fuzz"):
            raise
        print("handoff-sim fuzz: fuzzing is not available in this installation", file=sys.stderr)
        return EXIT_USAGE
    code = module.main(argv)
    return int(code) if isinstance(code, int) else EXIT_OK
