"""Issue 9, items 12, 14 and 16: links in scenario folders, unknown model kinds, empty selections.

The ``handoff-sim`` command and pytest collection must load the same files, each once,
report a broken link or a link loop as a ``path:line:col`` line, refuse a model kind no
plugin builds before anything runs, and exit 5 when nothing was selected.
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import hypothesis.internal.observability  # noqa: F401
import pytest

# pytester restores sys.modules after every in-process session: what a session imports
# first is imported again by the next one. Importing it here once keeps each one fast.
import handoff_sim.scenarios._build._model_kinds  # noqa: F401
import pytest_handoff._builders
import pytest_handoff._collection
import pytest_handoff._execute
import pytest_handoff._runner
import pytest_handoff._snapshot  # noqa: F401
from handoff_sim.cli import main
from handoff_sim.scenarios import ScenarioFileError, load_path

PASSING = """\
scenario: passing
agents:
  bot: {model: {script: [done]}}
run: [go]
expect: {output: done}
"""

UNKNOWN_KIND = """\
scenario: unknown-kind
agents:
  bot:
    model: {kind: replay, file: recorded.jsonl}
run: [go]
expect: {output: done}
"""


def scenario_folder(root: Path) -> Path:
    """``scenarios/`` with one real file and every kind of hostile link next to it.

    * ``loop_a.yaml -> loop_b.yaml -> loop_a.yaml``: a loop of file links;
    * ``dangling.yaml -> nowhere.yaml``: a link to nothing;
    * ``alias.yaml -> real.yaml``: a second way to a file of the folder;
    * ``sub/loop -> ..``: a directory link back to the folder that contains it;
    * ``sub/again -> ../sub2``: a second way into a directory of the folder.
    """
    folder = root / "scenarios"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub2").mkdir()
    (folder / "real.yaml").write_text(PASSING, encoding="utf-8")
    (folder / "sub2" / "other.yaml").write_text(
        PASSING.replace("scenario: passing", "scenario: other"), encoding="utf-8"
    )
    os.symlink("loop_b.yaml", folder / "loop_a.yaml")
    os.symlink("loop_a.yaml", folder / "loop_b.yaml")
    os.symlink("nowhere.yaml", folder / "dangling.yaml")
    os.symlink("real.yaml", folder / "alias.yaml")
    os.symlink("..", folder / "sub" / "loop")
    os.symlink("../sub2", folder / "sub" / "again")
    return folder


def refusals(folder: Path) -> list[str]:
    """The error lines every front end must print for :func:`scenario_folder`, in order."""
    return [
        f"{folder}/dangling.yaml:1:1: <file>: dangling symlink: "
        "its target 'nowhere.yaml' does not exist",
        f"{folder}/loop_a.yaml:1:1: <file>: symlink loop: following its links never reaches a file",
        f"{folder}/loop_b.yaml:1:1: <file>: symlink loop: following its links never reaches a file",
        f"{folder}/sub/loop:1:1: <directory>: symlink loop: it points to {folder}, "
        "which contains it; not followed",
    ]


# -- item 12: links ------------------------------------------------------------------------


def test_12_validate_reports_each_broken_link_and_loop_and_loads_each_file_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = scenario_folder(tmp_path)
    assert main(["validate", str(folder)]) == 2
    captured = capsys.readouterr()
    assert sorted(captured.err.splitlines()) == refusals(folder)
    assert captured.out.splitlines() == [
        f"ok {folder}/real.yaml: 1 scenario(s)",
        f"ok {folder}/sub2/other.yaml: 1 scenario(s)",
    ]


def test_12_run_reports_the_links_and_runs_each_scenario_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = scenario_folder(tmp_path)
    assert main(["run", "-q", str(folder)]) == 2
    captured = capsys.readouterr()
    assert sorted(captured.err.splitlines()) == refusals(folder)
    assert [line for line in captured.out.splitlines() if line.startswith("PASS")] == [
        f"PASS {folder}/real.yaml::passing (0ms virtual)",
        f"PASS {folder}/sub2/other.yaml::other (0ms virtual)",
    ]
    assert "== 2 passed, 0 failed, 4 error(s) ==" in captured.out


def test_12_a_path_given_twice_or_through_a_link_is_loaded_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real = tmp_path / "real.yaml"
    real.write_text(PASSING, encoding="utf-8")
    os.symlink("real.yaml", tmp_path / "alias.yaml")
    assert main(["validate", str(real), str(tmp_path / "alias.yaml"), str(tmp_path)]) == 0
    assert capsys.readouterr().out == f"ok {real}: 1 scenario(s)\n"


def test_12_a_link_to_a_folder_outside_is_followed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vendor = tmp_path / "vendor"
    vendor.mkdir()
    (vendor / "shared.yaml").write_text(PASSING, encoding="utf-8")
    os.symlink("..", vendor / "up")  # a loop inside the linked folder is still a loop
    folder = tmp_path / "scenarios"
    folder.mkdir()
    os.symlink(vendor, folder / "vendor")
    assert main(["validate", str(folder)]) == 2
    captured = capsys.readouterr()
    assert captured.out == f"ok {folder}/vendor/shared.yaml: 1 scenario(s)\n"
    assert captured.err == (
        f"{folder}/vendor/up:1:1: <directory>: symlink loop: it points to {tmp_path}, "
        "which contains it; not followed\n"
    )


def test_12_a_fifo_named_yaml_is_refused_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Reading a FIFO would wait forever; only regular files are scenario files."""
    os.mkfifo(tmp_path / "pipe.yaml")
    assert main(["validate", str(tmp_path)]) == 2
    assert capsys.readouterr().err == (
        f"{tmp_path}/pipe.yaml:1:1: <file>: not a regular file (a FIFO, a device or a socket)\n"
    )


