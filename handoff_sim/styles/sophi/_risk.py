"""Risk tiers of tools: ``SAFE < CAUTION < DESTRUCTIVE``.

A tool declares its tier in ``Tool.metadata["risk"]``: a tier, its name
(``"destructive"``), or a callable of the parsed arguments returning one. No
declaration means SAFE. A tier callable that raises is DESTRUCTIVE (fail closed).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import IntEnum
from typing import Any

from handoff_sim._errors._families import ConfigurationError
from handoff_sim._tools import Tool

__all__ = ["RISK_KEY", "RiskDeclaration", "RiskLevel", "risk_of", "with_risk"]

RISK_KEY = "risk"


class RiskLevel(IntEnum):
    """How dangerous a call is; tiers compare, so ``max`` picks the worst."""

    SAFE = 0
    CAUTION = 1
    DESTRUCTIVE = 2

    def __str__(self) -> str:
        return self.name

    @classmethod
    def parse(cls, value: object) -> RiskLevel:
        """A tier from a tier or its name in any case; ConfigurationError otherwise."""
        if isinstance(value, RiskLevel):
            return value
        if isinstance(value, str) and value.strip().upper() in cls.__members__:
            return cls[value.strip().upper()]
        raise ConfigurationError(f"risk must be one of safe, caution, destructive; got {value!r}")


RiskDeclaration = RiskLevel | str | Callable[[dict[str, Any]], "RiskLevel | str"]


def check_risk_declaration(tool: Tool) -> None:
    """Raise ConfigurationError now if ``tool`` declares a risk that is no tier."""
    declared = tool.metadata.get(RISK_KEY, RiskLevel.SAFE)
    if not callable(declared):
        try:
            RiskLevel.parse(declared)
        except ConfigurationError as exc:
            raise ConfigurationError(f"tool {tool.name!r}: {exc}") from None


def risk_of(tool: Tool, arguments: Mapping[str, Any] | None = None) -> RiskLevel:
    """The tier of calling ``tool`` with ``arguments`` (``{}`` is the no-arguments probe)."""
    declared = tool.metadata.get(RISK_KEY, RiskLevel.SAFE)
    if callable(declared):
        try:
            return RiskLevel.parse(declared(dict(arguments or {})))
        except Exception:
            return RiskLevel.DESTRUCTIVE
    return RiskLevel.parse(declared)


def with_risk(tool: Tool, risk: RiskDeclaration) -> Tool:
    """``tool`` with its risk declared (returns the same tool, for chaining)."""
    tool.metadata[RISK_KEY] = risk if callable(risk) else RiskLevel.parse(risk)
    return tool
