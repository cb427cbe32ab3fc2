"""The ``handoff-sim`` command: run, validate, schema, render, fuzz; exit codes 0/1/2."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

import handoff_sim
import handoff_sim.cli._main as cli
from handoff_sim.cli import main
from tests.scenarios._util import BUNDLED, write

PASSING = """
    scenario: passing
    agents:
      manager:
        model:
          script:
            - tool_calls: [{id: c1, name: delegate_w, arguments: {task: t}}]
            - text: done
        subagents: [{agent: w, tool_name: delegate_w}]
      w: {model: {script: [{text: ok, latency: 250ms}]}}
    run: [go]
    expect: {output: done}
"""
FAILING = PASSING.replace("scenario: passing", "scenario: failing").replace(
    "expect: {output: done}", "expect: {output: other}"
)


def test_run_prints_one_line_per_scenario_and_the_summary_and_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """By default: status, path::id, virtual time and handoff count; no trace."""
    path = write(tmp_path, PASSING)
    assert main(["run", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == [
        f"PASS {path}::passing (250ms virtual, 1 handoff)",
        "== 1 passed, 0 failed, 0 error(s) ==",
    ]


def test_run_labels_a_real_clock_scenarios_time_as_real(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real = PASSING.replace("scenario: passing", "scenario: passing\n    clock: real")
    path = write(tmp_path, real.replace("latency: 250ms", "latency: 1ms"))
    assert main(["run", str(path)]) == 0
    [line, _] = capsys.readouterr().out.splitlines()
    assert re.fullmatch(rf"PASS {re.escape(str(path))}::passing \(\d+ms real, 1 handoff\)", line)


def test_run_verbose_adds_each_trace_under_a_legend_of_its_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, PASSING)
    other = write(tmp_path, PASSING.replace("scenario: passing", "scenario: again"), "b.yaml")
    assert main(["run", "-v", str(path), str(other)]) == 0
    out = capsys.readouterr().out
    assert out.count("How to read a trace:") == 1
    assert out.index("How to read a trace:") > out.index(f"PASS {path}::passing")
    assert "t virtual time since the scenario started" in out
    assert "    └─ manager → w via delegate_w [handoff:c1] status=completed" in out
    assert "       #          t event                 agent: fields" in out
    assert "       5        0ms   handoff_start         manager: delegate_w → w" in out
    assert out.count("run_end               manager: completed") == 2
    assert out.rstrip().endswith("== 2 passed, 0 failed, 0 error(s) ==")


def test_run_lists_every_scenario_before_the_failure_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    failing = write(tmp_path, FAILING, "a.yaml")
    passing = write(tmp_path, PASSING, "b.yaml")
    assert main(["run", str(tmp_path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == [
        f"FAIL {failing}::failing (250ms virtual, 1 handoff)",
        f"PASS {passing}::passing (250ms virtual, 1 handoff)",
    ]
    reports = lines.index("== failures ==")
    assert f"{failing}:11: expect.output: output differs" in lines[reports:]
    assert lines[-2:] == ["", "== 1 passed, 1 failed, 0 error(s) =="]


def test_run_quiet_and_verbose_do_not_go_together(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "-q", "-v", "scenarios/"]) == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_run_exits_1_on_failure_and_shows_the_failure_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, PASSING, "a.yaml")
    failing = write(tmp_path, FAILING, "b.yaml")
    assert main(["run", "-q", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"FAIL {failing}::failing" in out
    assert f"{failing}:11: expect.output: output differs" in out
    assert "== 1 passed, 1 failed, 0 error(s) ==" in out


def test_run_reports_a_malformed_file_and_still_runs_the_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Y4: a bad file does not stop the other files from running."""
    bad = write(tmp_path, "scenario: bad\nagents: {}\nrun: [go]\n", "a_bad.yaml")
    write(tmp_path, PASSING, "b_good.yaml")
    assert main(["run", "-q", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert captured.err.strip() == f"{bad}:2:1: agents: must not be empty"
    assert "== 1 passed, 0 failed, 1 error(s) ==" in captured.out


def test_run_filters_by_keyword(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, PASSING, "a.yaml")
    write(tmp_path, FAILING, "b.yaml")
    assert main(["run", "-q", "-k", "pass", str(tmp_path)]) == 0
    assert "== 1 passed, 0 failed, 0 error(s), 1 deselected ==" in capsys.readouterr().out


def test_run_the_bundled_suite_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "-q", str(BUNDLED)]) == 0
    assert " 0 failed, 0 error(s) ==" in capsys.readouterr().out


