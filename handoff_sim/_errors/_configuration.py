"""Configuration errors: an agent, tool, sub-agent or policy built with invalid values."""

from __future__ import annotations

from handoff_sim._errors._families import ConfigurationError

__all__ = [
    "DuplicateToolNameError",
    "InputFilterError",
    "InvalidNameError",
    "PolicyError",
    "ReservedPrefixError",
    "RetryClassifierError",
]


class InvalidNameError(ConfigurationError):
    """A required name is blank, or an explicit tool name is malformed."""


class DuplicateToolNameError(ConfigurationError):
    """Two tools (plain or sub-agent) of one agent resolve to the same name.

    ``subagent`` says whether a sub-agent tool is one of them; the message reads
    ``duplicate subagent tool name: <name>`` then, else ``duplicate tool name: <name>``.
    """

    def __init__(self, name: str, *, subagent: bool = True) -> None:
        kind = "subagent tool" if subagent else "tool"
        super().__init__(f"duplicate {kind} name: {name}")
        self.name = name
        self.subagent = subagent


class ReservedPrefixError(ConfigurationError):
    """A plain tool uses the ``subagent_`` prefix reserved for sub-agents."""

    def __init__(self, name: str) -> None:
        super().__init__(
            f"Tool name '{name}' must not start with the reserved prefix 'subagent_', "
            "which identifies sub-agent callables"
        )
        self.name = name


class PolicyError(ConfigurationError):
    """A HandoffPolicy field has an invalid value."""


class RetryClassifierError(PolicyError):
    """A retry classification (``HandoffPolicy.retry_on``, ``SubAgent.retryable``) is unusable.

    Raised when one given as ``package.module:function`` does not import or is not a plain
    callable, and during a run, as the handoff's error, when it raises or returns no bool.
    """


class InputFilterError(ConfigurationError):
    """An input filter given as ``package.module:function`` cannot be used.

    Raised when it does not import, is missing or not callable, and during a run when the
    filter raises or returns something other than a ``ToolCall`` or ``None``.
    """
