"""Flink-style delegation: sub-agents as ``subagent_<name>`` callables.

Declared input schemas, results normalised to JSON with refusals that name the
path, and failures reported to the model as ``Sub-agent <callable> execute
failed: <reason>``. See docs/styles.md.
"""

from handoff_sim.styles.flink._normalize import (
    JsonValue,
    ResultNormalizationError,
    decode_output,
    normalize_result,
    render_result,
)
from handoff_sim.styles.flink._schema import SubAgentNotOfferedWarning, derive_input_schema
from handoff_sim.styles.flink._subagent import SUBAGENT_MARKER, FlinkSubAgent, ResultParser

__all__ = [
    "SUBAGENT_MARKER",
    "FlinkSubAgent",
    "JsonValue",
    "ResultNormalizationError",
    "ResultParser",
    "SubAgentNotOfferedWarning",
    "decode_output",
    "derive_input_schema",
    "normalize_result",
    "render_result",
]