def test_validate_checks_without_running(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, PASSING)
    assert main(["validate", str(path)]) == 0
    assert capsys.readouterr().out == f"ok {path}: 1 scenario(s)\n"
    assert main(["validate", str(tmp_path / "missing.yaml")]) == 2
    assert capsys.readouterr().err == (
        f"{tmp_path / 'missing.yaml'}:1:1: <file>: no such file or directory\n"
    )


@pytest.mark.parametrize(
    ("fmt", "needle"),
    [
        ("text", "handoff_start         manager: delegate_w → w [handoff:c1]"),
        ("tree", "└─ manager → w via delegate_w [handoff:c1]"),
        ("mermaid", "sequenceDiagram"),
        ("jsonl", '"type":"handoff_end"'),
    ],
)
def test_render_outputs_the_trace_in_each_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str, needle: str
) -> None:
    assert main(["render", str(write(tmp_path, PASSING)), "--format", fmt]) == 0
    out = capsys.readouterr().out
    assert needle in out
    if fmt == "jsonl":
        assert all(json.loads(line)["seq"] for line in out.splitlines())


def test_render_needs_a_choice_when_a_file_holds_several(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = BUNDLED / "ai4j" / "doc_examples.yaml"
    assert main(["render", str(path)]) == 2
    assert "several scenarios match; choose one with --scenario" in capsys.readouterr().err
    assert (
        main(["render", str(path), "-s", "doc-max-depth-blocks-recursion", "--format", "tree"]) == 0
    )
    assert "delegate_leaf" in capsys.readouterr().out


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert main(["render", "x.yaml", "--format", "svg"]) == 2
    assert main(["schema", "--bogus"]) == 2
    assert "unrecognized arguments: --bogus" in capsys.readouterr().err


def test_fuzz_delegates_to_the_fuzzing_module(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[list[str]] = []
    fake = types.ModuleType("handoff_sim.cli._fuzz")
    fake.main = lambda argv: seen.append(argv) or 0  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "handoff_sim.cli._fuzz", fake)
    assert main(["fuzz", "--runs", "5", "--seed", "1"]) == 0
    assert seen == [["--runs", "5", "--seed", "1"]]


def test_fuzz_without_the_fuzzing_module_says_so_and_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def missing(name: str) -> types.ModuleType:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)

    monkeypatch.setattr(cli.importlib, "import_module", missing)
    assert main(["fuzz"]) == 2
    assert "fuzzing is not available" in capsys.readouterr().err


