"""Record real delegation runs once, replay them in virtual time: recordings are scenario files."""

from handoff_sim.errors import (
    RecordingError,
    RecordingFormatError,
    ReplayExhaustedError,
    ReplayMismatchError,
    ToolReplayMismatchError,
    UnusedRecordingError,
)
from handoff_sim.recording._api import Recording, record, replay
from handoff_sim.recording._from_otlp import ConvertedRecording, recording_from_otlp
from handoff_sim.recording._graph import AgentGraph
from handoff_sim.recording._recorder import ModelCall, Recorder, RecordingModel, ToolCallRecord
from handoff_sim.recording._redact import Redaction
from handoff_sim.recording._what_if import (
    ExpectationChange,
    WhatIfReport,
    policy_options,
    what_if,
)
from handoff_sim.testing._fingerprint import Fingerprint, differences, fingerprint, normalise
from handoff_sim.testing._replay import ReplayModel
from handoff_sim.testing._replay_lane import ReplayLane, ReplayLedger

__all__ = [
    "AgentGraph",
    "ConvertedRecording",
    "ExpectationChange",
    "Fingerprint",
    "ModelCall",
    "Recorder",
    "Recording",
    "RecordingError",
    "RecordingFormatError",
    "RecordingModel",
    "Redaction",
    "ReplayExhaustedError",
    "ReplayLane",
    "ReplayLedger",
    "ReplayMismatchError",
    "ReplayModel",
    "ToolCallRecord",
    "ToolReplayMismatchError",
    "UnusedRecordingError",
    "WhatIfReport",
    "differences",
    "fingerprint",
    "normalise",
    "policy_options",
    "record",
    "recording_from_otlp",
    "replay",
    "what_if",
]