def test_12_load_path_refuses_a_folder_with_a_link_loop(tmp_path: Path) -> None:
    folder = scenario_folder(tmp_path)
    with pytest.raises(ScenarioFileError) as caught:
        load_path(folder)
    assert sorted(p.format() for p in caught.value.problems) == refusals(folder)
    (folder / "sub" / "loop").unlink()
    for name in ("loop_a.yaml", "loop_b.yaml", "dangling.yaml"):
        (folder / name).unlink()
    assert [s.id for s in load_path(folder)] == ["passing", "other"]


@pytest.fixture
def inner_session(monkeypatch: pytest.MonkeyPatch) -> None:
    """Inner pytest sessions must not think they are xdist workers of this one."""
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.usefixtures("inner_session")
def test_12_pytest_collects_each_scenario_once_and_reports_the_links(
    pytester: pytest.Pytester,
) -> None:
    folder = scenario_folder(pytester.path)
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios", "-v")
    result.assert_outcomes(passed=2, errors=4)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    passed = sorted(line.split()[0] for line in result.outlines if " PASSED" in line)
    assert passed == ["scenarios/real.yaml::passing", "scenarios/sub2/other.yaml::other"]
    for line in refusals(folder):  # named as node ids name them: from the rootdir
        assert line.replace(f"{pytester.path}/", "", 1) in result.outlines
    output = result.stdout.str()
    assert "Traceback" not in output
    assert "sub/loop/sub" not in output


@pytest.mark.usefixtures("inner_session")
def test_12_pytest_collects_a_link_named_on_the_command_line(
    pytester: pytest.Pytester,
) -> None:
    scenario_folder(pytester.path)
    result = pytester.runpytest_inprocess(
        "scenarios/alias.yaml", "--handoff-scenarios", "scenarios", "-v"
    )
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["scenarios/alias.yaml::passing PASSED*"])


@pytest.mark.usefixtures("inner_session")
def test_12_a_scenario_option_naming_a_link_loop_is_a_usage_error(
    pytester: pytest.Pytester,
) -> None:
    os.symlink("b.yaml", pytester.path / "a.yaml")
    os.symlink("a.yaml", pytester.path / "b.yaml")
    result = pytester.runpytest_inprocess("--handoff-scenarios", "a.yaml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--handoff-scenarios: no such file or directory: *a.yaml (a symlink loop*"]
    )


# -- item 14: model kinds ------------------------------------------------------------------