@pytest.mark.slow
def test_console_script_runs_in_a_subprocess(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("handoff-sim")
    if not script.exists():
        pytest.skip("the handoff-sim console script is not installed in this environment")
    path = write(tmp_path, FAILING)
    done = subprocess.run(
        [str(script), "run", "-q", str(path)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1
    assert "FAIL" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr
    module = subprocess.run(
        [sys.executable, "-m", "handoff_sim", "validate", str(path)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert module.returncode == 0


@pytest.mark.slow
def test_a_closed_output_stops_the_run_quietly_with_exit_141() -> None:
    """``handoff-sim run -v scenarios/ | head`` ends without a traceback."""
    script = Path(sys.executable).with_name("handoff-sim")
    if not script.exists():
        pytest.skip("the handoff-sim console script is not installed in this environment")
    process = subprocess.Popen(
        [str(script), "run", "-v", str(BUNDLED)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stdout is not None
    assert process.stdout.readline().startswith(b"PASS ")
    process.stdout.close()  # far more than a pipe buffer is still to come
    _, err = process.communicate(timeout=120)
    assert process.returncode == 141  # 128 + SIGPIPE, as the shell reports for `cat | head`
    assert err == b""


# -- the command line itself: version, help, exit codes, plugins (issue 9, items 14 and 16) --

COMMANDS = ["run", "validate", "schema", "render", "fuzz"]


def _help(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main([*args, "--help"]) == 0
    return capsys.readouterr().out


def _undocumented(text: str) -> list[str]:
    """Entries of argparse's argument sections that have no help text beside or below them."""
    lines = text.splitlines()
    missing, listed = [], False
    for index, line in enumerate(lines):
        if line and not line.startswith(" "):
            listed = line in ("positional arguments:", "options:")
            continue
        if not listed or not line.startswith("  ") or line.startswith("   "):
            continue
        below = lines[index + 1] if index + 1 < len(lines) else ""
        if "  " not in line.strip() and not below.startswith(" " * 10):
            missing.append(line.strip())
    return missing


def test_16_version_prints_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"handoff-sim {handoff_sim.__version__}\n"


@pytest.mark.parametrize("command", [[], *([c] for c in COMMANDS if c != "fuzz")])
def test_16_every_argument_has_help_text(
    capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    text = _help(capsys, *command)
    assert "positional arguments:" in text or "options:" in text
    assert _undocumented(text) == []


def test_16_the_top_level_help_lists_every_command_with_its_help(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = _help(capsys)
    listed = {line.split()[0]: line for line in text.splitlines() if line.startswith("    ")}
    for command in COMMANDS:
        assert len(listed[command].split()) > 1, command


@pytest.mark.parametrize("command", [[], ["run"], ["validate"], ["render"]])
def test_16_help_lists_the_exit_codes(
    capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    text = _help(capsys, *command)
    listed = text[text.index("exit codes:") :].splitlines()[1:]
    codes = [line.split()[0] for line in listed if line[:3].strip().isdigit()]
    assert codes == ["0", "1", "2", "5", "130", "141"]


def test_16_the_help_checker_sees_an_argument_without_help() -> None:
    parser = argparse.ArgumentParser(prog="x")
    parser.add_argument("path")
    parser.add_argument("-q", action="store_true", help="quiet")
    assert _undocumented(parser.format_help()) == ["path"]


ECHO_PLUGIN = """\
from handoff_sim.testing import FunctionModel

EVENTS = []
RESULTS = []


def pytest_handoff_make_model(config, scenario, agent_name, model_spec):
    if model_spec["kind"] != "echo":
        return None
    return FunctionModel(lambda request: model_spec["prefix"] + request.messages[-1].content)


def pytest_handoff_event(config, scenario, event):
    EVENTS.append((config, scenario.id, event.type))


def pytest_handoff_scenario_result(config, result):
    RESULTS.append(result.passed)
"""

ECHO_SCENARIO = """\
scenario: echo-kind
agents:
  bot:
    model: {kind: echo, prefix: "echo: "}
run: [hello]
expect:
  output: "echo: hello"
"""


def test_14_plugin_option_adds_a_model_kind_to_validate_run_and_render(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``-p MODULE`` imports a module of the current directory and uses its hooks."""
    (tmp_path / "echo_kinds.py").write_text(ECHO_PLUGIN, encoding="utf-8")
    path = write(tmp_path, ECHO_SCENARIO, "echo.yaml")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "echo_kinds", raising=False)
    assert main(["validate", str(path)]) == 2
    assert "unknown model kind 'echo'" in capsys.readouterr().err
    assert main(["validate", "-p", "echo_kinds", str(path)]) == 0
    assert main(["run", "-q", "--plugin", "echo_kinds", str(path)]) == 0
    assert f"PASS {path}::echo-kind" in capsys.readouterr().out
    assert main(["render", str(path), "-p", "echo_kinds", "--format", "tree"]) == 0
    plugin = sys.modules["echo_kinds"]
    assert plugin.RESULTS == [True]  # render reports no result: it checks nothing
    assert plugin.EVENTS[0] == (None, "echo-kind", "run_start")
    assert plugin.EVENTS[-1][2] == "run_end"


def test_14_a_plugin_that_cannot_load_is_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "boom_kinds.py").write_text("value = 1 / 0\n", encoding="utf-8")
    path = write(tmp_path, PASSING)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "boom_kinds", raising=False)
    assert main(["run", "-p", "boom_kinds", str(path)]) == 2
    assert capsys.readouterr().err == (
        "handoff-sim: cannot load plugin 'boom_kinds': ZeroDivisionError: division by zero "
        f"(at {tmp_path / 'boom_kinds.py'}:1)\n"
    )
    assert main(["validate", "-p", "no_such_module_anywhere", str(path)]) == 2
    assert capsys.readouterr().err == (
        "handoff-sim: cannot load plugin 'no_such_module_anywhere': "
        "ModuleNotFoundError: No module named 'no_such_module_anywhere'\n"
    )


def install_entry_point(site: Path, module: str, source: str) -> None:
    """A distribution on ``site`` that registers ``module`` as a handoff_sim.plugins entry."""
    (site / f"{module}.py").write_text(source, encoding="utf-8")
    info = site / f"{module}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[handoff_sim.plugins]\n{module} = {module}\n")


def test_14_entry_point_plugins_are_loaded_without_an_option(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    install_entry_point(site, "echo_entry_kinds", ECHO_PLUGIN)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.delitem(sys.modules, "echo_entry_kinds", raising=False)
    path = write(tmp_path, ECHO_SCENARIO, "echo.yaml")
    assert main(["run", "-q", str(path)]) == 0
    assert f"PASS {path}::echo-kind" in capsys.readouterr().out


def test_ctrl_c_is_exit_130_without_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("handoff_sim.scenarios.run_scenario", interrupted)
    assert main(["run", str(write(tmp_path, PASSING))]) == 130
    assert capsys.readouterr().err == "handoff-sim: interrupted\n"
