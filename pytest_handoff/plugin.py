"""The pytest plugin of handoff-sim: hooks only.

Loaded through the ``pytest11`` entry point in every pytest session of the
environment, so it imports only pytest and the standard library here; the
runtime, pydantic, YAML and syrupy load when a scenario or fixture needs them.
A session without ``--handoff-scenarios`` (or the ``handoff_scenarios`` ini key)
never imports the scenario package.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_handoff._keys import BROKEN_FILES, DISCOVERY, OUTCOMES, SCENARIO_DIRS

if TYPE_CHECKING:
    from handoff_sim.scenarios._load import Discovery

__all__: list[str] = []  # pytest finds the hooks by name; nothing here is imported by users

pytest_plugins = [
    "pytest_handoff._fixtures",
    "pytest_handoff._report",
    "pytest_handoff._recording_plugin",
]

_SUFFIXES = (".yaml", ".yml")

_MARKERS = (
    "handoff_scenario(name): set on every item collected from a handoff scenario file",
    "handoff_simulation(seed=0, wall_clock=True): options of the `simulation` fixture",
)


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """Add the ``pytest_handoff_*`` hookspecs for downstream plugins."""
    from pytest_handoff import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    """Every option in one ``handoff`` group under the ``--handoff-`` prefix."""
    group = parser.getgroup("handoff", "handoff-sim scenarios")
    group.addoption(
        "--handoff-scenarios",
        action="append",
        dest="handoff_scenarios",
        default=[],
        metavar="DIR",
        help="collect every *.yaml/*.yml scenario file under DIR (or the file DIR) as tests; "
        "repeatable; overrides the handoff_scenarios ini key",
    )
    group.addoption(
        "--handoff-otel",
        dest="handoff_otel",
        default=None,
        metavar="FILE",
        help="write the trace of every scenario run to FILE as OTLP JSON (OpenTelemetry GenAI "
        "spans); needs the optional extra 'otel'",
    )
    group.addoption(
        "--handoff-runtime",
        dest="handoff_runtime",
        default="handoff-sim",
        metavar="NAME",
        help="run the scenarios on this framework: handoff-sim (default), openai-agents or "
        "pydantic-ai (each needs its optional extra); a scenario the framework cannot express "
        "is skipped with the reason",
    )
    group.addoption(
        "--handoff-show-trace",
        action="store_true",
        dest="handoff_show_trace",
        default=False,
        help="also show the handoff tree and the events of every passing scenario, in a "
        "'handoff traces' section after the tests (a failing one always shows them)",
    )
    parser.addini(
        "handoff_show_trace",
        type="bool",
        default=False,
        help="show the trace of every passing scenario, as --handoff-show-trace does",
    )
    parser.addini(
        "handoff_scenarios",
        type="paths",
        default=[],
        help="scenario directories (relative to the ini file) used when --handoff-scenarios "
        "is not given; added to the run when no test paths are given on the command line",
    )


def _inside(path: Path, folder: Path) -> bool:
    """``path`` is ``folder`` or lies in it (lexically); called once per collected file."""
    if os.name != "posix":  # case and separators: leave them to pathlib
        return path == folder or folder in path.parents
    inner, outer = str(path), str(folder)
    return inner == outer or inner.startswith(outer if outer.endswith("/") else outer + "/")


def _resolved(path: Path) -> Path:
    """``path.resolve()``, or ``path`` itself when a loop of links makes that impossible."""
    try:
        return path.resolve()
    except RuntimeError:  # a symlink loop (Python 3.11); reported as a missing path
        return path


def _configured_dirs(config: pytest.Config) -> tuple[list[Path], bool]:
    """Scenario directories (CLI > ini > none) and whether they came from the CLI."""
    cli: list[str] = config.getoption("handoff_scenarios", None) or []
    if cli:
        base = config.invocation_params.dir
        return [_resolved(base / p) for p in cli], True
    ini: list[Path] = config.getini("handoff_scenarios") or []
    return [_resolved(Path(p)) for p in ini], False


def _missing(path: Path) -> str:
    if path.is_symlink():
        return f"{path} (a symlink loop or a dangling symlink)"
    return str(path)


def _add_to_args(config: pytest.Config, dirs: list[Path]) -> None:
    """Add each scenario dir to the run unless an argument already covers it or lies in it."""
    base = config.invocation_params.dir
    given = [_resolved(base / arg.split("::")[0]) for arg in config.args]
    for folder in dirs:
        if not any(_inside(arg, folder) or _inside(folder, arg) for arg in given):
            config.args.append(str(folder))
            given.append(folder)


def _refuse_outputs_over_inputs(config: pytest.Config, dirs: list[Path]) -> None:
    """A usage error when ``--handoff-report`` or ``--handoff-otel`` would overwrite a
    scenario input (or be read as one), or both name one file."""
    base = config.invocation_params.dir
    outputs = [
        (option, base / value)
        for option, value in (
            ("--handoff-report", config.getoption("handoff_report", None)),
            ("--handoff-otel", config.getoption("handoff_otel", None)),
        )
        if value
    ]
    if not outputs:
        return
    from handoff_sim.scenarios._load import output_problems

    problems = output_problems(outputs, dirs)
    if problems:
        raise pytest.UsageError("; ".join(problems))


def pytest_configure(config: pytest.Config) -> None:
    """Register markers; find the scenario directories and add them to the run."""
    for line in _MARKERS:
        config.addinivalue_line("markers", line)
    dirs, from_cli = _configured_dirs(config)
    missing = [_missing(d) for d in dirs if not d.exists()]
    if missing:
        source = "--handoff-scenarios" if from_cli else "handoff_scenarios (ini)"
        raise pytest.UsageError(f"{source}: no such file or directory: {', '.join(missing)}")
    _refuse_outputs_over_inputs(config, dirs)
    config.stash[SCENARIO_DIRS] = tuple(dirs)
    otel_file = config.getoption("handoff_otel", None)
    if otel_file:
        from pytest_handoff._otel import register

        register(config, otel_file)
    runtime = config.getoption("handoff_runtime", None) or "handoff-sim"
    if runtime != "handoff-sim":
        from pytest_handoff._framework import configure

        configure(config, runtime)
    if dirs:
        from pytest_handoff._entry_points import load_entry_point_plugins
        from pytest_handoff._loading import Refusals

        load_entry_point_plugins(config)
        config.pluginmanager.register(Refusals(config), "handoff-refusals")
    if from_cli and config.args_source != pytest.Config.ArgsSource.ARGS:
        # `pytest --handoff-scenarios DIR` with no test paths runs the scenarios only,
        # as `pytest DIR` would; testpaths apply when no target at all is given.
        config.args[:] = [str(d) for d in dirs]
    elif dirs and (from_cli or config.args_source != pytest.Config.ArgsSource.ARGS):
        _add_to_args(config, dirs)


def _discovery(config: pytest.Config) -> Discovery:
    """The scenario files of every scenario directory, each once (walked on first use)."""
    found = config.stash.get(DISCOVERY, None)
    if found is None:
        from handoff_sim.scenarios._load import discover

        dirs: tuple[Path, ...] = config.stash.get(SCENARIO_DIRS, ())
        found = config.stash[DISCOVERY] = discover(dirs)
    return found


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Inside a scenario directory, do not enter a directory link the scenario walk skips:
    a loop back to a directory that contains it, or a second way into a directory."""
    dirs = config.stash.get(SCENARIO_DIRS, ())
    if not dirs or not collection_path.is_symlink() or not collection_path.is_dir():
        return None
    if not any(_inside(collection_path, folder) for folder in dirs):
        return None
    return None if collection_path in _discovery(config).followed else True


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    """A scenario directory also reports each broken link or link loop in it, one error each."""
    report = yield
    dirs = collector.config.stash.get(SCENARIO_DIRS, ())
    if not dirs:
        return report
    if isinstance(collector, pytest.Directory) and collector.path in dirs:
        found = _discovery(collector.config)
        if found.problems and isinstance(report.result, list):
            from pytest_handoff._collection import broken_paths

            report.result.extend(broken_paths(collector, found))
    elif report.failed and isinstance(collector, pytest.File):
        _refused_file(collector, report)
    return report


