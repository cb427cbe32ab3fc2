"""The recording conventions of the plugin: options, the marker, the fixtures, new_episodes.

Follows pytest-recording: ``@pytest.mark.handoff_recording`` and the
``handoff_recording`` fixture bind a test to one file beside its module,
``--handoff-record-mode`` says whether it records or replays, and
``--handoff-block-models`` makes a real model call during a replay an error.
Imports only pytest and the standard library (the plugin loads in every session).
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_handoff._record_modes import add_options, blocks_models, check_modes, record_mode
from pytest_handoff._recording_paths import (
    MARKER,
    MarkerProblem,
    binding,
    module_recordings_dir,
    shown_path,
)

if TYPE_CHECKING:
    from pytest_handoff._recording import HandoffRecording

__all__ = ["handoff_recording", "handoff_recording_dir"]

_MARKER_LINE = (
    f"{MARKER}(file=None, *, match=None): bind the test to its recording (the file, relative "
    "to the handoff_recording_dir folder; match= fingerprint, tools or order)"
)

#: The recording the ``handoff_recording`` fixture gave the item, for new_episodes.
ACTIVE: pytest.StashKey[HandoffRecording] = pytest.StashKey()

_PROPERTY = "handoff_recording_written"


def pytest_addoption(parser: pytest.Parser) -> None:
    """The record mode and the model block, in the plugin's ``handoff`` group."""
    add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    """Register the marker; refuse an unknown mode, or a recording mode under ``CI``."""
    config.addinivalue_line("markers", _MARKER_LINE)
    check_modes(config)
    config.pluginmanager.register(_WrittenRecordings(), "handoff-recordings-written")


@pytest.fixture(scope="module")
def handoff_recording_dir(request: pytest.FixtureRequest) -> Path:
    """``<test module dir>/recordings/<module stem>``; override it to move the recordings."""
    return module_recordings_dir(request.path)


@pytest.fixture
def handoff_recording(
    request: pytest.FixtureRequest, handoff_recording_dir: str | Path
) -> Iterator[HandoffRecording]:
    """The test's recording: ``with handoff_recording.use(agent): ...`` records or replays.

    One file per test (``<test name>.yaml`` in ``handoff_recording_dir``) unless
    ``@pytest.mark.handoff_recording("file.yaml", match="tools")`` names another.
    """
    from pytest_handoff._recording import HandoffRecording

    try:
        bound = binding(request.node)
    except MarkerProblem as exc:
        problem = str(exc)
    else:
        problem = ""
    if problem:  # outside the except block: no "during handling" chain in the report
        pytest.fail(problem, pytrace=False)
    folder = Path(handoff_recording_dir)
    if not folder.is_absolute():
        folder = request.path.parent / folder  # relative to the test module, not the cwd
    path = folder / bound.name
    config = request.config
    recording = HandoffRecording(
        path,
        mode=record_mode(config),
        match=bound.match,
        block_models=blocks_models(config),
        shown=shown_path(config, path),
    )
    request.node.stash[ACTIVE] = recording
    yield recording
    if recording.written:
        why = "re-recorded: the replay no longer matched" if recording.rerecord else "recorded"
        request.node.user_properties.append((_PROPERTY, f"{recording.shown} ({why})"))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    """Under new_episodes, a test whose replay no longer matches runs again, recording."""
    try:
        return (yield)
    except Exception as exc:
        recording = item.stash.get(ACTIVE, None)
        if recording is None or recording.mode != "new_episodes" or not recording.replayed:
            raise
        from pytest_handoff._rerecord import diverged

        if not diverged(exc):
            raise
        recording.rerecord = True
        item.runtest()
        return None


class _WrittenRecordings:
    """Collects the recordings a session wrote from teardown reports (xdist sends them)."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Keep each ``path (why)`` a test's teardown report carries."""
        if report.when == "teardown":
            self.lines.extend(str(v) for name, v in report.user_properties if name == _PROPERTY)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """Name each recording the session wrote, so a local record run says what changed."""
        if self.lines:
            terminalreporter.write_sep("-", f"handoff recordings written: {len(self.lines)}")
            for line in self.lines:
                terminalreporter.write_line(line)
