"""``capture()`` for the OpenAI Agents SDK, through the SDK's tracing processors.

While a capture is active the SDK's trace provider is swapped for one whose only
processor is ours (so nothing is exported: no network, no background thread), and
restored when the last capture ends. Span callbacks run synchronously in the task
that runs the SDK code, so a capture can tell which run each span belongs to and
install that run's frame for the code that follows: agent spans become runs,
function spans tool calls (and a run inside one a delegation), handoff spans control
transfers.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, ClassVar

from agents.tracing import (
    AgentSpanData,
    FunctionSpanData,
    GenerationSpanData,
    HandoffSpanData,
    ResponseSpanData,
    Span,
    TracingProcessor,
    get_trace_provider,
    set_trace_provider,
)
from agents.tracing import Trace as SdkTrace
from agents.tracing.provider import DefaultTraceProvider

from handoff_sim._context import current_frame
from handoff_sim._safe import describe_error
from handoff_sim.adapters._capture import (
    Capture,
    FrameScope,
    SpanState,
    ToolInFlight,
    Transfer,
    active_capture,
    current_adoption,
    current_model_mark,
    current_record,
    frame_scope,
    using_tool,
)
from handoff_sim.adapters._recording import Delegation, RunRecord, Slot
from handoff_sim.events import RunStatus
from handoff_sim.messages import ToolCall
from handoff_sim.subagents._input import resolve_input

__all__ = ["DeniedTransfer", "OpenAIAgentsCapture", "current_denial", "set_denial"]

IGNORED_TRANSFER = "not run: only the first handoff of a turn transfers control"
"""The ``tool_end`` output of a second handoff call in one turn (the SDK ignores it)."""


@dataclass(slots=True, eq=False)
class DeniedTransfer:
    """A transfer a governed handoff refused: the model's tool result, and whether it fails."""

    tool: str
    text: str
    fails: bool
    pending: bool = True


_DENIAL: ContextVar[DeniedTransfer | None] = ContextVar("handoff_oai_denial", default=None)


def set_denial(denial: DeniedTransfer | None) -> None:
    """Say (from the governed handoff) how the transfer this task asked for was refused."""
    _DENIAL.set(denial)


def current_denial() -> DeniedTransfer | None:
    """The refusal of the transfer this task just asked for, until the capture recorded it."""
    found = _DENIAL.get()
    return found if found is not None and found.pending else None


def _outcome(span: Span[Any]) -> tuple[RunStatus, str | None]:
    """How the code inside a span ended: completed, failed (with the error) or cancelled."""
    exc = sys.exc_info()[1]
    if isinstance(exc, asyncio.CancelledError):
        return "cancelled", None
    if exc is not None:
        return "failed", describe_error(exc)
    if span.error is not None:
        data = span.error.get("data") or {}
        detail = data.get("error") or data.get("message") or ""
        return "failed", f"{span.error.get('message')}{': ' + str(detail) if detail else ''}"
    return "completed", None


class _Router(TracingProcessor):
    """The one processor of the swapped-in provider: hands each span to its capture."""

    def __init__(self) -> None:
        self.live: list[OpenAIAgentsCapture] = []

    def on_trace_start(self, trace: SdkTrace) -> None:
        return None

    def on_trace_end(self, trace: SdkTrace) -> None:
        return None

    def on_span_start(self, span: Span[Any]) -> None:
        capture = active_capture()
        if isinstance(capture, OpenAIAgentsCapture) and capture in self.live:
            capture.span_started(span)

    def on_span_end(self, span: Span[Any]) -> None:
        for capture in self.live:
            if span.span_id in capture.spans:
                capture.span_ended(span)
                return

    def shutdown(self) -> None:
        return None

    def force_flush(self) -> None:
        return None


_ROUTER = _Router()
_PREVIOUS: list[Any] = []