def _refused_file(collector: pytest.File, report: pytest.CollectReport) -> None:
    """A refused scenario file says so on its report (the session ends with exit 2), and
    its ``path:line:col`` lines name it as its node id does."""
    from pytest_handoff._collection import BrokenScenarioPath, ScenarioFile

    if not isinstance(collector, ScenarioFile | BrokenScenarioPath):
        return
    from pytest_handoff._failure import relative_text, shown_path
    from pytest_handoff._loading import REFUSED_ATTRIBUTE

    setattr(report, REFUSED_ATTRIBUTE, str(collector.path))
    longrepr = getattr(report.longrepr, "longrepr", None)  # CollectErrorRepr holds the text
    if isinstance(longrepr, str):
        shown = shown_path(collector.config, collector.path)
        report.longrepr.longrepr = relative_text(longrepr, collector.path, shown)  # type: ignore[union-attr]


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """A scenario file is any *.yaml/*.yml file under a configured scenario directory.

    A file reached a second time (through a link) is not collected again, unless it
    was named on the command line.
    """
    if file_path.suffix not in _SUFFIXES:
        return None
    config = parent.config
    dirs = config.stash.get(SCENARIO_DIRS, ())
    if not any(_inside(file_path, folder) for folder in dirs):
        return None
    if _discovery(config).repeats(file_path) and not parent.session.isinitpath(file_path):
        return None
    from pytest_handoff._collection import ScenarioFile

    return ScenarioFile.from_parent(parent, path=file_path)


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session) -> Generator[None, object, object]:
    """With scenario directories, no cyclic garbage collection while collecting, and what
    was built until then frozen for the tests.

    Collection builds what lives for the whole session (an item per scenario, its
    marks and keywords); each pass of the collector during it walked all of that again,
    and each full pass during the tests would walk it again. So it is frozen
    (``gc.freeze()``: left out of every pass, never freed) until the session ends;
    unless something else froze objects already, whose freezing is then left alone.
    """
    config = session.config
    if not config.stash.get(SCENARIO_DIRS, ()) or not gc.isenabled():
        return (yield)
    gc.disable()
    try:
        return (yield)
    finally:
        if gc.get_freeze_count() == 0:
            gc.freeze()
            config.stash[_FROZEN] = True
        gc.enable()


