"""Builders shared by the runtime's unit tests: scripted agents, trackers, recorders.

Also the one way a test that needs an optional extra skips without it, naming the extra.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
from collections.abc import Callable, Iterable, Sequence
from types import ModuleType
from typing import Any, TypeVar

import pytest

from handoff_sim import Agent, HandoffPolicy, SubAgent, ToolCall, Trace, UnknownToolError
from handoff_sim.events import HandoffEndEvent, HandoffStartEvent
from handoff_sim.messages import ModelRequest
from handoff_sim.simulation import Simulation
from handoff_sim.testing import FunctionModel, ScriptedModel

E = TypeVar("E", bound=BaseException)

__all__ = [
    "NEEDS_OTEL",
    "ConcurrencyTracker",
    "RecordingExecutor",
    "call",
    "delegate",
    "ends",
    "extra_installed",
    "import_extra",
    "leaf",
    "needs_extra",
    "parent_of",
    "payload",
    "recording_filter",
    "run_raising",
    "skip_reason",
    "starts",
    "tool_results",
    "turn",
]


def skip_reason(extra: str) -> str:
    """Why a test skips without ``extra``: the extra and the command that installs it."""
    return f"needs the {extra!r} extra: pip install 'handoff-sim[{extra}]'"


def extra_installed(module: str) -> bool:
    """``module`` (e.g. ``opentelemetry.sdk``) can be imported, found without importing it."""
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a dotted name whose parent package is missing
        return False


def needs_extra(extra: str, module: str) -> pytest.MarkDecorator:
    """A mark that skips a test (or one ``pytest.param``) unless ``extra``'s ``module`` is here."""
    return pytest.mark.skipif(not extra_installed(module), reason=skip_reason(extra))


def import_extra(extra: str, module: str) -> ModuleType:
    """``module`` of ``extra``, or skip the calling test (or module) naming the extra."""
    return pytest.importorskip(module, reason=skip_reason(extra))


NEEDS_OTEL = needs_extra("otel", "opentelemetry.sdk")


def call(name: str, arguments: Any = None, id: str | None = None) -> dict[str, Any]:
    """One scripted tool call; ``arguments`` is a dict or a raw string (default ``{}``)."""
    step: dict[str, Any] = {"name": name, "arguments": {} if arguments is None else arguments}
    if id is not None:
        step["id"] = id
    return step


def turn(*calls: dict[str, Any], latency: float | str | None = None) -> dict[str, Any]:
    """A script step that asks for ``calls`` in one model turn."""
    step: dict[str, Any] = {"tool_calls": list(calls)}
    if latency is not None:
        step["latency"] = latency
    return step


def delegate(tool: str, task: str = "x", id: str | None = None) -> dict[str, Any]:
    """A delegation call ``{"task": task}`` to ``tool``."""
    return call(tool, {"task": task}, id)


def leaf(name: str, *steps: Any, **agent_options: Any) -> Agent:
    """An agent whose model answers with ``steps`` (default: one text answer ``<name>-done``)."""
    script = list(steps) if steps else [{"text": f"{name}-done"}]
    return Agent(name=name, model=ScriptedModel(script), **agent_options)


def parent_of(
    subagents: Sequence[SubAgent],
    *steps: Any,
    name: str = "parent",
    final: str | None = "done",
    policy: HandoffPolicy | None = None,
    **agent_options: Any,
) -> Agent:
    """A parent whose model plays ``steps`` and then answers ``final`` (if not None)."""
    script = list(steps) + ([{"text": final}] if final is not None else [])
    return Agent(
        name=name,
        model=ScriptedModel(script),
        subagents=subagents,
        handoff_policy=policy,
        **agent_options,
    )


def starts(trace: Trace) -> list[HandoffStartEvent]:
    """Every ``handoff_start`` of ``trace``."""
    return [e for e in trace if isinstance(e, HandoffStartEvent)]


def ends(trace: Trace) -> list[HandoffEndEvent]:
    """Every ``handoff_end`` of ``trace``."""
    return [e for e in trace if isinstance(e, HandoffEndEvent)]


def tool_results(messages: Iterable[Any]) -> list[Any]:
    """The ``tool`` messages of a conversation, in order."""
    return [m for m in messages if m.role == "tool"]


class ConcurrencyTracker:
    """A model (or tool) body that spends ``latency`` virtual seconds and counts overlap."""

    def __init__(self, latency: float, answer: str = "subagent-output") -> None:
        self.latency = latency
        self.answer = answer
        self.active = 0
        self.peak = 0
        self.entries = 0

    async def enter(self) -> None:
        """Be busy for ``latency`` seconds, counting how many are busy at once."""
        self.entries += 1
        self.active += 1
        self.peak = max(self.peak, self.active)
        try:
            await asyncio.sleep(self.latency)
        finally:
            self.active -= 1

    async def answer_request(self, request: ModelRequest) -> str:
        """A FunctionModel body: busy for a while, then the answer text."""
        await self.enter()
        return self.answer

    def model(self) -> FunctionModel:
        """A fake model whose every call goes through this tracker."""
        return FunctionModel(self.answer_request)


class RecordingExecutor:
    """A primary tool executor that records calls and answers from a template.

    ``serves`` limits the names it serves (others raise UnknownToolError); ``None``
    serves every name, like the lambda delegates of the upstream tests.
    """

    def __init__(self, answer: str = "primary-ok", serves: Iterable[str] | None = None) -> None:
        self.answer = answer
        self.serves = None if serves is None else set(serves)
        self.calls: list[ToolCall] = []

    def execute(self, call: ToolCall) -> str:
        """Record ``call`` and answer, or refuse a name it does not serve."""
        if self.serves is not None and call.name not in self.serves:
            raise UnknownToolError(call.name, f"Tool not allowed: {call.name}")
        self.calls.append(call)
        return self.answer.replace("<tool>", call.name)


def recording_filter(seen: list[ToolCall]) -> Callable[[ToolCall], ToolCall | None]:
    """An input filter that records every call it sees and keeps it (returns None)."""

    def record(call: ToolCall) -> ToolCall | None:
        seen.append(call)
        return None

    return record


def payload(text: str) -> dict[str, Any]:
    """A tool result's JSON envelope as a dict."""
    value = json.loads(text)
    assert isinstance(value, dict)
    return value


def run_raising(agent: Agent, error: type[E], user_input: str = "go") -> tuple[E, Trace]:
    """Simulate ``agent`` expecting ``error``; return it with the trace recorded so far."""
    with Simulation() as sim:
        try:
            sim.run(agent, user_input)
        except error as exc:
            return exc, sim.trace
    raise AssertionError(f"expected {error.__name__} out of the run")
