"""pytest-handoff: the pytest plugin of handoff-sim.

``pytest --handoff-scenarios DIR`` runs scenario files as tests; the fixtures
and these assertion helpers test delegation in ordinary Python tests. Names
load on first use, so importing the package (as pytest does at start-up) stays
cheap. See docs/plugin.md.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_handoff._assertions import (
        HandoffAssertionError,
        assert_denied,
        assert_depth_exceeded,
        assert_duplicate_tool_names,
        assert_fallback_unavailable,
        assert_handoffs_balanced,
        assert_normalized_name,
        assert_ran_in_parallel,
        assert_retry_count,
        assert_timeout_per_attempt,
    )
    from pytest_handoff._builders import (
        AgentBuilder,
        EventRecorder,
        ScriptedModelFactory,
        VirtualClock,
        delegate,
    )
    from pytest_handoff._gates import assert_gates
    from pytest_handoff._recording_errors import MissingRecordingError, RealModelBlockedError
    from pytest_handoff._snapshot import TraceSnapshotExtension
    from pytest_handoff._trajectory import assert_trajectory

__all__ = [
    "AgentBuilder",
    "EventRecorder",
    "HandoffAssertionError",
    "MissingRecordingError",
    "RealModelBlockedError",
    "ScriptedModelFactory",
    "TraceSnapshotExtension",
    "VirtualClock",
    "assert_denied",
    "assert_depth_exceeded",
    "assert_duplicate_tool_names",
    "assert_fallback_unavailable",
    "assert_gates",
    "assert_handoffs_balanced",
    "assert_normalized_name",
    "assert_ran_in_parallel",
    "assert_retry_count",
    "assert_timeout_per_attempt",
    "assert_trajectory",
    "delegate",
]

_HOME = {
    "AgentBuilder": "pytest_handoff._builders",
    "EventRecorder": "pytest_handoff._builders",
    "ScriptedModelFactory": "pytest_handoff._builders",
    "VirtualClock": "pytest_handoff._builders",
    "delegate": "pytest_handoff._builders",
    "assert_gates": "pytest_handoff._gates",
    "MissingRecordingError": "pytest_handoff._recording_errors",
    "RealModelBlockedError": "pytest_handoff._recording_errors",
    "TraceSnapshotExtension": "pytest_handoff._snapshot",
    "assert_trajectory": "pytest_handoff._trajectory",
}


def __getattr__(name: str) -> Any:
    """Import a public name from its module on first use (PEP 562)."""
    if name not in __all__:
        raise AttributeError(f"module 'pytest_handoff' has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOME.get(name, "pytest_handoff._assertions")), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
