"""JSON lines split on ``"\\n"`` only: text holding what ``str.splitlines()`` splits on.

U+2028, U+2029 and U+0085 may stand raw inside a JSON string (``ensure_ascii=False``
writes them so), and ``\\x1c``-``\\x1e``, ``\\x0b``, ``\\x0c`` are in model output as
escapes: none may cut an event in two on its way through ``Trace.to_jsonl`` /
``from_jsonl``, the pytest report, xdist's hand-over to the controller or an OTLP import.
"""

from __future__ import annotations

import contextlib
import json
import shutil
from pathlib import Path

import pytest

from handoff_sim import Agent, JsonlSessionStore, SubAgent, Trace, check_determinism
from handoff_sim.adapters import MissingExtraError
from handoff_sim.scenarios import load_path, run_scenario
from handoff_sim.simulation import Simulation
from handoff_sim.testing import ScriptedModel
from handoff_sim.trace import read_otlp

# The export is imported with this module: pytester takes back the modules first imported
# inside a session, and a later session would mix re-imported OpenTelemetry modules with
# kept ones.
with contextlib.suppress(MissingExtraError):
    import handoff_sim.otel  # noqa: F401

FILES = Path(__file__).parent / "files"
SEPARATORS_SCENARIO = FILES / "model_output_line_separators.yaml"
SEPARATORS_OTLP = FILES / "otlp_json_lines_raw_line_separators.jsonl"
NEEDS_OTEL = "needs the optional extra 'otel': pip install 'handoff-sim[otel]'"

SPLITLINES_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
EVERY_BREAK_BUT_NEWLINE = SPLITLINES_BREAKS.replace("\n", "").replace("\r", "")


def test_every_character_str_splitlines_splits_on_is_covered() -> None:
    splitting = {chr(c) for c in range(0x110000) if len(f"a{chr(c)}b".splitlines()) == 2}
    assert splitting == set(SPLITLINES_BREAKS)


def _separated_trace() -> Trace:
    worker = Agent("worker", ScriptedModel([f"w{EVERY_BREAK_BUT_NEWLINE}ok"]))
    call = {"id": "c1", "name": "delegate_worker", "arguments": {"task": f"t{SPLITLINES_BREAKS}"}}
    manager = Agent(
        "manager",
        ScriptedModel([{"tool_calls": [call]}, f"done{SPLITLINES_BREAKS}end"]),
        subagents=[SubAgent("worker", agent=worker)],
    )
    with Simulation(seed=1) as simulation:
        return simulation.run(manager, f"go{EVERY_BREAK_BUT_NEWLINE}now").trace


def test_trace_jsonl_round_trip_keeps_outputs_holding_line_separators() -> None:
    trace = _separated_trace()
    text = trace.to_jsonl()
    assert "\u2028" in text  # written raw: this is what a splitlines() split would cut
    assert text.count("\n") == len(trace)
    back = Trace.from_jsonl(text)
    assert back == trace
    [end] = [e for e in back.of_type("run_end") if e.agent == "manager"]
    assert end.output == f"done{SPLITLINES_BREAKS}end"


def test_trace_jsonl_reads_crlf_line_ends_and_skips_only_blank_lines() -> None:
    trace = _separated_trace()
    crlf = "\r\n\r\n".join(trace.to_jsonl().split("\n"))
    assert Trace.from_jsonl(crlf) == trace


def test_a_line_of_only_a_separator_is_no_event_and_names_its_line() -> None:
    lines = _separated_trace().to_jsonl().split("\n")
    lines.insert(1, "\u2028")
    with pytest.raises(ValueError, match=r"^trace line 2 is not valid JSON"):
        Trace.from_jsonl("\n".join(lines))


def test_determinism_check_compares_whole_events_whatever_their_text_holds() -> None:
    outputs = iter([f"a{EVERY_BREAK_BUT_NEWLINE}b", f"a{EVERY_BREAK_BUT_NEWLINE}c"])

    def run() -> Trace:
        with Simulation(seed=3) as simulation:
            return simulation.run(Agent("bot", ScriptedModel([next(outputs)])), "go").trace

    [violation] = check_determinism(run)
    assert violation.message.startswith("the same seed gave a different trace at event 3: ")


def test_a_session_message_holding_line_separators_reads_back(tmp_path: Path) -> None:
    bot = Agent(
        "bot", ScriptedModel([f"r{SPLITLINES_BREAKS}"]), session_store=JsonlSessionStore(tmp_path)
    )
    with Simulation(seed=2) as simulation:
        result = simulation.run(bot, f"q{SPLITLINES_BREAKS}")
    assert result.output == f"r{SPLITLINES_BREAKS}"
    session = JsonlSessionStore(tmp_path).load(result.session_id)
    assert session is not None
    contents = [m.content for m in session.messages]
    assert contents == [f"q{SPLITLINES_BREAKS}", f"r{SPLITLINES_BREAKS}"]


def test_the_hostile_separator_scenario_passes_and_its_trace_round_trips() -> None:
    [scenario] = load_path(SEPARATORS_SCENARIO)
    result = run_scenario(scenario)
    assert result.passed, result.mismatches
    assert Trace.from_jsonl(result.trace.to_jsonl()) == result.trace


