"""The adapters' errors: a missing extra, a run capture cannot record, a scenario not applicable."""

from __future__ import annotations

import importlib

from handoff_sim._errors._families import ConfigurationError
from handoff_sim.errors import RunError, ScenarioError, SetupError

__all__ = ["CaptureError", "MissingExtraError", "ScenarioNotApplicable", "require_extra"]


class MissingExtraError(SetupError, ImportError):
    """An adapter was imported but the framework it adapts is not installed."""

    def __init__(self, adapter: str, extra: str, package: str) -> None:
        super().__init__(
            f"{adapter} needs the optional extra {extra!r}: "
            f"pip install 'handoff-sim[{extra}]' (the package {package!r} is not installed)"
        )
        self.adapter = adapter
        self.extra = extra
        self.package = package


class CaptureError(RunError):
    """``capture()`` could not record a run it was asked to record (say, tracing was off)."""


class ScenarioNotApplicable(ScenarioError):
    """A scenario needs a feature the framework lacks: reported as not applicable, not run.

    ``runtime`` names the framework (``openai-agents``), ``reason`` says which feature
    of the file it cannot express. ``handoff-sim run --runtime`` prints it as an ``N/A``
    line and pytest ``--handoff-runtime`` as a skip; neither counts it as a pass.
    """

    def __init__(self, runtime: str, reason: str) -> None:
        super().__init__(f"not applicable on {runtime}: {reason}")
        self.runtime = runtime
        self.reason = reason


class GovernanceError(ConfigurationError):
    """``governed(...)`` was given something it cannot govern."""


def require_extra(module: str, *, adapter: str, extra: str, package: str) -> None:
    """Import ``module`` or raise :class:`MissingExtraError` naming ``extra``."""
    try:
        importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtraError(adapter, extra, package) from exc