_FROZEN = pytest.StashKey[bool]()
"""Set when this session froze what it had built by the end of collection."""


def pytest_unconfigure(config: pytest.Config) -> None:
    """What the session froze can be freed again (a session run in-process ends here)."""
    if config.stash.get(_FROZEN, False):
        gc.unfreeze()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> Generator[None, object, object]:
    """A broken scenario file must not stop the other tests.

    pytest refuses to run anything after a collection error; when every error
    came from scenario files, hide them from that check, then count them again
    so the exit status still says the session failed.
    """
    broken = session.config.stash.get(BROKEN_FILES, 0)
    if not broken or session.testsfailed != broken:
        return (yield)
    session.testsfailed -= broken
    try:
        return (yield)
    finally:
        session.testsfailed += broken


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A test that ran scenarios: a ``run_scenario`` failure names its expectation in the
    short summary; with ``--handoff-show-trace`` a passing one carries its traces.

    The outcomes are let go once the test's last report is made: a result can hold the
    error its scenario expected, whose traceback holds the run's frames and tasks, and a
    session holds every item to its end.
    """
    report = yield
    if call.when == "setup" and call.excinfo is not None:
        _refused_setup(item, call.excinfo, report)
    if OUTCOMES in item.stash:
        from pytest_handoff._failure import add_outcome_report

        add_outcome_report(item, call, report)
        if report.when == "teardown":
            del item.stash[OUTCOMES]
    return report


def _refused_setup(
    item: pytest.Item, excinfo: pytest.ExceptionInfo[BaseException], report: pytest.TestReport
) -> None:
    """An item whose file was refused at its setup: the ``path:line:col`` lines, no
    traceback, and the mark that makes the session end with exit 2."""
    loading = sys.modules.get("pytest_handoff._loading")  # not imported: nothing refused
    if loading is None or not isinstance(excinfo.value, loading.ScenarioRefused):
        return
    from pytest_handoff._failure import failure_repr

    report.longrepr = failure_repr(item, excinfo.value, getattr(item, "scenario_line", 1))
    setattr(report, loading.REFUSED_ATTRIBUTE, str(item.path))


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """With ``--handoff-show-trace``: the trace of each passing scenario, after the tests
    (``-rP`` and ``-rA`` already print them with the other sections of passing tests)."""
    if not config.getoption("handoff_show_trace", False) and not config.getini(
        "handoff_show_trace"
    ):
        return
    if "P" in getattr(terminalreporter, "reportchars", ""):
        return
    from pytest_handoff._failure import write_traces

    write_traces(terminalreporter)


@pytest.hookimpl(tryfirst=True)
def pytest_assertrepr_compare(
    config: pytest.Config, op: str, left: Any, right: Any
) -> list[str] | None:
    """A readable diff for ``trace == other_trace``: the rendered events, line by line."""
    trace_module = sys.modules.get("handoff_sim.trace")
    if op != "==" or trace_module is None:
        return None
    trace_type = trace_module.Trace
    if not (isinstance(left, trace_type) and isinstance(right, trace_type)):
        return None
    try:
        from pytest_handoff._diff import trace_diff_lines

        return trace_diff_lines(left, right, verbose=config.get_verbosity())
    except Exception:  # a broken explanation must never hide the failing assert itself
        return None
