"""What a LangGraph capture records for each callback: runs, model calls, tools, transfers.

- A graph run is a run of ours once something happens directly in it (a model call or
  a tool call): a graph that only runs other graphs (a supervisor's or a swarm's
  workflow) is a container and no run. A graph run inside a tool call is a delegation:
  a handoff, and the run as its attempt.
- A ``Command(goto=...)`` a tool returns (supervisor and swarm handoff tools) is a
  control transfer: the tool call ends, and the next run of the target agent is a run
  in the same session, its parent the run that transferred.
- A supervisor worker's automatic ``transfer_back_to_<supervisor>`` (messages the
  supervisor adds after the worker's graph ended) is recorded as a tool call of the
  worker's run made by the framework, and a transfer; so a worker's run ends when its
  node task ends, not when its graph does.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, LLMResult
from langgraph.constants import END
from langgraph.errors import GraphInterrupt, ParentCommand
from langgraph.types import Command, Send

from handoff_sim._context import current_frame, use_frame
from handoff_sim._safe import describe_error, text_of
from handoff_sim.adapters._capture import (
    FrameScope,
    ModelMark,
    ToolInFlight,
    Transfer,
    clearing_tool,
    current_adoption,
    frame_scope,
    marking_model_call,
    using_tool,
)
from handoff_sim.adapters._lg_messages import to_messages, tool_specs
from handoff_sim.adapters._lg_tree import Node
from handoff_sim.adapters._models import last_user_text
from handoff_sim.adapters._recording import RunRecord
from handoff_sim.events import RunStatus
from handoff_sim.messages import ToolCall

if TYPE_CHECKING:
    from handoff_sim.adapters._lg_capture import LangGraphCapture

__all__ = ["HANDOFF_BACK", "Events"]

HANDOFF_BACK = "__is_handoff_back"
"""langgraph-supervisor's mark on the messages of its automatic transfer back."""


def _outcome(error: BaseException | None) -> tuple[RunStatus, str | None]:
    """How a graph or tool ended. A ``ParentCommand`` is a transfer leaving it: completed."""
    if error is None or isinstance(error, ParentCommand):
        return "completed", None
    if isinstance(error, asyncio.CancelledError):
        return "cancelled", None
    if isinstance(error, GraphInterrupt):
        return "cancelled", "interrupted (langgraph interrupt)"
    return "failed", describe_error(error)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        return "".join(
            c if isinstance(c, str) else str(c.get("text") or "") if isinstance(c, Mapping) else ""
            for c in content
        )
    return text_of(content)


def _targets(command: Command[Any]) -> list[str]:
    """The nodes a ``Command`` sends control to, in its order."""
    goto = command.goto
    items: Iterable[Any] = goto if isinstance(goto, list | tuple) else (goto,)
    names: list[str] = []
    for item in items:
        if isinstance(item, Send):
            names.append(item.node)
        elif isinstance(item, str) and item:
            names.append(item)
    return names


def _messages(value: Any) -> list[BaseMessage]:
    """The messages a node or a ``Command`` update carries, if any."""
    if isinstance(value, Command):
        value = value.update
    if isinstance(value, Mapping):
        value = value.get("messages")
    if isinstance(value, Sequence) and not isinstance(value, str):
        return [m for m in value if isinstance(m, BaseMessage)]
    return []


def _tool_output(output: Any) -> tuple[str, bool]:
    """A tool result's text and whether it is an error (``ToolMessage.status``)."""
    if isinstance(output, ToolMessage):
        return _text(output.content), output.status == "error"
    if isinstance(output, Command):
        goto = output.goto if isinstance(output.goto, list | tuple) else (output.goto,)
        sent = [m for g in goto if isinstance(g, Send) for m in _messages(g.arg)]
        for message in reversed([*_messages(output), *sent]):
            if isinstance(message, ToolMessage):  # the handoff tool's own words
                return _text(message.content), False
        return f"Command(goto={_targets(output)})", False
    return text_of(output), False


