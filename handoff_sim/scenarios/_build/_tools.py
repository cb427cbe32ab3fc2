"""Fake tools and the catch-all primary executor a scenario declares."""

from __future__ import annotations

import asyncio
import builtins
import json
from collections.abc import Sequence
from typing import Any

from handoff_sim._tools import Tool, ToolSetExecutor
from handoff_sim.messages import ToolCall
from handoff_sim.scenarios._build._answers import RecordedAnswers
from handoff_sim.scenarios._schema import FakeToolSpec, RaisesSpec, ToolExecutorSpec

__all__ = ["CatchAllExecutor", "fake_tool"]


def _outcome(spec: ToolExecutorSpec, tool: str, arguments: str) -> str:
    """What a fake returns, or raise what it raises."""
    if spec.raises is not None:
        raises = (
            spec.raises if isinstance(spec.raises, RaisesSpec) else RaisesSpec(message=spec.raises)
        )
        error_type: type[Exception] = getattr(builtins, raises.type)
        raise error_type(raises.message)
    value = spec.returns
    text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
    return text.replace("{tool}", tool).replace("{arguments}", arguments)


def fake_tool(name: str, spec: FakeToolSpec, runs: dict[str, int] | None = None) -> Tool:
    """A plain tool that waits ``latency`` virtual seconds, then returns or raises.

    ``runs`` counts how often each tool's body ran (``expect.tool_runs``).
    """

    recorded = RecordedAnswers(name, spec.answers) if spec.answers is not None else None

    async def run(**arguments: Any) -> str:
        if runs is not None:
            runs[name] = runs.get(name, 0) + 1
        if recorded is not None:
            return await recorded.answer(arguments)
        if spec.latency:
            await asyncio.sleep(spec.latency)
        return _outcome(spec, name, json.dumps(arguments, separators=(",", ":")))

    return Tool(
        name,
        run,
        description=spec.description,
        parameters=spec.parameters,
        metadata={"risk": spec.risk},
    )


class CatchAllExecutor:
    """A primary executor: the agent's own tools by name, every other name by one fake."""

    def __init__(self, tools: Sequence[Tool], spec: ToolExecutorSpec) -> None:
        self._tools = ToolSetExecutor(tools)
        self._spec = spec

    async def execute(self, call: ToolCall) -> str:
        """Serve ``call``; names the agent's tools do not have get the catch-all result."""
        if call.name in self._tools.tools:
            return await self._tools.execute(call)
        if self._spec.latency:
            await asyncio.sleep(self._spec.latency)
        return _outcome(self._spec, call.name, call.arguments)
