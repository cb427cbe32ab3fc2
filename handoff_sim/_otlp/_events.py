"""Turn the span tree of one trace into our events.

Spans we exported carry every field as a ``handoff_sim.*`` attribute and the event
sequence numbers, and read back into the same events. Spans of other frameworks are
read through the GenAI conventions: a run span gives ``run_start``/``run_end``, a
model call ``model_request``/``model_response``, a tool call ``tool_start``/
``tool_end``, and a tool call with agent runs inside it a handoff with one attempt
per run. Their events are ordered by time, then by position in the tree.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from handoff_sim._limits import MAX_NESTING
from handoff_sim._otlp import _genai as genai
from handoff_sim._otlp import _openinference as openinference
from handoff_sim._otlp._names import (
    ATTEMPT,
    EVENT_HANDOFF_END,
    EVENT_HANDOFF_START,
    GEN_AI_CONVERSATION_ID,
    GEN_AI_OPERATION,
    GEN_AI_TOOL_CALL_ID,
    OUR,
    SEQ,
    SEQ_END,
    SEQ_START,
)
from handoff_sim._otlp._ours import OurFields
from handoff_sim._otlp._parse import (
    OtlpFormatError,
    RawEvent,
    RawSpan,
    lone_surrogate,
    surrogate_problem,
)
from handoff_sim._otlp._tree import Role, SpanTree, role_of
from handoff_sim.events import EVENT_TYPES, Event

__all__ = ["Mapped", "map_tree"]

_FOREVER = 2**64


@dataclass(slots=True)
class _Point:
    type: str
    raw_ns: int
    ns: int
    order: int
    seq: int | None
    fields: dict[str, Any]


@dataclass(slots=True)
class _Run:
    run_id: str
    agent: str
    depth: int
    session: str
    handoff_id: str | None
    call_ids: dict[str, str] = field(default_factory=dict)
    members: list[tuple[Role, RawSpan]] = field(default_factory=list)
    places: dict[str, int] = field(default_factory=dict)  # span id -> index in members
    chats: int = 0
    last_text: str | None = None


@dataclass(slots=True)
class _Handoff:
    run: _Run
    handoff_id: str
    call_id: str
    tool: str
    depth: int
    subagent: str
    session_id: str | None
    outcomes: list[tuple[str, str | None, str | None]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _Ctx:
    run: _Run | None = None
    handoff: _Handoff | None = None
    lo: int = 0
    hi: int = _FOREVER


@dataclass(slots=True)
class Mapped:
    """The events of one trace, plus its unmapped spans (with why) and notes."""

    events: list[Event]
    unmapped: list[tuple[RawSpan, str]]


def map_tree(label: str, tree: SpanTree) -> Mapped:
    """Every span of ``tree`` as events, or as an unmapped span with the reason."""
    return _Mapper(label, tree).run()


class _Mapper:
    def __init__(self, label: str, tree: SpanTree) -> None:
        self.label = label
        self.tree = tree
        self.points: list[_Point] = []
        self.unmapped: list[tuple[RawSpan, str]] = []
        self.runs = 0
        self.calls = 0

    # -- the walk ---------------------------------------------------------------------------

    def run(self) -> Mapped:
        stack: list[tuple[RawSpan, _Ctx] | Callable[[], None]] = [
            (root, _Ctx()) for root in reversed(self.tree.roots)
        ]
        while stack:
            item = stack.pop()
            if callable(item):
                item()
                continue
            span, ctx = item
            lo = min(max(span.start_ns, ctx.lo), ctx.hi)
            window = _Ctx(ctx.run, ctx.handoff, lo, min(max(span.end_ns, lo), ctx.hi))
            child_ctx, on_exit = self.enter(span, window)
            if on_exit is not None:
                stack.append(on_exit)
            stack.extend((child, child_ctx) for child in reversed(self.tree.kids(span)))
        return Mapped(self.events(), self.unmapped)

    def enter(self, span: RawSpan, ctx: _Ctx) -> tuple[_Ctx, Callable[[], None] | None]:
        role = role_of(span)
        if "handoff_sim.run_id" in span.attributes and role is not None:
            return ctx, self.ours(span, role, ctx)  # its fields bound depths (OurFields)
        if role == "run":
            return self.foreign_run(span, ctx)
        if role in ("chat", "tool") and ctx.run is None:
            what = "model call" if role == "chat" else "tool call"
            self.unmapped.append((span, f"a {what} outside any agent run"))
        elif role == "chat":
            assert ctx.run is not None
            return ctx, self.foreign_chat(span, ctx, ctx.run)
        elif role == "tool":
            assert ctx.run is not None
            return self.foreign_tool(span, ctx, ctx.run)
        else:
            self.unmapped.append((span, _why_unmapped(span)))
        return ctx, None

    def bound(self, depth: int, span: RawSpan) -> None:
        """Refuse agent runs nested deeper than the runtime itself ever nests them."""
        if depth > MAX_NESTING:
            raise OtlpFormatError(
                self.label,
                span.where,
                f"agent runs nested deeper than {MAX_NESTING} levels (the runtime's bound)",
            )

    def point(
        self, kind: str, raw_ns: int, ctx_ns: int, seq: object, fields: dict[str, Any]
    ) -> None:
        number = seq if isinstance(seq, int) and not isinstance(seq, bool) else None
        self.points.append(_Point(kind, raw_ns, ctx_ns, len(self.points), number, fields))

    def events(self) -> list[Event]:
        exact = bool(self.points) and all(p.seq is not None for p in self.points)
        ordered = sorted(
            self.points, key=(lambda p: (p.seq, p.order)) if exact else (lambda p: (p.ns, p.order))
        )
        epoch = self.tree.epoch_ns
        events = []
        for seq, point in enumerate(ordered, 1):
            micros = ((point.raw_ns if exact else point.ns) - epoch + 500) // 1000
            cls = EVENT_TYPES[point.type]
            events.append(cls(seq=seq, t=micros / 1_000_000, **point.fields))
        return events

    # -- our own spans ----------------------------------------------------------------------

    def ours(self, span: RawSpan, role: Role, ctx: _Ctx) -> Callable[[], None]:
        """Our exported span: every field is an attribute; the event exists if its seq does."""
        fields = OurFields(self.label, span)
        starts, ends = fields.starts(role), fields.ends(role)
        handoff = fields.handoff_start() if role == "tool" else None
        start_at, end_at = span.start_ns, span.end_ns
        attrs = span.attributes
        if starts is not None:
            self.point(starts[0], start_at, ctx.lo, attrs.get(SEQ_START), starts[1])
        if role == "run":
            for kind, marked, asked in fields.confirmations():
                self.point(kind, *_at(marked, start_at, ctx), _seq(marked), asked)
        if handoff is not None:
            event = _event(span, EVENT_HANDOFF_START)
            self.point("handoff_start", *_at(event, start_at, ctx), _seq(event), handoff)

        def exit_() -> None:
            if role == "tool":
                ended = fields.handoff_end()
                if ended is not None:
                    event = _event(span, EVENT_HANDOFF_END)
                    self.point("handoff_end", *_at(event, end_at, ctx), _seq(event), ended)
            if ends is not None:
                self.point(ends[0], end_at, ctx.hi, attrs.get(SEQ_END), ends[1])

        return exit_

    # -- other frameworks' spans ------------------------------------------------------------

    def foreign_run(self, span: RawSpan, ctx: _Ctx) -> tuple[_Ctx, Callable[[], None]]:
        self.runs += 1
        handoff = ctx.handoff
        parent = ctx.run
        depth = handoff.depth if handoff else (parent.depth + 1 if parent else 0)
        self.bound(depth, span)
        session = genai.text(span.attributes.get(GEN_AI_CONVERSATION_ID)) or ""
        run = _Run(
            f"run-{self.runs}",
            genai.agent_name(span),
            depth,
            session,
            handoff.handoff_id if handoff else None,
        )
        run.members = self.members(span)
        run.places = {member.span_id: index for index, (_, member) in enumerate(run.members)}
        self.number_calls(run)
        if handoff is not None:
            attempt = len(handoff.outcomes) + 1
            self.point(
                "handoff_attempt_start",
                span.start_ns,
                ctx.lo,
                None,
                _on(handoff.run, handoff.depth) | _ids(handoff) | {"attempt": attempt},
            )
        first_chat = next((s for role, s in run.members if role == "chat"), None)
        start = {
            "input": genai.run_input(span, first_chat),
            "session_id": session,
            "parent_run_id": parent.run_id if parent else None,
        }
        self.point("run_start", span.start_ns, ctx.lo, None, _on(run, depth) | start)

        def exit_() -> None:
            status, error = _status(span)
            output = genai.run_output(span, run.last_text) if status == "completed" else None
            end = {"status": status, "output": output, "steps": run.chats, "error": error}
            self.point("run_end", span.end_ns, ctx.hi, None, _on(run, depth) | end)
            if handoff is not None:
                self.attempt_ended(handoff, span, ctx, status, error, output)

        return _Ctx(run, None, ctx.lo, ctx.hi), exit_

    def attempt_ended(
        self,
        handoff: _Handoff,
        span: RawSpan,
        ctx: _Ctx,
        status: str,
        error: str | None,
        output: str | None,
    ) -> None:
        outcome = {"completed": "ok", "cancelled": "cancelled"}.get(status)
        if outcome is None:
            outcome = "timeout" if genai.is_timeout(span) else "error"
        handoff.outcomes.append((outcome, error, output))
        fields = _ids(handoff) | {
            "attempt": len(handoff.outcomes),
            "outcome": outcome,
            "duration_ms": _ms(ctx.hi - ctx.lo),
            "error": error,
        }
        self.point(
            "handoff_attempt_end",
            span.end_ns,
            ctx.hi,
            None,
            _on(handoff.run, handoff.depth) | fields,
        )

    def foreign_chat(self, span: RawSpan, ctx: _Ctx, run: _Run) -> Callable[[], None]:
        run.chats += 1
        step = run.chats
        tools = self.names_in(span, "gen_ai.tool.definitions", genai.tool_definitions(span))
        request = {"step": step, "messages": genai.message_count(span), "tools": tools}
        self.point("model_request", span.start_ns, ctx.lo, None, _on(run, run.depth) | request)

        def exit_() -> None:
            if span.status_code == 2:
                return  # the model call raised: no response, as in our runtime
            answer = genai.output_text(span)
            labels = genai.call_labels(span)
            if labels is None or (not labels and answer is None):
                labels = self.calls_after(span, run)
            else:
                self.names_in(span, "gen_ai.output.messages", labels)
            run.last_text = answer if answer is not None else run.last_text
            response = {"step": step, "text": answer, "tool_calls": tuple(labels)}
            self.point("model_response", span.end_ns, ctx.hi, None, _on(run, run.depth) | response)

        return exit_

    def foreign_tool(self, span: RawSpan, ctx: _Ctx, run: _Run) -> tuple[_Ctx, Callable[[], None]]:
        call_id = run.call_ids.get(span.span_id) or self.fresh_call_id()
        tool = genai.tool_name(span)
        on_run = _on(run, run.depth)
        start = {"call_id": call_id, "tool": tool, "arguments": genai.tool_arguments(span)}
        self.point("tool_start", span.start_ns, ctx.lo, None, on_run | start)
        handoff = None
        delegate = self.delegate(span)
        if delegate is not None:
            session = genai.text(delegate.attributes.get(GEN_AI_CONVERSATION_ID)) or None
            handoff = _Handoff(
                run,
                f"handoff:{call_id}",
                call_id,
                tool,
                run.depth + 1,
                genai.agent_name(delegate),
                session,
            )
            self.point(
                "handoff_start",
                span.start_ns,
                ctx.lo,
                None,
                _on(run, handoff.depth) | _handoff_fields(handoff),
            )

        def exit_() -> None:
            status = "cancelled" if genai.is_cancelled(span) else "ok"
            status = "error" if span.status_code == 2 and status == "ok" else status
            if handoff is not None:
                self.handoff_ended(handoff, span, ctx, status)
            output = genai.tool_result(span)
            if output is None and status == "error":
                output = genai.error_text(span)
            end = {"call_id": call_id, "tool": tool, "status": status, "output": output}
            self.point("tool_end", span.end_ns, ctx.hi, None, on_run | end)

        return _Ctx(run, handoff, ctx.lo, ctx.hi), exit_

    def handoff_ended(self, handoff: _Handoff, span: RawSpan, ctx: _Ctx, tool: str) -> None:
        outcome, error, output = handoff.outcomes[-1] if handoff.outcomes else ("error", None, None)
        status, reason = "completed", None
        if tool == "cancelled" and outcome != "ok":
            status = "cancelled"
        elif outcome != "ok":
            status, reason = "failed", ("timeout" if outcome == "timeout" else "error")
        end = _handoff_fields(handoff) | {
            "status": status,
            "reason": reason,
            "attempts": len(handoff.outcomes),
            "duration_ms": _ms(ctx.hi - ctx.lo),
            "output": output if status == "completed" else None,
            "error": None if status == "completed" else error,
        }
        self.point("handoff_end", span.end_ns, ctx.hi, None, _on(handoff.run, handoff.depth) | end)

    def names_in(self, span: RawSpan, key: str, names: Sequence[str]) -> tuple[str, ...]:
        """``names`` (of tools, or tool calls) read from the JSON in attribute ``key``,
        refused when one holds a lone surrogate, as names in attributes are."""
        code = lone_surrogate(names)
        if code is not None:
            where = f"{span.where}.attributes[{key}]"
            raise OtlpFormatError(
                self.label, where, f"a tool name or call id {surrogate_problem(code)}"
            )
        return tuple(names)

    # -- lookups ----------------------------------------------------------------------------

    def members(self, span: RawSpan) -> list[tuple[Role, RawSpan]]:
        """The chats and tool calls of a run, through spans we do not map, in start order."""
        found: list[tuple[Role, RawSpan]] = []
        stack = list(reversed(self.tree.kids(span)))
        while stack:
            child = stack.pop()
            role = role_of(child)
            if role in ("chat", "tool"):
                found.append((role, child))
            elif role is None:
                stack.extend(reversed(self.tree.kids(child)))
        return found

    def delegate(self, span: RawSpan) -> RawSpan | None:
        """The first agent run inside this tool call (through unmapped spans), if any."""
        stack = list(reversed(self.tree.kids(span)))
        while stack:
            child = stack.pop()
            role = role_of(child)
            if role == "run":
                return child
            if role is None:
                stack.extend(reversed(self.tree.kids(child)))
        return None

    def number_calls(self, run: _Run) -> None:
        """Call ids of the run's tool calls, made unique in the run as our runtime does."""
        seen: dict[str, int] = {}
        for role, span in run.members:
            if role != "tool":
                continue
            raw = genai.text(span.attributes.get(GEN_AI_TOOL_CALL_ID))
            base = raw or self.fresh_call_id()
            seen[base] = seen.get(base, 0) + 1
            run.call_ids[span.span_id] = base if seen[base] == 1 else f"{base}~{seen[base]}"

    def fresh_call_id(self) -> str:
        self.calls += 1
        return f"call-{self.calls}"

    def calls_after(self, chat: RawSpan, run: _Run) -> list[str]:
        """The tool calls that follow a model call whose answer was not recorded.

        From the call's own place in the run up to the next model call: each member is
        looked at by one call at most, so a run of many calls reads in linear time.
        """
        labels: list[str] = []
        place = run.places.get(chat.span_id)
        if place is None:
            return labels  # not a direct member (inside a tool call): nothing follows it
        for index in range(place + 1, len(run.members)):
            role, span = run.members[index]
            if role == "chat":
                break
            labels.append(f"{run.call_ids.get(span.span_id, '')}:{genai.tool_name(span)}")
        return labels


