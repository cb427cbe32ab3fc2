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
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from typing import Any, ClassVar

from opentelemetry import trace as otel
from opentelemetry.trace import SpanContext, SpanKind, Status, StatusCode, TraceFlags
from opentelemetry.util import types as otel_types
from pydantic_ai import Agent
from pydantic_ai.models.instrumented import InstrumentationSettings

from handoff_sim._context import current_frame
from handoff_sim._safe import JsonProblem, describe_error, dump_json, parse_json, text_of
from handoff_sim.adapters._capture import (
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
from handoff_sim.adapters._recording import RunRecord
from handoff_sim.events import RunStatus
from handoff_sim.messages import ToolCall
from handoff_sim.sessions import Session

__all__ = ["PydanticAICapture"]

_IDS = itertools.count(1)


class _Span(otel.Span):
    """A span that only remembers its name, attributes and status, for the capture to read."""

    def __init__(self, name: str, attributes: Mapping[str, Any] | None) -> None:
        self.name = name
        self.attributes: dict[str, Any] = dict(attributes or {})
        self.failed = False
        self.exception: BaseException | None = None
        self._context = SpanContext(
            trace_id=1, span_id=next(_IDS), is_remote=False, trace_flags=TraceFlags(1)
        )

    def end(self, end_time: int | None = None) -> None:
        return None

    def get_span_context(self) -> SpanContext:
        return self._context

    def set_attributes(self, attributes: Mapping[str, otel_types.AttributeValue]) -> None:
        self.attributes.update(attributes)

    def set_attribute(self, key: str, value: otel_types.AttributeValue) -> None:
        self.attributes[key] = value

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
        return True

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

    @contextmanager
    def start_as_current_span(  # type: ignore[override]  # a plain context manager suffices
        self,
        name: str,
        context: Any = None,
        kind: SpanKind = SpanKind.INTERNAL,
        attributes: otel_types.Attributes = None,
        *args: Any,
        end_on_exit: bool = True,
        **kwargs: Any,
    ) -> Iterator[otel.Span]:
        span = _Span(name, attributes)
        capture = active_capture()
        observed = (
            capture.observe(span) if isinstance(capture, PydanticAICapture) else nullcontext()
        )
        with (
            otel.use_span(
                span, end_on_exit=end_on_exit, record_exception=False, set_status_on_exception=False
            ),
            observed,
        ):
            yield span


class _Provider(otel.TracerProvider):
    def get_tracer(self, *args: Any, **kwargs: Any) -> otel.Tracer:
        return _TRACER


_TRACER = _Tracer()
_SETTINGS: list[InstrumentationSettings] = []
_LIVE: list[PydanticAICapture] = []
_PREVIOUS: list[Any] = []


def _settings() -> InstrumentationSettings:
    if not _SETTINGS:
        _SETTINGS.append(InstrumentationSettings(tracer_provider=_Provider(), include_content=True))
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

    @contextmanager
    def observe(self, span: _Span) -> Iterator[None]:
        """Turn one span's lifetime into events, with the run context set for the code inside."""
        operation = span.attributes.get("gen_ai.operation.name")
        if operation == "invoke_agent":
            with self._run(span):
                yield
        elif operation == "execute_tool" and current_record() is not None:
            with self._tool(span):
                yield
        elif operation == "chat" and current_record() is not None:
            with self._model(span):
                yield
        else:
            yield

    # -- invoke_agent: runs -----------------------------------------------------------------

    @contextmanager
    def _run(self, span: _Span) -> Iterator[None]:
        agent = str(span.attributes.get("gen_ai.agent.name") or "agent")
        adoption, frame = current_adoption(), current_frame()
        if adoption is not None and not adoption.claimed and frame is adoption.record.frame:
            adoption.claimed = True
            scope = FrameScope(clearing_tool())
            try:
                yield
            finally:
                scope.close()
            return
        tool = current_tool()
        if tool is not None:
            record = self._delegated(tool, agent)
        elif frame is not None:
            record = self.recorder.open_run(agent, depth=frame.depth, parent_run_id=frame.run_id)
        else:
            record = self.recorder.open_run(agent, depth=0, parent_run_id=None)
        self.opened.append(record)
        scope = frame_scope(record.frame)
        exc: BaseException | None = None
        try:
            yield
        except BaseException as error:
            exc = error
            raise
        finally:
            scope.close()
            self._run_ended(record, span, exc, tool)

    def _delegated(self, tool: ToolInFlight, agent: str) -> RunRecord:
        recorder = self.recorder
        assert tool.slot is not None
        if tool.delegation is None:
            tool.delegation = recorder.begin_delegation(tool.record, tool.slot, agent)
        delegation = tool.delegation
        recorder.begin_attempt(delegation)
        caller = tool.record.frame.session
        session = Session(
            id=delegation.session_id,
            parent_session_id=caller.id,
            root_session_id=caller.root_session_id or caller.id,
            agent=agent,
        )
        return recorder.open_run(
            agent,
            depth=delegation.depth,
            parent_run_id=tool.record.run_id,
            handoff_id=delegation.handoff_id,
            session=session,
        )

    def _run_ended(
        self, record: RunRecord, span: _Span, exc: BaseException | None, tool: ToolInFlight | None
    ) -> None:
        status, error = _outcome(span, exc)
        final = span.attributes.get("final_result")
        if status == "completed" and isinstance(final, str):
            record.output = final
        self.recorder.close_run(record, status, error=error)
        delegation = tool.delegation if tool is not None else None
        if delegation is not None:
            delegation.child_status = status
            delegation.child_error = error
            delegation.child_output = record.output if status == "completed" else None

    # -- execute_tool: tool calls -----------------------------------------------------------

    @contextmanager
    def _tool(self, span: _Span) -> Iterator[None]:
        found = current_record()
        assert found is not None
        recorder, record = found
        attributes = span.attributes
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
        tool = ToolInFlight(record, name, slot)
        scope = FrameScope(using_tool(tool))
        exc: BaseException | None = None
        try:
            yield
        except BaseException as error:
            exc = error
            raise
        finally:
            scope.close()
            self._tool_ended(tool, span, exc)

    def _tool_ended(self, tool: ToolInFlight, span: _Span, exc: BaseException | None) -> None:
        assert tool.slot is not None
        status, error = _outcome(span, exc)
        if tool.delegation is not None:
            failed = error if status == "failed" else None
            self.recorder.end_delegation(tool.delegation, tool_failed=failed)
        result = span.attributes.get("gen_ai.tool.call.result")
        output = result if isinstance(result, str) else None
        tool_status: Any = "cancelled" if status == "cancelled" else "ok"
        if status == "failed" or tool.failed is not None:
            tool_status = "error"
        self.recorder.end_tool(tool.record, tool.slot, tool_status, output or tool.failed or error)

    # -- chat: model calls ------------------------------------------------------------------

    @contextmanager
    def _model(self, span: _Span) -> Iterator[None]:
        found = current_record()
        assert found is not None
        mark = ModelMark()
        with marking_model_call(mark):
            yield
        if not mark.reported:
            recorder, record = found
            text, calls, count = _chat_output(span.attributes)
            step = recorder.model_request(record, messages=count, tools=(), input=None)
            recorder.model_response(record, step, text, calls)


def _json_list(value: object) -> Sequence[Any]:
    if not isinstance(value, str):
        return ()
    try:
        data = parse_json(value)
    except JsonProblem:
        return ()
    return data if isinstance(data, list) else ()


def _json_text(value: object) -> str:
    """``value`` as JSON text; what JSON cannot write is kept as plain text."""
    try:
        return dump_json(value)
    except JsonProblem:
        return text_of(value)


def _chat_output(attributes: Mapping[str, Any]) -> tuple[str | None, list[ToolCall], int]:
    """Text, calls and input size of a model call that a foreign model answered."""
    texts: list[str] = []
    calls: list[ToolCall] = []
    for message in _json_list(attributes.get("gen_ai.output.messages")):
        for part in message.get("parts") or () if isinstance(message, dict) else ():
            kind = part.get("type")
            if kind == "text":
                texts.append(str(part.get("content") or ""))
            elif kind == "tool_call":
                arguments = part.get("arguments")
                raw = arguments if isinstance(arguments, str) else _json_text(arguments)
                calls.append(ToolCall(str(part.get("id")), str(part.get("name")), raw))
    count = len(_json_list(attributes.get("gen_ai.input.messages")))
    return ("".join(texts) if texts else None), calls, count
