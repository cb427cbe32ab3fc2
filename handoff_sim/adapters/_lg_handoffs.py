"""``governed_handoffs(...)``: the admission half of a policy on LangGraph transfer tools.

A supervisor's or a swarm's handoff tool (``create_handoff_tool``) answers with
``Command(goto=<agent>, graph=Command.PARENT)``: control moves, nothing comes back to
wait for, so there is no attempt to retry or to time out. Only admission applies: the
allow/deny lists and ``max_depth`` of a :class:`~handoff_sim.HandoffPolicy`, and a cap on
the transfers of one run. The seam is the tool itself: an admitted call runs the
original tool (its ``Command`` unchanged); a denied one is decided by the runtime's own
executor (the same events and messages as a denied delegation) and then either raises
out of the graph run (``FAIL``) or returns the denial as the tool's error
``ToolMessage``, so the graph stays with the agent that asked and its model reads why
(``REPORT_TO_MODEL``, ``FALLBACK_TO_PRIMARY``: no primary serves a transfer).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Coroutine, Mapping, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import BaseTool

from handoff_sim._context import (
    Frame,
    RunEnvironment,
    current_environment,
    current_frame,
    use_environment,
    use_frame,
)
from handoff_sim._errors._run import HandoffDeniedError
from handoff_sim._sessions import Session
from handoff_sim._tools import ToolOutput
from handoff_sim.adapters._capture import current_tool
from handoff_sim.adapters._errors import GovernanceError
from handoff_sim.adapters._governed import NoPrimary, TransferMount
from handoff_sim.messages import ToolCall
from handoff_sim.subagents import HandoffExecutor
from handoff_sim.subagents._definition import Refusal
from handoff_sim.subagents._policy import FailureAction, HandoffPolicy

__all__ = ["HANDOFF_DESTINATION", "governed_handoffs"]

HANDOFF_DESTINATION = "__handoff_destination"
"""The metadata key langgraph-supervisor and langgraph-swarm put on a handoff tool."""


def run_aside(coro: Coroutine[Any, Any, Any]) -> Any:
    """Run ``coro`` from sync code: here when no loop runs (LangGraph's sync path), else in
    a thread of its own."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


def _messages(state: Any) -> list[BaseMessage]:
    value = state.get("messages") if isinstance(state, Mapping) else getattr(state, "messages", [])
    return [m for m in value or () if isinstance(m, BaseMessage)]


def transfers_made(messages: Sequence[BaseMessage], names: frozenset[str], call_id: str) -> int:
    """The governed transfers this run made before the call ``call_id``.

    A run is one user turn: the messages since the last user message. A transfer made is
    a successful ``ToolMessage`` of one of ``names``; calls of them that come before
    ``call_id`` in the same model answer (parallel transfers) count too, so the cap does
    not depend on the order in which LangGraph runs them.
    """
    start = max((i + 1 for i, m in enumerate(messages) if isinstance(m, HumanMessage)), default=0)
    turn = messages[start:]
    made = sum(
        1 for m in turn if isinstance(m, ToolMessage) and m.name in names and m.status != "error"
    )
    last = next((m for m in reversed(turn) if isinstance(m, AIMessage)), None)
    for call in last.tool_calls if last is not None else ():
        if call.get("id") == call_id:
            break
        if call["name"] in names:
            made += 1
    return made


class _Gate:
    """Admission of a set of transfer tools under ``policy`` and ``max_transfers``."""

    def __init__(self, policy: HandoffPolicy, cap: int | None, names: frozenset[str]) -> None:
        self.policy = policy
        self.cap = cap
        self.names = names

    def over_cap(self, state: Any, call_id: str) -> Refusal | None:
        """The refusal of one transfer more than ``max_transfers`` allows in this run."""
        if self.cap is None:
            return None
        made = transfers_made(_messages(state), self.names, call_id)
        if made < self.cap:
            return None
        return Refusal(
            f"transfer {made + 1} of this run exceeds max_transfers {self.cap}", "not_allowed"
        )

    async def admit(self, tool: str, target: str, state: Any, call_id: str) -> str | None:
        """None when the transfer may go ahead; else the text the model gets (FAIL raises)."""
        env = current_environment() or RunEnvironment()
        frame = current_frame() or Frame(
            "agent", 0, env.next_run_id(), Session(id=env.new_id("session"), agent="agent")
        )
        depth = frame.depth + 1
        denied = self.policy.enabled and self.policy.deny_reason(tool, depth) is not None
        refusal = None if denied else self.over_cap(state, call_id)
        if not denied and refusal is None:
            return None
        mount = TransferMount(tool, target, refusal)
        executor = HandoffExecutor({tool: mount}, NoPrimary(), self.policy)
        with use_environment(env), use_frame(frame):
            result = await executor.execute(ToolCall(call_id, tool, "{}"))
        text = result.content if isinstance(result, ToolOutput) else result
        if refusal is None:
            return text
        if self.policy.on_denied is FailureAction.FAIL:
            raise HandoffDeniedError(tool, refusal.reason, text, depth=depth)
        return mount.denied(ToolCall("", tool, "{}"), text)


def _governed(gate: _Gate, original: BaseTool) -> BaseTool:
    target = str((original.metadata or {}).get(HANDOFF_DESTINATION))
    tool_name = original.name
    run_original = getattr(original, "coroutine", None)
    func: Any = getattr(original, "func", None)

    async def transfer(**kwargs: Any) -> Any:
        call_id = str(kwargs.get("tool_call_id") or tool_name)
        in_flight = current_tool()
        if in_flight is not None and in_flight.slot is not None:
            call_id = in_flight.slot.call.id
        text = await gate.admit(tool_name, target, kwargs.get("state"), call_id)
        if text is None:  # admitted: the original tool's Command, unchanged
            return await run_original(**kwargs) if run_original is not None else func(**kwargs)
        if in_flight is not None:
            in_flight.failed = text
        raw_id = str(kwargs.get("tool_call_id") or call_id)
        return ToolMessage(text, tool_call_id=raw_id, name=tool_name, status="error")

    def transfer_sync(**kwargs: Any) -> Any:
        """The sync path (``graph.invoke``) governed too: the same admission, on a loop aside."""
        return run_aside(transfer(**kwargs))

    return original.model_copy(update={"coroutine": transfer, "func": transfer_sync})


def _check(tool: object) -> BaseTool:
    if not isinstance(tool, BaseTool) or not hasattr(tool, "func"):
        raise GovernanceError(
            f"governed_handoffs() takes handoff tools made by create_handoff_tool, got {tool!r}"
        )
    if HANDOFF_DESTINATION not in (tool.metadata or {}):
        raise GovernanceError(
            f"governed_handoffs(): tool {tool.name!r} is no handoff tool (it has no "
            f"{HANDOFF_DESTINATION!r} metadata; make it with create_handoff_tool)"
        )
    return tool


def governed_handoffs(
    tools: Sequence[BaseTool],
    *,
    policy: HandoffPolicy | None = None,
    max_transfers: int | None = None,
) -> list[BaseTool]:
    """The handoff tools ``tools`` under the admission half of ``policy``, in their order.

    ``tools`` are handoff tools made by ``create_handoff_tool`` (langgraph-supervisor's
    or langgraph-swarm's); pass the result where those go
    (``create_supervisor(..., tools=...)``, an agent's ``tools=``). Each transfer is
    admitted by ``allowed_tools`` and ``denied_tools`` (by tool name,
    ``transfer_to_<agent>``), by ``max_depth`` (a transfer is checked one level below
    the run that asks, as a delegation would be) and by ``max_transfers``: the
    transfers of these tools one run (one user turn) may make. A denial is a denied
    handoff in the trace; under ``FAIL`` it raises
    :class:`~handoff_sim.HandoffDeniedError` out of the graph's run, otherwise the
    tool returns the denial as an error ``ToolMessage`` and the graph stays with the
    agent that asked.
    """
    if policy is not None and not isinstance(policy, HandoffPolicy):
        raise GovernanceError(
            f"governed_handoffs(): policy must be a HandoffPolicy, got {policy!r}"
        )
    if max_transfers is not None and (
        isinstance(max_transfers, bool) or not isinstance(max_transfers, int) or max_transfers < 0
    ):
        raise GovernanceError(
            f"governed_handoffs(): max_transfers must be an int >= 0 or None, got {max_transfers!r}"
        )
    if isinstance(tools, BaseTool):
        tools = [tools]
    checked = [_check(t) for t in tools]
    gate = _Gate(policy or HandoffPolicy(), max_transfers, frozenset(t.name for t in checked))
    return [_governed(gate, t) for t in checked]
