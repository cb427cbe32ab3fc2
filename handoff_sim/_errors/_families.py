"""The base of every error and its families, one per who must act (see ``handoff_sim.errors``)."""

from __future__ import annotations

__all__ = [
    "CheckFailedError",
    "ConfigurationError",
    "DataError",
    "HandoffSimError",
    "RunError",
    "ScenarioError",
    "ScriptError",
    "SetupError",
    "ToolCallError",
]


class HandoffSimError(Exception):
    """Base class of every error raised by handoff_sim."""


class ConfigurationError(HandoffSimError, ValueError):
    """An agent, tool, sub-agent or policy was built with invalid values."""


class SetupError(HandoffSimError):
    """The environment lacks something a call needs: an optional extra, a loadable plugin."""


class RunError(HandoffSimError):
    """A run stopped with an error the caller must handle."""


class ScriptError(HandoffSimError):
    """A fake model was driven past or against its script, or a model client broke its contract."""


class ToolCallError(HandoffSimError):
    """One tool call (a handoff is one) failed; the run goes on and the calling model sees it.

    The policy may retry the call; what reaches the model is a failed tool result.
    """


class ScenarioError(HandoffSimError):
    """A scenario cannot be loaded or run as written (``handoff_sim.scenarios`` exports it too)."""


class DataError(HandoffSimError):
    """Data handoff_sim reads or writes cannot be used: a session store, OTLP trace data."""


class CheckFailedError(HandoffSimError):
    """A check found the code under test wrong: an invariant, an expectation, an assertion."""
