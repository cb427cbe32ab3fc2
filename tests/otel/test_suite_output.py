"""``pytest --handoff-otel=FILE``, and what happens without the ``otel`` extra."""

from __future__ import annotations

import contextlib
import sys
import textwrap
from pathlib import Path

import pytest

from handoff_sim import Trace
from handoff_sim.adapters import MissingExtraError
from handoff_sim.cli import main
from handoff_sim.trace import read_otlp
from tests.otel._support import FIXTURES, NEEDS_OTEL

# The export is imported with this module: pytester takes back the modules first imported
# inside a session, and a later session would mix re-imported OpenTelemetry modules with
# kept ones.
with contextlib.suppress(MissingExtraError):
    import handoff_sim.otel  # noqa: F401

PASSING = """\
scenario: passing
agents:
  manager:
    policy: {timeout: 1s, max_retries: 1}
    model:
      script:
        - tool_calls: [{id: c1, name: delegate_w, arguments: {task: t}}]
        - text: done
    subagents: [{agent: w, tool_name: delegate_w}]
  w: {model: {script: [{text: late, latency: 2s}, {text: ok, latency: 250ms}]}}
run: [go]
expect: {output: done}
"""
FAILING = PASSING.replace("scenario: passing", "scenario: failing").replace(
    "expect: {output: done}", "expect: {output: other}"
)


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini("[pytest]\nhandoff_scenarios = scenarios\n")
    folder = pytester.path / "scenarios"
    folder.mkdir()
    (folder / "a.yaml").write_text(PASSING, encoding="utf-8")
    (folder / "b.yaml").write_text(FAILING, encoding="utf-8")
    return pytester


@pytest.fixture(autouse=True)
def _not_an_xdist_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
        monkeypatch.delenv(name, raising=False)


class TestPytestOption:
    @pytest.fixture(autouse=True)
    def _sdk(self) -> None:
        pytest.importorskip("opentelemetry.sdk", reason=NEEDS_OTEL)

    @pytest.mark.slow
    def test_every_scenario_run_is_a_named_trace_in_the_file_the_same_with_xdist(
        self, project: pytest.Pytester
    ) -> None:
        result = project.runpytest_inprocess("--handoff-otel=out/suite.json", "-p", "no:randomly")
        result.assert_outcomes(passed=1, failed=1)
        result.stdout.fnmatch_lines(["handoff-otel: 2 trace(s) written to */out/suite.json"])
        traces = {t.name: t for t in read_otlp(project.path / "out" / "suite.json")}
        assert sorted(map(str, traces)) == [
            "scenarios/a.yaml::passing",
            "scenarios/b.yaml::failing",
        ]
        [handoff] = traces["scenarios/a.yaml::passing"].handoffs()
        assert (handoff.status, handoff.attempts, handoff.attempt_outcomes) == (
            "completed",
            2,
            ("timeout", "ok"),
        )

        parallel = project.runpytest_inprocess(
            "-p", "no:hypothesispytest", "-n", "2", "--handoff-otel=parallel.json"
        )
        parallel.assert_outcomes(passed=1, failed=1)
        serial = (project.path / "out" / "suite.json").read_bytes()
        assert b'"parentSpanId"' in serial
        assert serial == (project.path / "parallel.json").read_bytes()

    def test_an_unwritable_file_fails_the_session_with_its_reason(
        self, project: pytest.Pytester
    ) -> None:
        project.mkdir("elsewhere")
        result = project.runpytest_inprocess("--handoff-otel=elsewhere")  # a directory
        result.stdout.fnmatch_lines(["--handoff-otel: cannot write */elsewhere: *"])
        assert result.ret == pytest.ExitCode.USAGE_ERROR


@pytest.fixture
def without_sdk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the OpenTelemetry SDK (and so the ``otel`` extra) unimportable."""
    for name in list(sys.modules):
        if name.startswith(("opentelemetry.sdk", "handoff_sim.otel")):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "opentelemetry.sdk", None)


@pytest.mark.usefixtures("without_sdk")
class TestWithoutTheExtra:
    def test_importing_the_export_names_the_extra(self) -> None:
        with pytest.raises(MissingExtraError) as caught:
            import handoff_sim.otel  # noqa: F401
        assert str(caught.value) == (
            "handoff_sim.otel needs the optional extra 'otel': pip install 'handoff-sim[otel]' "
            "(the package 'opentelemetry-sdk' is not installed)"
        )
        assert isinstance(caught.value, ImportError)

    def test_reading_otlp_and_check_need_no_sdk(self, capsys: pytest.CaptureFixture[str]) -> None:
        assert len(Trace.from_otlp(FIXTURES / "adk_agent_tool.json").handoffs()) == 1
        assert main(["check", str(FIXTURES / "adk_agent_tool.json")]) == 0

    def test_run_otel_exits_2_before_running_anything(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        scenario = tmp_path / "a.yaml"
        scenario.write_text(textwrap.dedent(PASSING), encoding="utf-8")
        assert main(["run", "--otel", str(tmp_path / "o.json"), str(scenario)]) == 2
        captured = capsys.readouterr()
        assert "handoff-sim run --otel: handoff_sim.otel needs the optional extra 'otel'" in (
            captured.err
        )
        assert "PASS" not in captured.out
        assert not (tmp_path / "o.json").exists()

    def test_pytest_option_is_a_usage_error_naming_the_extra(
        self, project: pytest.Pytester
    ) -> None:
        result = project.runpytest_inprocess("--handoff-otel=suite.json")
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        result.stderr.fnmatch_lines(
            ["*--handoff-otel: handoff_sim.otel needs the optional extra 'otel'*"]
        )
