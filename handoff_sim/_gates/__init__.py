"""CI gates on recorded traces: thresholds on handoff latency, attempts, handoffs per run,
depth, delegation loops, forbidden tools and error rates.

``check_gates(trace, gates)`` gives a :class:`GateReport`; ``handoff-sim check --gate``
and ``--gates FILE`` print it as a table and write it as JUnit XML; pytest_handoff's
``assert_gates`` raises :class:`GateFailedError` with it. See docs/otel.md, "Gates".
"""

from handoff_sim._gates._errors import GateFailedError, GateSpecError
from handoff_sim._gates._evaluate import GateReport, GateResult, check_gates, percentile
from handoff_sim._gates._junit import junit_xml, write_junit
from handoff_sim._gates._load import SHORT_NAMES, gates_from, load_gates, parse_gate_options
from handoff_sim._gates._spec import Gates, LatencyGates, Thresholds, gates_json_schema
from handoff_sim._gates._table import render_gates

__all__ = [
    "SHORT_NAMES",
    "GateFailedError",
    "GateReport",
    "GateResult",
    "GateSpecError",
    "Gates",
    "LatencyGates",
    "Thresholds",
    "check_gates",
    "gates_from",
    "gates_json_schema",
    "junit_xml",
    "load_gates",
    "parse_gate_options",
    "percentile",
    "render_gates",
    "write_junit",
]