def _install(capture: OpenAIAgentsCapture) -> None:
    if not _ROUTER.live:
        _PREVIOUS.append(get_trace_provider())
        provider = DefaultTraceProvider()
        provider.set_processors([_ROUTER])
        provider.set_disabled(False)
        set_trace_provider(provider)
    _ROUTER.live.append(capture)


def _uninstall(capture: OpenAIAgentsCapture) -> None:
    if capture in _ROUTER.live:
        _ROUTER.live.remove(capture)
    if not _ROUTER.live and _PREVIOUS:
        set_trace_provider(_PREVIOUS.pop())


class OpenAIAgentsCapture(Capture):
    """Records OpenAI Agents SDK runs as a handoff-sim trace (see :func:`capture`)."""

    framework: ClassVar[str] = "openai-agents"

    def __init__(self, *, seed: int = 0) -> None:
        super().__init__(seed=seed)
        self.parents: dict[str, str | None] = {}
        self.task_runs: dict[str, RunRecord] = {}
        self.run_tasks: dict[str, str | None] = {}
        self.delegations: dict[str, Delegation] = {}
        self.resuming: dict[str, tuple[RunRecord, bool]] = {}

    def install(self) -> None:
        _install(self)

    def uninstall(self) -> None:
        _uninstall(self)

    # -- dispatch -------------------------------------------------------------------------

    def span_started(self, span: Span[Any]) -> None:
        """A span began in the current task."""
        self.parents[span.span_id] = span.parent_id
        data = span.span_data
        if isinstance(data, AgentSpanData):
            self._agent_started(span, data)
        elif isinstance(data, FunctionSpanData):
            self._function_started(span, data)
        elif isinstance(data, HandoffSpanData | GenerationSpanData | ResponseSpanData):
            found = current_record()
            mark = current_model_mark()  # a recording model reports its call as SimModel does
            if mark is not None and mark.reported and not isinstance(data, HandoffSpanData):
                found = None
            self.spans[span.span_id] = SpanState(
                "model" if not isinstance(data, HandoffSpanData) else "handoff",
                record=None if found is None else found[1],
            )
        else:
            self.spans[span.span_id] = SpanState("other")

    def span_ended(self, span: Span[Any]) -> None:
        """A span this capture saw start has ended."""
        state = self.spans.pop(span.span_id)
        self.parents.pop(span.span_id, None)
        data = span.span_data
        if state.kind == "agent":
            self._agent_ended(span, state)
        elif state.kind == "function":
            self._function_ended(span, state)
        elif state.kind == "handoff" and isinstance(data, HandoffSpanData):
            self._handoff_ended(span, state, data)
        elif state.kind == "model" and state.record is not None:
            self._model_ended(state.record, data)
        if state.scope is not None:
            state.scope.close()

    # -- agent spans: runs ------------------------------------------------------------------

    def _agent_started(self, span: Span[Any], data: AgentSpanData) -> None:
        task_id = span.parent_id or ""
        resumed = self.resuming.pop(task_id, None)
        if resumed is not None:  # a denied transfer: the same run goes on
            record, adopted = resumed
            scope = None if adopted else frame_scope(record.frame)
            self.spans[span.span_id] = SpanState(
                "agent", record=record, scope=scope, adopted=adopted
            )
            return
        adoption, frame = current_adoption(), current_frame()
        if adoption is not None and not adoption.claimed and frame is adoption.record.frame:
            adoption.claimed = True
            self.spans[span.span_id] = SpanState("agent", record=adoption.record, adopted=True)
            self.run_tasks[adoption.record.run_id] = task_id
            return
        source = self.task_runs.get(task_id)
        tool = self._enclosing_tool(task_id)
        if source is not None and source.transferred_to is not None:
            record = self._transferred(source, data.name)
        elif tool is not None:
            record = self._delegated(tool, data.name)
        elif frame is not None:
            record = self.recorder.open_run(
                data.name, depth=frame.depth, parent_run_id=frame.run_id
            )
        else:
            record = self.recorder.open_run(data.name, depth=0, parent_run_id=None)
        self.opened.append(record)
        self.task_runs[task_id] = record
        self.run_tasks[record.run_id] = task_id
        self.spans[span.span_id] = SpanState(
            "agent", record=record, scope=frame_scope(record.frame)
        )

    def _enclosing_tool(self, task_id: str) -> ToolInFlight | None:
        state = self.spans.get(self.parents.get(task_id) or "")
        return state.tool if state is not None and state.kind == "function" else None

    def _transferred(self, source: RunRecord, agent: str) -> RunRecord:
        record = self.recorder.open_run(
            agent,
            depth=source.frame.depth,
            parent_run_id=source.run_id,
            handoff_id=source.frame.handoff_id,
            session=source.frame.session,
            input=source.input or "",
        )
        delegation = self.delegations.get(source.run_id)
        if delegation is not None:
            self.delegations[record.run_id] = delegation
        return record

    def _delegated(self, tool: ToolInFlight, agent: str) -> RunRecord:
        recorder = self.recorder
        slot = self.ensure_tool(tool)
        if tool.delegation is None:
            tool.delegation = recorder.begin_delegation(tool.record, slot, agent)
        delegation = tool.delegation
        record = recorder.attempt_run(delegation, agent, resolve_input(slot.call.arguments))
        self.delegations[record.run_id] = delegation
        return record

    def _agent_ended(self, span: Span[Any], state: SpanState) -> None:
        record = state.record
        assert record is not None
        waiting = self.resuming.get(self.run_tasks.get(record.run_id) or "")
        if waiting is not None and waiting[0] is record:
            return  # the run goes on in the SDK's next agent span
        if state.adopted:
            if record.transferred_to is not None:
                self.recorder.close_run(record, "completed")
            return
        status, error = _outcome(span)
        self.recorder.close_run(record, status, error=error)
        delegation = self.delegations.get(record.run_id)
        if delegation is not None:
            delegation.child_status = status
            delegation.child_error = error
            delegation.child_output = record.output if status == "completed" else None

    # -- function spans: tool calls ---------------------------------------------------------

    def _function_started(self, span: Span[Any], data: FunctionSpanData) -> None:
        found = current_record()
        if found is None:
            self.spans[span.span_id] = SpanState("other")
            return
        tool = ToolInFlight(found[1], data.name)
        self.spans[span.span_id] = SpanState(
            "function", record=found[1], tool=tool, scope=FrameScope(using_tool(tool))
        )
        tool_span = span

        def soon() -> None:
            if not tool.record.ended:
                self.ensure_tool(tool, _span_input(tool_span))

        # without a loop the tool starts when anything else needs it
        with contextlib.suppress(RuntimeError):
            asyncio.get_running_loop().call_soon(soon)

    def ensure_tool(self, tool: ToolInFlight, arguments: str | None = None) -> Any:
        """The tool call's slot, its ``tool_start`` emitted (the SDK sets the input early)."""
        if tool.slot is None:
            tool.arguments = arguments if arguments is not None else tool.arguments
            tool.slot = self.recorder.claim_slot(tool.record, tool.name, arguments=tool.arguments)
        self.recorder.start_tool(tool.record, tool.slot)
        return tool.slot

    def _function_ended(self, span: Span[Any], state: SpanState) -> None:
        tool = state.tool
        assert tool is not None
        slot = self.ensure_tool(tool, _span_input(span))
        status, error = _outcome(span)
        if tool.delegation is not None:
            failed = error if status == "failed" else None
            self.recorder.end_delegation(tool.delegation, tool_failed=failed)
        output = span.span_data.output
        text = None if output is None else str(output)
        tool_status: Any = "cancelled" if status == "cancelled" else "ok"
        if status == "failed" or tool.failed is not None:
            tool_status = "error"
        if tool.delegation is not None and tool.delegation.child_status == "failed":
            tool_status = "error"
        self.recorder.end_tool(
            tool.record, slot, tool_status, text if text else tool.failed or error
        )

    # -- handoff spans: control transfers ---------------------------------------------------

    def _free_transfers(self, source: RunRecord) -> list[Slot]:
        names = source.handoff_tools
        return [
            s
            for s in source.slots
            if not s.ended and (s.call.name in names or s.call.name.startswith("transfer_to_"))
        ]

    def _denied_transfer(self, source: RunRecord, denial: DeniedTransfer) -> None:
        """A governed transfer refused: its call ends in error with the denial; no new run."""
        denial.pending = False
        recorder = self.recorder
        free = self._free_transfers(source)
        asked = [s for s in free if s.call.name == denial.tool]
        winner = (asked or free or [recorder.claim_slot(source, denial.tool)])[0]
        recorder.end_tool(source, winner, "error", denial.text)
        for other in free:
            if other is not winner:
                recorder.end_tool(source, other, "error", IGNORED_TRANSFER)
        if not denial.fails:
            task_id = self.run_tasks.get(source.run_id) or ""
            adopted = all(record is not source for record in self.opened)  # a governed attempt's
            self.resuming[task_id] = (source, adopted)

    def _handoff_ended(self, span: Span[Any], state: SpanState, data: HandoffSpanData) -> None:
        source = state.record
        denial = current_denial()
        if source is not None and denial is not None:
            self._denied_transfer(source, denial)
            return
        if source is None or data.to_agent is None:
            return
        recorder = self.recorder
        free = self._free_transfers(source)
        winner = free[0] if free else recorder.claim_slot(source, f"transfer_to_{data.to_agent}")
        recorder.end_tool(source, winner, "ok", json.dumps({"assistant": data.to_agent}))
        for other in free[1:]:
            recorder.end_tool(source, other, "error", IGNORED_TRANSFER)
        source.transferred_to = data.to_agent
        self.transfers.append(
            Transfer(
                from_agent=source.frame.agent,
                to_agent=data.to_agent,
                tool=winner.call.name,
                call_id=winner.call.id,
                from_run_id=source.run_id,
                t=self.env.now_us() / 1_000_000,
            )
        )

    # -- model spans of models other than ours ----------------------------------------------

    def _model_ended(self, record: RunRecord, data: Any) -> None:
        text, calls, count = _model_output(data)
        step = self.recorder.model_request(record, messages=count, tools=(), input=None)
        self.recorder.model_response(record, step, text, calls)


