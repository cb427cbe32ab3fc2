"""``capture()`` for pydantic-ai, through pydantic-ai's OpenTelemetry instrumentation.

While a capture is active every agent is instrumented (``Agent.instrument_all``)
with a tracer of ours built on the OpenTelemetry API alone: no SDK, no exporter, the
spans are read as they open and close and then dropped. pydantic-ai names what each
span is in ``gen_ai.operation.name`` (the GenAI semantic conventions):
``invoke_agent`` becomes a run, ``chat`` a model call, ``execute_tool`` a tool call,
and an ``invoke_agent`` inside an ``execute_tool`` a delegation (a handoff).
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from contextvars import Token
from dataclasses import dataclass
from types import TracebackType
from typing import Any, ClassVar

import msgspec
from opentelemetry import context as otel_context
from opentelemetry import trace as otel
from opentelemetry.trace import SpanContext, SpanKind, Status, StatusCode, TraceFlags
from opentelemetry.util import types as otel_types
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models.instrumented import InstrumentationSettings
from pydantic_ai.tools import ToolDefinition

from handoff_sim._context import current_frame, use_frame
from handoff_sim._safe import describe_error
from handoff_sim.adapters._capture import (
    Adoption,
    Capture,
    FrameScope,
    ModelMark,
    ToolInFlight,
    active_capture,
    clearing_tool,
    current_adoption,
    current_record,
    current_tool,
    frame_scope,
    marking_model_call,
    using_tool,
)
from handoff_sim.adapters._pai_chat_output import chat_output
from handoff_sim.adapters._pai_model import output_tool_names
from handoff_sim.adapters._recording import Recorder, RunRecord
from handoff_sim.events import RunStatus

__all__ = ["NamedByRun", "PydanticAICapture"]

_IDS = itertools.count(1)
_FINAL_RESULT = "final_result"
_SAMPLED = TraceFlags(1)

Found = tuple[Recorder, RunRecord]
"""The recorder and the run a span belongs to."""


class _Span(otel.Span):
    """A span that only remembers its name, attributes and status, for the capture to read.

    It says it is recording only while the capture still reads something from it, so
    pydantic-ai skips the attributes nobody reads (a run's whole message history as JSON
    once its final result is known, a model call's messages once our model recorded the
    call itself, any span outside a capture).
    """

    def __init__(self, name: str, attributes: Mapping[str, Any] | None) -> None:
        self.name = name
        self.attributes: dict[str, Any] = dict(attributes) if attributes else {}
        self.failed = False
        self.exception: BaseException | None = None
        self.recording = True
        self.mark: ModelMark | None = None
        self.offered: Sequence[ToolDefinition] | None = None
        self._context: SpanContext | None = None

    def end(self, end_time: int | None = None) -> None:
        return None

    def get_span_context(self) -> SpanContext:
        context = self._context
        if context is None:  # made when asked for: most spans are never asked
            context = self._context = SpanContext(
                trace_id=1, span_id=next(_IDS), is_remote=False, trace_flags=_SAMPLED
            )
        return context

    def set_attributes(self, attributes: Mapping[str, otel_types.AttributeValue]) -> None:
        self.attributes.update(attributes)

    def set_attribute(self, key: str, value: otel_types.AttributeValue) -> None:
        self.attributes[key] = value
        if key == _FINAL_RESULT:
            self.recording = False  # the run's last attribute the capture reads

    def add_event(
        self,
        name: str,
        attributes: otel_types.Attributes = None,
        timestamp: int | None = None,
    ) -> None:
        return None

    def update_name(self, name: str) -> None:
        self.name = name

    def is_recording(self) -> bool:
        mark = self.mark
        return self.recording and (mark is None or not mark.reported)

    def set_status(self, status: Status | StatusCode, description: str | None = None) -> None:
        code = status.status_code if isinstance(status, Status) else status
        self.failed = code is StatusCode.ERROR

    def record_exception(
        self,
        exception: BaseException,
        attributes: otel_types.Attributes = None,
        timestamp: int | None = None,
        escaped: bool = False,
    ) -> None:
        self.exception = exception


class _Observer:
    """What a capture does while one span is open: ``enter`` as it opens, ``exit`` as it closes."""

    __slots__ = ()

    def enter(self) -> None:
        """The span opened (in the task that runs the framework code inside it)."""

    def exit(self, exc: BaseException | None) -> None:
        """The span closed; ``exc`` is what left it, if anything."""


class _Current(AbstractContextManager[otel.Span]):
    """The span is the current OpenTelemetry span for the block, and its observer sees it open."""

    __slots__ = ("_observer", "_span", "_token")

    def __init__(self, span: _Span) -> None:
        self._span = span
        self._observer: _Observer | None = None
        self._token: Token[Any] | None = None

    def __enter__(self) -> otel.Span:
        span = self._span
        self._token = otel_context.attach(otel.set_span_in_context(span))
        capture = active_capture()
        if isinstance(capture, PydanticAICapture):
            observer = capture.observer(span)
            if observer is not None:
                try:
                    observer.enter()
                except BaseException:
                    otel_context.detach(self._token)
                    raise
                self._observer = observer
        else:
            span.recording = False  # nobody reads it
        return span

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            if self._observer is not None:
                self._observer.exit(exc)
        finally:
            assert self._token is not None
            otel_context.detach(self._token)


class _Tracer(otel.Tracer):
    """Spans opened as the current span are shown to the active capture, if any."""

    def start_span(
        self,
        name: str,
        context: Any = None,
        kind: SpanKind = SpanKind.INTERNAL,
        attributes: otel_types.Attributes = None,
        *args: Any,
        **kwargs: Any,
    ) -> otel.Span:
        return _Span(name, attributes)

    def start_as_current_span(  # type: ignore[override]  # a plain context manager suffices
        self,
        name: str,
        context: Any = None,
        kind: SpanKind = SpanKind.INTERNAL,
        attributes: otel_types.Attributes = None,
        *args: Any,
        **kwargs: Any,
    ) -> AbstractContextManager[otel.Span]:
        return _Current(_Span(name, attributes))


class _Provider(otel.TracerProvider):
    def get_tracer(self, *args: Any, **kwargs: Any) -> otel.Tracer:
        return _TRACER


_TRACER = _Tracer()
_SETTINGS: list[InstrumentationSettings] = []
_LIVE: list[PydanticAICapture] = []
_PREVIOUS: list[Any] = []


class _Settings(InstrumentationSettings):
    """pydantic-ai's instrumentation settings, also showing a model call's span what was offered.

    pydantic-ai hands ``handle_messages`` each model call's request parameters when the
    call's span is read (a model other than ``SimModel``, which sees them itself): the
    span keeps the tools offered, output tools included, for the capture to record.
    """

    def handle_messages(
        self,
        input_messages: list[ModelMessage],
        response: ModelResponse,
        span: otel.Span,
        parameters: ModelRequestParameters | None = None,
        *,
        message_json_cache: Any = None,
    ) -> None:
        super().handle_messages(
            input_messages, response, span, parameters, message_json_cache=message_json_cache
        )
        if parameters is not None and isinstance(span, _Span):
            span.offered = [*parameters.function_tools, *parameters.output_tools]


def _settings() -> InstrumentationSettings:
    if not _SETTINGS:
        _SETTINGS.append(
            _Settings(
                tracer_provider=_Provider(),
                include_content=True,
                include_model_request_parameters=False,
            )
        )
    return _SETTINGS[0]


def _install(capture: PydanticAICapture) -> None:
    if not _LIVE:
        # pydantic-ai has no getter for the default instrumentation; it is restored on exit.
        _PREVIOUS.append(getattr(Agent, "_instrument_default", False))
        Agent.instrument_all(_settings())
    _LIVE.append(capture)


def _uninstall(capture: PydanticAICapture) -> None:
    if capture in _LIVE:
        _LIVE.remove(capture)
    if not _LIVE and _PREVIOUS:
        Agent.instrument_all(_PREVIOUS.pop())


def _outcome(span: _Span, exc: BaseException | None) -> tuple[RunStatus, str | None]:
    if isinstance(exc, asyncio.CancelledError):
        return "cancelled", None
    error = exc or span.exception
    if error is not None:
        return "failed", describe_error(error)
    if span.failed:
        return "failed", "failed"
    return "completed", None


class PydanticAICapture(Capture):
    """Records pydantic-ai runs as a handoff-sim trace (see :func:`capture`)."""

    framework: ClassVar[str] = "pydantic-ai"

    def install(self) -> None:
        _install(self)

    def uninstall(self) -> None:
        _uninstall(self)

    def observer(self, span: _Span) -> _Observer | None:
        """What turns this span's lifetime into events, or None when nothing of it is read."""
        operation = span.attributes.get("gen_ai.operation.name")
        if operation == "invoke_agent":
            return _RunObserver(self, span)
        if operation == "execute_tool" or operation == "chat":
            found = current_record()
            if found is not None:
                if operation == "chat":
                    return _ModelObserver(span, found)
                if span.attributes.get("gen_ai.tool.name") not in found[1].output_tools:
                    return _ToolObserver(span, found)
                # an output function making the run's output: no tool call; an agent it
                # runs (a hand-off) is a run nested in this one, at its depth
        span.recording = False  # nothing of it is read
        return None


