"""``ToolRegistry``: named tools, least-privilege subsets and risk queries."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from handoff_sim._errors._run import UnknownToolError
from handoff_sim._tools import Tool
from handoff_sim.messages import ToolSpec
from handoff_sim.styles.sophi._risk import RiskLevel, check_risk_declaration, risk_of

__all__ = ["ToolRegistry"]


class ToolRegistry:
    """Tools by name, in registration order. Registering a name again replaces it."""

    __slots__ = ("_tools",)

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for item in tools:
            self.register(item)

    def __repr__(self) -> str:
        return f"ToolRegistry({list(self._tools)!r})"

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def register(self, tool: Tool) -> ToolRegistry:
        """Add ``tool`` (replacing one of the same name); its risk is checked now."""
        check_risk_declaration(tool)
        self._tools[tool.name] = tool
        return self

    def unregister(self, name: str) -> ToolRegistry:
        """Remove ``name``; an unknown name is a no-op."""
        self._tools.pop(name, None)
        return self

    def get(self, name: str) -> Tool:
        """The tool called ``name``; UnknownToolError (``Tool not found: <name>``) otherwise."""
        found = self._tools.get(name)
        if found is None:
            raise UnknownToolError(name, f"Tool not found: {name}")
        return found

    def get_or_none(self, name: str) -> Tool | None:
        """The tool called ``name``, or None."""
        return self._tools.get(name)

    def names(self) -> list[str]:
        """Every name, sorted."""
        return sorted(self._tools)

    def tools(self) -> tuple[Tool, ...]:
        """Every tool, in registration order."""
        return tuple(self._tools.values())

    def definitions(self) -> list[ToolSpec]:
        """What a model is told about each tool, in registration order."""
        return [t.spec for t in self._tools.values()]

    def subset(self, names: Iterable[str] | None) -> ToolRegistry:
        """A new registry with only the named tools, in the order named (unknown names ignored)."""
        scoped = ToolRegistry()
        for name in names or ():
            found = self._tools.get(name)
            if found is not None:
                scoped._tools[name] = found
        return scoped

    def safe_grants_from(self, expected_tools: Iterable[str] | None) -> frozenset[str]:
        """The named tools that are here and SAFE for the no-arguments probe."""
        return frozenset(
            name
            for name in expected_tools or ()
            if (found := self._tools.get(name)) is not None and risk_of(found) is RiskLevel.SAFE
        )

    def worst_risk_among(self, expected_tools: Iterable[str] | None) -> RiskLevel:
        """The worst probed tier of the named tools here; SAFE when none is named or known."""
        tiers = [risk_of(t) for name in expected_tools or () if (t := self._tools.get(name))]
        return max(tiers, default=RiskLevel.SAFE)
