"""The errors of the ``handoff_recording`` fixture: a missing recording, a blocked real model.

Both are ``RecordingError``s, so ``except RecordingError`` catches them with the
replay's own errors.
"""

from __future__ import annotations

from handoff_sim.errors import RecordingError, ScriptError

__all__ = ["MissingRecordingError", "RealModelBlockedError"]


class MissingRecordingError(RecordingError, FileNotFoundError):
    """A test replays a recording that does not exist (the record mode does not record it)."""

    def __init__(self, path: str, mode: str) -> None:
        super().__init__(
            f"no recording at {path}: --handoff-record-mode={mode} replays only; record it "
            "once with --handoff-record-mode=once (a real run; locally, not under CI), "
            "then commit the file"
        )
        self.path = path
        self.mode = mode


class RealModelBlockedError(RecordingError, ScriptError):
    """With ``--handoff-block-models``, an agent the replay has no lane for called its model.

    A ``ScriptError`` too, so the runtime ends the run with it rather than handing it to
    the delegating model as a failed sub-agent's result.
    """

    def __init__(self, agent: str, path: str) -> None:
        super().__init__(
            f"agent {agent!r} called its real model during the replay of {path}, and "
            "--handoff-block-models forbids real model calls: the recording has no lane "
            f"for {agent!r}; re-record the test (--handoff-record-mode=all) if the agent is new"
        )
        self.agent = agent
        self.path = path