def _span_input(span: Span[Any]) -> str | None:
    value = getattr(span.span_data, "input", None)
    return value if isinstance(value, str) else None


def _model_output(data: Any) -> tuple[str | None, list[ToolCall], int]:
    """Text, calls and input size a foreign model's span carries (when it carries data)."""
    if isinstance(data, ResponseSpanData):
        items = list(getattr(data.response, "output", None) or [])
        count = len(data.input) if isinstance(data.input, list) else 0
    else:
        items = list(getattr(data, "output", None) or [])
        count = len(getattr(data, "input", None) or [])
    texts: list[str] = []
    calls: list[ToolCall] = []
    for raw in items:
        item = raw if isinstance(raw, dict) else getattr(raw, "model_dump", dict)()
        if item.get("type") == "function_call":
            calls.append(
                ToolCall(
                    str(item.get("call_id")), str(item.get("name")), str(item.get("arguments"))
                )
            )
        for call in item.get("tool_calls") or ():
            function = call.get("function") or {}
            calls.append(
                ToolCall(
                    str(call.get("id")), str(function.get("name")), str(function.get("arguments"))
                )
            )
        content = item.get("content")
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            texts.extend(str(p.get("text") or "") for p in content if isinstance(p, dict))
    return ("".join(texts) if texts else None), calls, count
