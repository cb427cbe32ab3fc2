"""Recordings edited by hand into hostile ones: each gives a typed error that says where.

A malformed recording is refused at load with ``path:line:col`` and the field; one that
loads but no longer fits the run (lanes swapped, steps removed, a forged fingerprint,
steps left over) fails its run with a replay error naming the agent, the model call and
the recorded step's ``path:line``, and every ``*_start`` still has its ``*_end``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from handoff_sim.errors import (
    RecordingError,
    ReplayExhaustedError,
    ReplayMismatchError,
    UnusedRecordingError,
)
from handoff_sim.scenarios import ScenarioFileError, load_file, run_scenario

from ._support import open_starts

FILES = Path(__file__).parent / "files"

REFUSED_AT_LOAD = {
    "recording_format_2": ("recorded.format", "recording format 2 is not supported"),
    "recording_format_string": ("recorded.format", "recording format '1' is not supported"),
    "recording_bad_sha256": (
        "agents.research.model.script.0.request.sha256",
        "must match ^[0-9a-f]{16}$",
    ),
    "recording_negative_latency": ("agents.research.model.script.0.latency", "invalid duration"),
    "recording_huge_latency": (
        "agents.research.model.script.0.latency",
        "must be at most 31622400 seconds",
    ),
    "recording_cancelled_with_text": (
        "agents.research.model.script.0",
        "a step with 'cancelled: true' never answers",
    ),
}

# file -> (error, agent, model call, line of the recorded step the message points at)
FAILS_AT_RUN: dict[str, tuple[type[RecordingError], str, int | None, str]] = {
    "recording_lanes_swapped": (ReplayMismatchError, "triage", 1, "text: it shipped on monday"),
    "recording_forged_fingerprint": (
        ReplayMismatchError,
        "research",
        1,
        "text: it shipped on monday",
    ),
    "recording_steps_removed": (ReplayExhaustedError, "triage", 2, "- tool_calls:"),
    "recording_unused_steps": (UnusedRecordingError, "research", None, "text: never asked"),
}


def _line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def test_every_recording_file_of_the_corpus_is_tested_here() -> None:
    found = {p.stem for p in FILES.glob("recording_*.yaml")}
    assert found == set(REFUSED_AT_LOAD) | set(FAILS_AT_RUN)


@pytest.mark.parametrize("name", sorted(REFUSED_AT_LOAD))
def test_a_malformed_recording_is_refused_at_load_with_file_line_and_field(name: str) -> None:
    path = FILES / f"{name}.yaml"
    field, message = REFUSED_AT_LOAD[name]
    with pytest.raises(ScenarioFileError) as caught:
        load_file(path)
    pattern = rf"{re.escape(str(path))}:[0-9]+:[0-9]+: {re.escape(field)}: .*{re.escape(message)}"
    assert re.search(pattern, str(caught.value)), str(caught.value)


def test_a_wrong_format_number_names_the_format_this_version_reads() -> None:
    with pytest.raises(ScenarioFileError, match="this handoff-sim reads format 1"):
        load_file(FILES / "recording_format_2.yaml")


@pytest.mark.parametrize("name", sorted(FAILS_AT_RUN))
def test_a_recording_that_no_longer_fits_the_run_fails_naming_agent_step_and_line(
    name: str,
) -> None:
    path = FILES / f"{name}.yaml"
    error_type, agent, call, step_text = FAILS_AT_RUN[name]
    (scenario,) = load_file(path)
    result = run_scenario(scenario)
    assert not result.passed
    if error_type is UnusedRecordingError:
        (finding,) = [m for m in result.mismatches if m.kind == "recording"]
        error = finding.actual
    else:
        error = result.error
    assert isinstance(error, error_type), result.render_failure()
    assert error.agent == agent  # type: ignore[attr-defined]
    if call is not None:
        assert error.step == call  # type: ignore[attr-defined]
    assert f"{path}:{_line_of(path, step_text)}" in str(error)
    assert open_starts(result.trace) == []


def test_terminal_never_receives_escape_sequences_from_a_forged_recording() -> None:
    (scenario,) = load_file(FILES / "recording_forged_fingerprint.yaml")
    report = run_scenario(scenario).render_failure()
    assert "\x1b" not in report
    assert "\u202e" not in report
    assert "\\x1b]0;pwned\\x07\\u202e forged" in report
