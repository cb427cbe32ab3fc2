"""Fake tools and the catch-all primary executor a scenario declares."""

from __future__ import annotations

import asyncio
import builtins
import json
from collections.abc import Sequence
from typing import Any

from handoff_sim._tools import Tool, ToolSetExecutor
from handoff_sim.messages import ToolCall
from handoff_sim.scenarios._build._answers import RecordedAnswers, table_of
from handoff_sim.scenarios._schema import FakeToolSpec, RaisesSpec, ToolExecutorSpec

__all__ = ["CatchAllExecutor", "ToolRuns", "fake_tool"]


class ToolRuns(dict[str, int]):
    """How often each fake tool's body ran, and with which ``arguments`` each time."""

    def __init__(self) -> None:
        super().__init__()
        self.arguments: dict[str, list[object]] = {}

    def ran(self, name: str, arguments: dict[str, Any]) -> None:
        """Count one run of ``name`` with ``arguments``."""
        self[name] = self.get(name, 0) + 1
        self.arguments.setdefault(name, []).append(arguments)

    def snapshot(self) -> ToolRuns:
        """A copy that later runs do not change."""
        copy = ToolRuns()
        copy.update(self)
        copy.arguments = {name: list(calls) for name, calls in self.arguments.items()}
        return copy


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


def fake_tool(
    name: str,
    spec: FakeToolSpec,
    runs: dict[str, int] | None = None,
    *,
    recorded: bool = False,
) -> Tool:
    """A plain tool that waits ``latency`` virtual seconds, then returns or raises; or one
    that answers from its table (``answers``, ``sequence``, ``default``).

    ``runs`` counts how often each tool's body ran (``expect.tool_runs``). In a recording
    (``recorded``) a table of answers alone is the recorded calls, each served once.
    """
    replay = (
        recorded and spec.answers is not None and spec.sequence is None and spec.default is None
    )
    answers = RecordedAnswers(name, spec.answers or ()) if replay else None
    table = table_of(name, spec) if spec.is_table() and not replay else None

    async def run(**arguments: Any) -> str:
        if isinstance(runs, ToolRuns):
            runs.ran(name, arguments)
        elif runs is not None:
            runs[name] = runs.get(name, 0) + 1
        if answers is not None:
            return await answers.answer(arguments)
        if table is not None:
            return await table.choose(arguments).play()
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