def test_otlp_json_lines_with_raw_line_separators_in_strings_import() -> None:
    text = SEPARATORS_OTLP.read_text(encoding="utf-8")
    assert "\u2028" in text  # raw
    assert text.count("\n") == 2  # two requests, one a line
    traces = read_otlp(SEPARATORS_OTLP)
    outputs = [e.output for t in traces for e in t.of_type("run_end")]
    inputs = [e.input for t in traces for e in t.of_type("run_start")]
    assert outputs == ["answer\u2028\u2029\x85one", "answer\u2028\u2029\x85two"]
    assert inputs == ["question\u2028\u2029\x85asked"] * 2


def test_a_bad_otlp_json_line_after_a_separator_is_named_by_its_newline_number(
    tmp_path: Path,
) -> None:
    good = SEPARATORS_OTLP.read_text(encoding="utf-8")
    path = tmp_path / "bad.jsonl"
    path.write_text(good + "{not json\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.jsonl: line 3: not valid JSON"):
        read_otlp(path)


# -- pytest: --handoff-report and -n 2 --handoff-otel ------------------------------------------


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """Two copies of the separator scenario (so both xdist workers get one), not a worker."""
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
        monkeypatch.delenv(name, raising=False)
    pytester.makeini("[pytest]\nhandoff_scenarios = scenarios\n")
    folder = pytester.path / "scenarios"
    folder.mkdir()
    shutil.copy(SEPARATORS_SCENARIO, folder / "a.yaml")
    text = SEPARATORS_SCENARIO.read_text(encoding="utf-8")
    (folder / "b.yaml").write_text(text.replace("scenario: model-", "scenario: other-"), "utf-8")
    return pytester


def test_the_pytest_report_is_written_when_model_output_holds_line_separators(
    project: pytest.Pytester,
) -> None:
    result = project.runpytest_inprocess("--handoff-report=report.html", "-p", "no:randomly")
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["handoff report: */report.html (2 scenarios)"])
    page = (project.path / "report.html").read_text(encoding="utf-8")
    assert "model-output-line-separators" in page
    assert "other-output-line-separators" in page


def _outputs(path: Path) -> dict[str, list[str | None]]:
    return {str(t.name): [e.output for e in t.of_type("run_end")] for t in read_otlp(path)}


@pytest.mark.slow  # two xdist worker interpreters
def test_xdist_hands_traces_with_line_separators_to_the_controller_on_a_passing_suite(
    project: pytest.Pytester,
) -> None:
    pytest.importorskip("opentelemetry.sdk", reason=NEEDS_OTEL)
    parallel = project.runpytest_inprocess(
        "-p", "no:hypothesispytest", "-n", "2", "--handoff-otel=parallel.json",
        "--handoff-report=parallel.html",
    )  # fmt: skip
    parallel.assert_outcomes(passed=2)
    assert parallel.ret == pytest.ExitCode.OK
    assert "INTERNALERROR" not in parallel.stdout.str() + parallel.stderr.str()
    expected = [
        "w\u2028o\u2029r\x85k\x1c\x1d\x1e\x0b\x0ced",
        "done\u2028\u2029\x85\x1c\x1d\x1e\x0b\x0cend",
    ]
    assert _outputs(project.path / "parallel.json") == {
        "scenarios/a.yaml::model-output-line-separators": expected,
        "scenarios/b.yaml::other-output-line-separators": expected,
    }
    assert (project.path / "parallel.html").is_file()

    serial = project.runpytest_inprocess("--handoff-otel=serial.json", "-p", "no:randomly")
    serial.assert_outcomes(passed=2)
    assert (project.path / "serial.json").read_bytes() == (
        project.path / "parallel.json"
    ).read_bytes()


# Scenario files refuse lone surrogates; a plugin model can still answer with one.
LONE_SURROGATE_OUTPUT = """\
scenario: NAME
agents:
  bot: {model: {kind: half_pair}}
run: [go]
"""
HALF_PAIR_MODEL = """\
from handoff_sim.testing import FunctionModel

def pytest_handoff_make_model(config, scenario, agent_name, model_spec):
    if model_spec.get("kind") == "half_pair":
        return FunctionModel(lambda request: "half \\ud800 a pair")
    return None
"""


@pytest.mark.slow  # two xdist worker interpreters
def test_xdist_and_the_otlp_file_carry_a_plugin_models_output_holding_a_lone_surrogate(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("opentelemetry.sdk", reason=NEEDS_OTEL)
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
        monkeypatch.delenv(name, raising=False)
    pytester.makeini("[pytest]\nhandoff_scenarios = scenarios\n")
    pytester.makeconftest(HALF_PAIR_MODEL)
    folder = pytester.path / "scenarios"
    folder.mkdir()
    for name in ("a", "b"):
        (folder / f"{name}.yaml").write_text(LONE_SURROGATE_OUTPUT.replace("NAME", name), "utf-8")
    result = pytester.runpytest_inprocess(
        "-p", "no:hypothesispytest", "-n", "2", "--handoff-otel=out.json",
        "--handoff-report=out.html",
    )  # fmt: skip
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.OK
    written = (pytester.path / "out.json").read_bytes()
    assert b"\\ud800" in written  # as a JSON escape: UTF-8 has no lone surrogate
    json.loads(written)
    assert _outputs(pytester.path / "out.json") == {
        "scenarios/a.yaml::a": ["half \ud800 a pair"],
        "scenarios/b.yaml::b": ["half \ud800 a pair"],
    }
    assert (pytester.path / "out.html").is_file()