def test_14_validate_refuses_an_unknown_model_kind_at_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "unknown.yaml"
    path.write_text(UNKNOWN_KIND, encoding="utf-8")
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(
        f"{path}:4:13: agents.bot.model.kind: unknown model kind 'replay': no plugin builds it"
    )
    assert "Traceback" not in err
    assert main(["run", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.err == err
    assert "== 0 passed, 0 failed, 1 error(s) ==" in captured.out


@pytest.mark.usefixtures("inner_session")
def test_14_pytest_refuses_an_unknown_model_kind_without_traceback(
    pytester: pytest.Pytester,
) -> None:
    path = pytester.path / "scenarios" / "unknown.yaml"
    path.parent.mkdir()
    path.write_text(UNKNOWN_KIND, encoding="utf-8")
    (path.parent / "ok.yaml").write_text(PASSING, encoding="utf-8")
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*ERROR at setup of unknown-kind*",  # files are validated by the items that run
            "scenarios/unknown.yaml:4:13: agents.bot.model.kind: "
            "unknown model kind 'replay': no plugin builds*",
        ]
    )
    assert "Traceback" not in result.stdout.str()
    assert "_build.py" not in result.stdout.str()


@pytest.mark.usefixtures("inner_session")
def test_14_a_model_factory_that_raises_is_a_collection_error_at_the_kind(
    pytester: pytest.Pytester,
) -> None:
    path = pytester.path / "scenarios" / "unknown.yaml"
    path.parent.mkdir()
    path.write_text(UNKNOWN_KIND, encoding="utf-8")
    pytester.makeconftest(
        """
        def pytest_handoff_make_model(config, scenario, agent_name, model_spec):
            raise FileNotFoundError(model_spec["file"])
        """
    )
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "scenarios/unknown.yaml:4:13: agents.bot.model.kind: "
            "the model factory for kind 'replay' failed: "
            "FileNotFoundError: recorded.jsonl"
        ]
    )


@pytest.mark.usefixtures("inner_session")
def test_14_a_plugin_runtime_owns_the_kinds_of_the_scenarios_it_runs(
    pytester: pytest.Pytester,
) -> None:
    """A conformance runtime may understand kinds the built-in runtime does not."""
    path = pytester.path / "scenarios" / "unknown.yaml"
    path.parent.mkdir()
    path.write_text(UNKNOWN_KIND, encoding="utf-8")
    pytester.makeconftest(
        """
        from handoff_sim import Trace
        from handoff_sim.scenarios import ScenarioRun

        class Replay:
            def run(self, scenario, *, observers):
                return ScenarioRun(trace=Trace(), outputs=["done"], error=None, elapsed_ms=0.0)

        def pytest_handoff_runtime(config, scenario):
            return Replay()
        """
    )
    pytester.runpytest_inprocess("--handoff-scenarios", "scenarios").assert_outcomes(passed=1)


# -- item 16: an empty selection -----------------------------------------------------------


def test_16_run_exits_5_when_k_selects_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.yaml").write_text(PASSING, encoding="utf-8")
    assert main(["run", str(tmp_path), "-k", "nomatch"]) == 5
    captured = capsys.readouterr()
    assert "== 0 passed, 0 failed, 0 error(s), 1 deselected ==" in captured.out
    assert captured.err == "handoff-sim run: -k 'nomatch' matched none of the 1 scenario(s)\n"


def test_16_run_and_validate_exit_5_when_there_is_no_scenario_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "notes.txt").write_text("not a scenario", encoding="utf-8")
    assert main(["run", str(tmp_path)]) == 5
    assert capsys.readouterr().err == (
        f"handoff-sim run: no scenario file (*.yaml, *.yml) in {tmp_path}\n"
    )
    assert main(["validate", str(tmp_path)]) == 5
    assert capsys.readouterr().err == (
        f"handoff-sim validate: no scenario file (*.yaml, *.yml) in {tmp_path}\n"
    )


def test_16_an_error_outranks_an_empty_selection(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.yaml").write_text(PASSING, encoding="utf-8")
    (tmp_path / "b.yaml").write_text(textwrap.dedent("scenario: b\n"), encoding="utf-8")
    assert main(["run", str(tmp_path), "-k", "nomatch"]) == 2
    assert "b.yaml:1:1: " in capsys.readouterr().err
