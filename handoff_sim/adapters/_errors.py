"""The adapters' own errors: a missing optional extra, and a run capture cannot record."""

from __future__ import annotations

import importlib

from handoff_sim.errors import ConfigurationError, HandoffSimError, RunError

__all__ = ["CaptureError", "MissingExtraError", "require_extra"]


class MissingExtraError(HandoffSimError, ImportError):
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


class GovernanceError(ConfigurationError):
    """``governed(...)`` was given something it cannot govern."""


def require_extra(module: str, *, adapter: str, extra: str, package: str) -> None:
    """Import ``module`` or raise :class:`MissingExtraError` naming ``extra``."""
    try:
        importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtraError(adapter, extra, package) from exc
