"""``governed_handoffs(...)``: the admission half of a policy on SDK control transfers.

A transfer (``handoffs=[...]``, a ``transfer_to_*`` tool) has no attempt to retry and no
result to wait for, so only admission applies: the allow/deny lists and ``max_depth`` of
a :class:`~handoff_sim.HandoffPolicy`, and a cap on the transfers of one run. The seam is
the SDK's own ``Handoff.on_invoke_handoff``: an admitted transfer returns its target as
usual; a denied one is decided by the runtime's own executor (the same events and
messages as a denied delegation) and then either fails the run (``FAIL``) or keeps the
run with the agent that asked, whose model gets the denial as the transfer's tool
result (``REPORT_TO_MODEL``, ``FALLBACK_TO_PRIMARY``: no primary serves a transfer).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from agents import Agent, Handoff, handoff
from agents.run_context import RunContextWrapper

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
from handoff_sim.adapters._capture import current_record
from handoff_sim.adapters._errors import GovernanceError
from handoff_sim.adapters._governed import NoPrimary, TransferMount
from handoff_sim.adapters._oai_capture import DeniedTransfer, current_denial, set_denial
from handoff_sim.adapters._oai_governed import in_run
from handoff_sim.messages import ToolCall
from handoff_sim.subagents import HandoffExecutor
from handoff_sim.subagents._definition import Refusal
from handoff_sim.subagents._policy import FailureAction, HandoffPolicy

__all__ = ["governed_handoffs"]

_COUNT = "_handoff_sim_transfers"
"""The attribute of a run's ``RunContextWrapper`` that counts its governed transfers."""


def _call_id(tool: str) -> str:
    """The id of the model's call of ``tool``, started in the recorded run if a capture sees it."""
    found = current_record()
    if found is not None:
        recorder, record = found
        for slot in record.slots:
            if slot.call.name == tool and not slot.ended:
                recorder.start_tool(record, slot)
                return slot.call.id
    return f"{tool}_call"


class _Gate:
    """Admission of one source agent's transfers under ``policy`` and ``max_transfers``."""

    def __init__(self, source: Agent[Any], policy: HandoffPolicy, cap: int | None) -> None:
        self.source = source
        self.policy = policy
        self.cap = cap

    def over_cap(self, ctx: RunContextWrapper[Any]) -> Refusal | None:
        """The refusal of one transfer more than ``max_transfers`` allows in this run."""
        made = getattr(ctx, _COUNT, 0)
        if self.cap is None or made < self.cap:
            return None
        return Refusal(
            f"transfer {made + 1} of this run exceeds max_transfers {self.cap}", "not_allowed"
        )

    async def admit(self, tool: str, target: str, ctx: RunContextWrapper[Any]) -> str | None:
        """None when the transfer may go ahead; else the text the model gets (FAIL raises).

        A denial by the policy's lists or depth is the executor's own (its events, its
        messages, its ``on_denied``); the cap is a refusal the executor records.
        """
        env = current_environment() or RunEnvironment()
        frame = current_frame() or Frame(
            self.source.name,
            0,
            env.next_run_id(),
            Session(id=env.new_id("session"), agent=self.source.name),
        )
        depth = frame.depth + 1
        denied = self.policy.enabled and self.policy.deny_reason(tool, depth) is not None
        refusal = None if denied else self.over_cap(ctx)
        if not denied and refusal is None:
            setattr(ctx, _COUNT, getattr(ctx, _COUNT, 0) + 1)
            return None
        mount = TransferMount(tool, target, refusal)
        executor = HandoffExecutor({tool: mount}, NoPrimary(), self.policy)
        try:
            with use_environment(env), use_frame(frame):
                result = await executor.execute(ToolCall(_call_id(tool), tool, "{}"))
        except HandoffDeniedError as exc:
            raise in_run(exc) from None
        text = result.content if isinstance(result, ToolOutput) else result
        if refusal is None:
            return text
        if self.policy.on_denied is FailureAction.FAIL:
            raise in_run(HandoffDeniedError(tool, refusal.reason, text, depth=depth))
        return mount.denied(ToolCall("", tool, "{}"), text)


@dataclass
class _GovernedHandoff(Handoff[Any, Any]):
    """A ``Handoff`` whose tool result is the denial when the policy refused the transfer."""

    def get_transfer_message(self, agent: Any) -> str:
        denial = current_denial()
        if denial is not None and denial.tool == self.tool_name:
            return denial.text
        return super().get_transfer_message(agent)


def _invoker(
    gate: _Gate, original: Handoff[Any, Any]
) -> Callable[[RunContextWrapper[Any], str], Awaitable[Any]]:
    tool, target = original.tool_name, original.agent_name

    async def invoke(ctx: RunContextWrapper[Any], arguments: str) -> Any:
        set_denial(None)
        try:
            text = await gate.admit(tool, target, ctx)
        except HandoffDeniedError as exc:
            set_denial(DeniedTransfer(tool, str(exc), fails=True))
            raise
        if text is None:
            return await original.on_invoke_handoff(ctx, arguments)
        set_denial(DeniedTransfer(tool, text, fails=False))
        return gate.source  # the run stays with the agent that asked

    return invoke


def _governed(gate: _Gate, entry: Agent[Any] | Handoff[Any, Any]) -> Handoff[Any, Any]:
    original = handoff(entry) if isinstance(entry, Agent) else entry
    if not isinstance(original, Handoff):
        raise GovernanceError(
            f"governed_handoffs(): agent {gate.source.name!r} has a handoff that is neither an "
            f"agents.Agent nor a Handoff: {entry!r}"
        )
    fields = {f.name: getattr(original, f.name) for f in dataclasses.fields(original) if f.init}
    fields["on_invoke_handoff"] = _invoker(gate, original)
    governed = _GovernedHandoff(**fields)
    governed._agent_ref = original._agent_ref
    return governed


def governed_handoffs(
    agent: Agent[Any],
    *,
    policy: HandoffPolicy | None = None,
    max_transfers: int | None = None,
) -> Agent[Any]:
    """Put the admission half of ``policy`` on ``agent``'s ``handoffs=[...]``; returns ``agent``.

    Each transfer is admitted by ``allowed_tools`` and ``denied_tools`` (by transfer tool
    name, ``transfer_to_<agent>``), by ``max_depth`` (a transfer is checked one level below
    the run that asks, as a delegation would be) and by ``max_transfers``, the governed
    transfers one run may make. A denial is a denied handoff in the trace; under
    ``FAIL`` it raises :class:`HandoffDeniedInRunError` out of ``Runner.run``, otherwise
    the run stays with ``agent`` and its model gets the denial as the transfer's result.
    """
    if not isinstance(agent, Agent):
        raise GovernanceError(f"governed_handoffs() takes an agents.Agent, got {agent!r}")
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
    gate = _Gate(agent, policy or HandoffPolicy(), max_transfers)
    agent.handoffs = [_governed(gate, entry) for entry in agent.handoffs]
    return agent