# -- invoke_agent: runs -------------------------------------------------------------------


@dataclass(slots=True, eq=False)
class NamedByRun(Adoption):
    """A governed attempt whose run is named after the pydantic-ai agent that carries it out.

    ``governed_tool`` runs the user's own tool function as the attempt: which agent it
    runs is known only when that agent's run starts.
    """


class _RunObserver(_Observer):
    """An agent run: a run of ours, a delegation's attempt when it runs inside a tool call."""

    __slots__ = ("_capture", "_record", "_scope", "_span", "_tool")

    def __init__(self, capture: PydanticAICapture, span: _Span) -> None:
        self._capture = capture
        self._span = span
        self._record: RunRecord | None = None
        self._scope: FrameScope | None = None
        self._tool: ToolInFlight | None = None

    def enter(self) -> None:
        agent = str(self._span.attributes.get("gen_ai.agent.name") or "agent")
        adoption, frame = current_adoption(), current_frame()
        if adoption is not None and not adoption.claimed and frame is adoption.record.frame:
            # a governed attempt's run: recorded by the governor, only claimed here
            adoption.claimed = True
            record = adoption.record
            if isinstance(adoption, NamedByRun) and not record.started:
                record.frame = msgspec.structs.replace(record.frame, agent=agent)
                self._scope = FrameScope(use_frame(record.frame), clearing_tool())
            else:
                self._scope = FrameScope(clearing_tool())
            return
        recorder = self._capture.recorder
        tool = self._tool = current_tool()
        if tool is not None:
            record = _delegated(self._capture, tool, agent)
        elif frame is not None:
            record = recorder.open_run(agent, depth=frame.depth, parent_run_id=frame.run_id)
        else:
            record = recorder.open_run(agent, depth=0, parent_run_id=None)
        self._capture.opened.append(record)
        self._record = record
        self._scope = frame_scope(record.frame)

    def exit(self, exc: BaseException | None) -> None:
        if self._scope is not None:
            self._scope.close()
        record = self._record
        if record is None:
            return
        span, tool = self._span, self._tool
        status, error = _outcome(span, exc)
        final = span.attributes.get(_FINAL_RESULT)
        if status == "completed" and isinstance(final, str):
            record.output = final
        self._capture.recorder.close_run(record, status, error=error)
        delegation = tool.delegation if tool is not None else None
        if delegation is not None:
            delegation.child_status = status
            delegation.child_error = error
            delegation.child_output = record.output if status == "completed" else None