def _why_unmapped(span: RawSpan) -> str:
    operation = span.attributes.get(GEN_AI_OPERATION)
    if operation is None and (why := openinference.why_unmapped(span)) is not None:
        return why
    if operation is not None:
        return f"gen_ai.operation.name {operation!r} is not an agent run, model call or tool call"
    if any(key.startswith(OUR) for key in span.attributes) or ATTEMPT in span.attributes:
        return "a handoff_sim span without its run id"
    return "no gen_ai.operation.name, and not a span name of a known instrumentation"


def _event(span: RawSpan, name: str) -> RawEvent | None:
    return next((e for e in span.events if e.name == name), None)


def _at(event: RawEvent | None, default: int, ctx: _Ctx) -> tuple[int, int]:
    raw = event.time_ns if event is not None else default
    return raw, min(max(raw, ctx.lo), ctx.hi)


def _seq(event: RawEvent | None) -> object:
    return event.attributes.get(SEQ) if event is not None else None


def _on(run: _Run, depth: int) -> dict[str, Any]:
    return {"agent": run.agent, "depth": depth, "run_id": run.run_id}


def _ids(handoff: _Handoff) -> dict[str, Any]:
    return {"handoff_id": handoff.handoff_id, "call_id": handoff.call_id, "tool": handoff.tool}


def _handoff_fields(handoff: _Handoff) -> dict[str, Any]:
    return _ids(handoff) | {
        "parent_handoff_id": handoff.run.handoff_id,
        "subagent": handoff.subagent,
        "session_mode": "new_session"
        if handoff.session_id is None or handoff.session_id != handoff.run.session
        else "reuse_session",
        "session_id": handoff.session_id,
    }


def _status(span: RawSpan) -> tuple[str, str | None]:
    if genai.is_cancelled(span):
        return "cancelled", None
    if span.status_code == 2:
        return "failed", genai.error_text(span)
    return "completed", None


def _ms(nanos: int) -> float:
    return ((nanos + 500) // 1000) / 1000
