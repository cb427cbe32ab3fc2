"""Record real delegation runs once, replay them in virtual time: recordings are scenario files."""

from handoff_sim.recording._api import Recording, record, replay
from handoff_sim.recording._from_otlp import recording_from_otlp
from handoff_sim.recording._graph import AgentGraph
from handoff_sim.recording._recorder import Recorder, RecordingModel
from handoff_sim.recording._redact import Redaction
from handoff_sim.recording._what_if import what_if
from handoff_sim.testing._fingerprint import differences, fingerprint, normalise
from handoff_sim.testing._replay import ReplayModel
from handoff_sim.testing._replay_lane import ReplayLedger

__all__ = [
    "AgentGraph",
    "Recorder",
    "Recording",
    "RecordingModel",
    "Redaction",
    "ReplayLedger",
    "ReplayModel",
    "differences",
    "fingerprint",
    "normalise",
    "record",
    "recording_from_otlp",
    "replay",
    "what_if",
]
