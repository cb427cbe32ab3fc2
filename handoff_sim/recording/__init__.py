"""Record real delegation runs once, replay them in virtual time: recordings are scenario files."""

from handoff_sim.errors import (
    RecordingError,
    RecordingFormatError,
    ReplayExhaustedError,
    ReplayMismatchError,
    ToolReplayMismatchError,
    UnusedRecordingError,
)
from handoff_sim.testing import (
    Fingerprint,
    ReplayLane,
    ReplayLedger,
    ReplayModel,
    differences,
    fingerprint,
    normalise,
)

__all__ = [
    "Fingerprint",
    "RecordingError",
    "RecordingFormatError",
    "ReplayExhaustedError",
    "ReplayLane",
    "ReplayLedger",
    "ReplayMismatchError",
    "ReplayModel",
    "ToolReplayMismatchError",
    "UnusedRecordingError",
    "differences",
    "fingerprint",
    "normalise",
]