def _answer(response: LLMResult | None) -> tuple[str | None, list[ToolCall]]:
    """A foreign model's text and tool calls, as its answer message carries them."""
    generations = response.generations[0] if response is not None and response.generations else []
    message = (
        generations[0].message
        if generations and isinstance(generations[0], ChatGeneration)
        else None
    )
    if not isinstance(message, AIMessage):
        return None, []
    converted = to_messages([message])[0]
    return converted.content, list(converted.tool_calls)


class Events:
    """Turns the run tree's callbacks into recorder calls for one capture."""

    def __init__(self, capture: LangGraphCapture) -> None:
        self.capture = capture
        self.waiting: dict[str, list[RunRecord]] = {}
        """Runs that transferred control to an agent whose next run has not started yet."""

    # -- graphs -----------------------------------------------------------------------------

    def graph_started(self, node: Node) -> None:
        tool = node.enclosing_tool()
        if tool is not None and tool.tool is not None:
            self._delegated(node, tool.tool)
            return
        closer = node.task_closer()
        if closer is not None:
            node.closer = closer
            closer.closing.append(node)

    def _delegated(self, node: Node, tool: ToolInFlight) -> None:
        """A graph run inside a tool call: a governed attempt's run, or a handoff of ours."""
        adoption, frame = current_adoption(), current_frame()
        if adoption is not None and not adoption.claimed and frame is adoption.record.frame:
            adoption.claimed = True  # recorded by the governor, only claimed here
            node.record = adoption.record
            node.scope = FrameScope(clearing_tool())
            node.adopted = True  # its end is the governor's to record
            return
        recorder = self.capture.recorder
        assert tool.slot is not None
        if tool.delegation is None:
            tool.delegation = recorder.begin_delegation(tool.record, tool.slot, node.name)
        record = recorder.attempt_run(tool.delegation, node.name)
        self.capture.opened.append(record)
        node.record = record
        node.scope = frame_scope(record.frame)

    def ensure_open(self, node: Node) -> RunRecord:
        """The graph's run, opened now if this is the first thing that happens in it."""
        if node.record is not None:
            return node.record
        recorder = self.capture.recorder
        sources = self.waiting.get(node.name)
        if sources:
            source = sources.pop(0)
            record = recorder.open_run(
                node.name,
                depth=source.frame.depth,
                parent_run_id=source.run_id,
                handoff_id=source.frame.handoff_id,
                session=source.frame.session,
            )
        else:
            parent = node.opened_run()
            frame = parent.frame if parent is not None else current_frame()
            record = recorder.open_run(
                node.name,
                depth=frame.depth if frame is not None else 0,
                parent_run_id=frame.run_id if frame is not None else None,
            )
        self.capture.opened.append(record)
        node.record = record
        return record

    def graph_ended(self, node: Node, error: BaseException | None) -> None:
        if node.scope is not None:
            node.scope.close()
        record = node.record
        if record is None or record.ended:
            return
        if node.adopted:
            return  # a governed attempt's run: the governor ends it
        node.outcome = _outcome(error)
        if node.closer is not None and not node.closer.closing_done:
            return  # ended with its node task (see task_ended)
        self._close(node)

    def _close(self, node: Node) -> None:
        record = node.record
        assert record is not None
        assert node.outcome is not None
        status, error = node.outcome
        self.capture.recorder.close_run(record, status, error=error)
        tool = node.enclosing_tool()
        delegation = tool.tool.delegation if tool is not None and tool.tool is not None else None
        if delegation is not None:
            delegation.child_status = status
            delegation.child_error = error
            delegation.child_output = record.output if status == "completed" else None

    def task_ended(self, task: Node, outputs: Any) -> None:
        """A node task ended: its graphs' runs end, after the transfer back it added, if any."""
        task.closing_done = True
        for node in task.closing:
            record = node.record
            if record is None or record.ended:
                continue
            self._handoffs_back(record, _messages(outputs))
            if node.outcome is None:
                node.outcome = ("completed", None)
            self._close(node)

    def _handoffs_back(self, record: RunRecord, messages: list[BaseMessage]) -> None:
        """The supervisor's transfer back after a worker: no model call asked for it, so it is
        a transfer only (no tool call of the worker's), its id made from the worker's run."""
        for message in messages:
            if not isinstance(message, AIMessage) or message.name != record.frame.agent:
                continue
            if not message.response_metadata.get(HANDOFF_BACK):
                continue
            for call in message.tool_calls:
                name = call["name"]
                target = name.removeprefix("transfer_back_to_")
                self._transfer(record, name, f"{name}:{record.run_id}", target, mark=False)

    # -- transfers --------------------------------------------------------------------------

    def node_command(self, task: Node, command: Command[Any]) -> None:
        """A node (not a tool) returned ``Command(goto=...)``: a transfer from its graph's run.

        No model call asked for it, so it is no tool call; its id is made from the node and
        the run. A node of a container graph (a router with no run of its own) is no agent
        and transfers nothing.
        """
        graph = task.graph()
        record = graph.record if graph is not None else None
        if record is None or record.ended:
            return
        for target in _targets(command):
            if target != END:
                call_id = f"{task.name}:{record.run_id}:{len(self.capture.transfers) + 1}"
                self._transfer(record, task.name, call_id, target, mark=False)

    def _transfer(
        self, record: RunRecord, tool: str, call_id: str, target: str, *, mark: bool = True
    ) -> None:
        self.capture.transfers.append(
            Transfer(
                from_agent=record.frame.agent,
                to_agent=target,
                tool=tool,
                call_id=call_id,
                from_run_id=record.run_id,
                t=self.capture.env.now_us() / 1_000_000,
            )
        )
        self.waiting.setdefault(target, []).append(record)
        if mark:
            record.transferred_to = target

    # -- model calls ------------------------------------------------------------------------

    def model_started(self, node: Node, messages: Any, params: Mapping[str, Any]) -> None:
        graph = node.graph()
        if graph is None:
            return  # a chat model called outside any graph: no run to record it in
        record = node.record = self.ensure_open(graph)
        node.mark = ModelMark()
        node.scope = FrameScope(
            use_frame(record.frame), clearing_tool(), marking_model_call(node.mark)
        )
        # read only if the call is a foreign model's (ours records its own): see model_ended
        node.asked = (list(messages[0]) if messages else [], params.get("tools"))

    def model_ended(
        self, node: Node, response: LLMResult | None, error: BaseException | None
    ) -> None:
        if node.scope is not None:
            node.scope.close()
        record, mark = node.record, node.mark
        if record is None or mark is None or mark.reported or error is not None:
            return  # our model recorded the call itself; a failed call fails its run
        conversation, bound = node.asked or ([], None)
        messages = to_messages(conversation)
        tools = tuple(spec.name for spec in tool_specs(bound))
        recorder = self.capture.recorder
        step = recorder.model_request(
            record, messages=len(messages), tools=tools, input=last_user_text(messages)
        )
        text, calls = _answer(response)
        recorder.model_response(record, step, text, calls)

    # -- tool calls -------------------------------------------------------------------------

    def tool_started(self, node: Node, call_id: str | None, arguments: str) -> None:
        graph = node.graph()
        if graph is None:
            return  # a tool called outside any graph
        record = node.record = self.ensure_open(graph)
        recorder = self.capture.recorder
        slot = recorder.claim_slot(record, node.name, raw_id=call_id, arguments=arguments)
        recorder.start_tool(record, slot)
        tool = node.tool = ToolInFlight(record, node.name, slot)
        node.scope = FrameScope(use_frame(record.frame), using_tool(tool))

    def tool_ended(self, node: Node, output: Any, error: BaseException | None) -> None:
        if node.scope is not None:
            node.scope.close()
        tool = node.tool
        if tool is None or tool.slot is None:
            return
        recorder = self.capture.recorder
        status, problem = _outcome(error)
        if tool.delegation is not None:
            recorder.end_delegation(
                tool.delegation, tool_failed=problem if status == "failed" else None
            )
        text, failed = _tool_output(output) if error is None else (problem or "", False)
        tool_status: Any = "cancelled" if status == "cancelled" else "ok"
        if status == "failed" or failed or tool.failed is not None:
            tool_status = "error"
        recorder.end_tool(tool.record, tool.slot, tool_status, text or tool.failed or problem)
        if isinstance(output, Command):
            for target in _targets(output):
                self._transfer(tool.record, tool.slot.call.name, tool.slot.call.id, target)