def _delegated(capture: PydanticAICapture, tool: ToolInFlight, agent: str) -> RunRecord:
    """The run of an agent that a tool call runs: a handoff (begun once) and its next attempt."""
    recorder = capture.recorder
    assert tool.slot is not None
    if tool.delegation is None:
        tool.delegation = recorder.begin_delegation(tool.record, tool.slot, agent)
    return recorder.attempt_run(tool.delegation, agent)


# -- execute_tool: tool calls -------------------------------------------------------------


class _ToolObserver(_Observer):
    """A tool call of a recorded run: ``tool_start`` … ``tool_end``, and its delegation if any."""

    __slots__ = ("_found", "_scope", "_span", "_tool")

    def __init__(self, span: _Span, found: Found) -> None:
        self._span = span
        self._found = found
        self._tool: ToolInFlight | None = None
        self._scope: FrameScope | None = None

    def enter(self) -> None:
        recorder, record = self._found
        attributes = self._span.attributes
        name = str(attributes.get("gen_ai.tool.name") or "tool")
        raw_id = attributes.get("gen_ai.tool.call.id")
        arguments = attributes.get("gen_ai.tool.call.arguments")
        slot = recorder.claim_slot(
            record,
            name,
            raw_id=str(raw_id) if raw_id is not None else None,
            arguments=arguments if isinstance(arguments, str) else None,
        )
        recorder.start_tool(record, slot)
        tool = self._tool = ToolInFlight(record, name, slot)
        self._scope = FrameScope(using_tool(tool))

    def exit(self, exc: BaseException | None) -> None:
        tool, span = self._tool, self._span
        if self._scope is not None:
            self._scope.close()
        if tool is None:
            return
        assert tool.slot is not None
        recorder = self._found[0]
        status, error = _outcome(span, exc)
        if tool.delegation is not None:
            failed = error if status == "failed" else None
            recorder.end_delegation(tool.delegation, tool_failed=failed)
        result = span.attributes.get("gen_ai.tool.call.result")
        output = result if isinstance(result, str) else None
        tool_status: Any = "cancelled" if status == "cancelled" else "ok"
        if status == "failed" or tool.failed is not None:
            tool_status = "error"
        recorder.end_tool(tool.record, tool.slot, tool_status, output or tool.failed or error)


# -- chat: model calls --------------------------------------------------------------------


class _ModelObserver(_Observer):
    """A model call: recorded by our model itself, or here from the span for a foreign model."""

    __slots__ = ("_found", "_mark", "_scope", "_span", "_steps")

    def __init__(self, span: _Span, found: Found) -> None:
        self._span = span
        self._found = found
        self._mark = span.mark = ModelMark()  # once our model recorded it, nothing else is read
        self._scope: FrameScope | None = None
        self._steps = found[1].steps  # a streamed call runs in a task of its own, unmarked

    def enter(self) -> None:
        self._scope = FrameScope(marking_model_call(self._mark))

    def exit(self, exc: BaseException | None) -> None:
        if self._scope is not None:
            self._scope.close()
        recorder, record = self._found
        if exc is not None or self._mark.reported or record.steps != self._steps:
            return  # our model reported this call itself
        text, calls, count = chat_output(self._span.attributes)
        offered = self._span.offered
        if offered is not None:
            # structured output comes back through these: the run's output, not tool calls
            record.output_tools = output_tool_names(offered)
        tools = [t.name for t in offered] if offered is not None else ()
        step = recorder.model_request(record, messages=count, tools=tools, input=None)
        recorder.model_response(record, step, text, calls)
