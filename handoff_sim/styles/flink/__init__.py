"""Flink-style delegation: sub-agents as ``subagent_<name>`` callables.

Declared input schemas, results normalised to JSON with refusals that name the
path, and failures reported to the model as ``Sub-agent <callable> execute
failed: <reason>``. See docs/styles.md.
"""

from handoff_sim.styles.flink._normalize import decode_output, normalize_result, render_result
from handoff_sim.styles.flink._schema import SubAgentNotOfferedWarning
from handoff_sim.styles.flink._subagent import FlinkSubAgent

__all__ = [
    "FlinkSubAgent",
    "SubAgentNotOfferedWarning",
    "decode_output",
    "normalize_result",
    "render_result",
]
