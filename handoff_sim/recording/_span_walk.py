"""Walk the spans of one trace into what a recording needs: lanes, mounts, tools, inputs.

Each agent run span (``invoke_agent``, pydantic-ai's ``agent run``, OpenInference's
``AGENT``) names its agent; its model calls become the agent's lane, in start order; a
tool call with an agent run inside it is a handoff (the mount ``{agent, tool_name}``), any
other tool call a recorded answer of a fake tool. What the spans do not say is collected
in :attr:`Walked.notes`, never filled in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from handoff_sim._limits import DEFAULT_MAX_MODEL_CALLS, MAX_SECONDS, MAX_STEPS
from handoff_sim._otlp import _genai as genai
from handoff_sim._otlp._parse import RawSpan
from handoff_sim._otlp._tree import SpanTree, role_of
from handoff_sim.errors import OtlpFormatError
from handoff_sim.recording._span_content import (
    answer_of,
    input_of,
    model_of,
    offered_tools,
    system_prompt_of,
    tool_definition,
    usage_of,
)
from handoff_sim.recording._span_policy import PolicySeen

__all__ = ["AgentSeen", "StepSeen", "ToolCallSeen", "ToolSeen", "Walked", "walk"]

_NS = 1_000_000_000
_PYDANTIC_AI = frozenset({"pydantic_ai.all_messages", "model_request_parameters", "logfire.msg"})


@dataclass(frozen=True, slots=True)
class StepSeen:
    """One model call: when it started (ns, file position), its script step, how long."""

    start_ns: int
    index: int
    step: dict[str, Any]
    seconds: float


@dataclass(frozen=True, slots=True)
class ToolCallSeen:
    """One plain tool call: who made it, its raw arguments, its result or error, how long."""

    start_ns: int
    index: int
    agent: str
    arguments: str
    result: str | None
    error: str | None
    seconds: float


@dataclass(slots=True)
class AgentSeen:
    """One agent as its spans show it."""

    steps: list[StepSeen] = field(default_factory=list)
    subagents: dict[str, str] = field(default_factory=dict)  # tool name -> agent
    mount_names: dict[str, str] = field(default_factory=dict)  # tool name -> sub-agent name
    offered: dict[str, dict[str, Any]] = field(default_factory=dict)
    model: str | None = None
    most_chats: int = 0
    policy: PolicySeen = field(default_factory=PolicySeen)
    system_prompt: str | None = None


@dataclass(slots=True)
class ToolSeen:
    """A plain tool's recorded calls, in start order."""

    calls: list[ToolCallSeen] = field(default_factory=list)


@dataclass(slots=True)
class Walked:
    """What the spans of one trace hold, ready to write as a scenario."""

    agents: dict[str, AgentSeen] = field(default_factory=dict)
    tools: dict[str, ToolSeen] = field(default_factory=dict)
    inputs: list[str] = field(default_factory=list)
    root: str | None = None
    notes: list[str] = field(default_factory=list)
    ours: bool = False
    lifted: int = 0
    """How many workflow spans around the top agent were not read as agent runs."""
    output: str | None = None
    """The text the top agent's last model call answered (its last run's output)."""
    runtime: str | None = None


@dataclass(slots=True)
class _Ctx:
    run: RawSpan | None = None
    agent: str | None = None
    tool: RawSpan | None = None
    tool_agent: str | None = None


class _Walker:
    def __init__(self, label: str, tree: SpanTree) -> None:
        self.label = label
        self.tree = tree
        self.out = Walked()
        self.chats = 0
        self.arguments: dict[tuple[str, str], str] = {}  # (run span, call id) -> arguments
        self.pending: list[tuple[str, dict[str, Any]]] = []  # (run span, step) to fill
        self.handoff_tools: set[str] = set()
        self.plain: list[tuple[RawSpan, str]] = []  # (tool span, agent)
        self.missing_content: set[str] = set()
        self.loose_runs: list[tuple[RawSpan, str, str]] = []  # (run span, agent, caller)
        self.last_root: RawSpan | None = None
        self.our_handoffs: dict[str, list[RawSpan]] = {}  # caller -> its handoff tool spans

    def fail(self, span: RawSpan, what: str) -> OtlpFormatError:
        return OtlpFormatError(self.label, span.where, f"span {span.name!r}: {what}")

    def run(self) -> Walked:
        stack: list[tuple[RawSpan, _Ctx]] = [(r, _Ctx()) for r in reversed(self.tree.roots)]
        while stack:
            span, ctx = stack.pop()
            inner = self.visit(span, ctx)
            stack.extend((child, inner) for child in reversed(self.tree.kids(span)))
        self.finish()
        return self.out

    def visit(self, span: RawSpan, ctx: _Ctx) -> _Ctx:
        role = role_of(span)
        self.runtime(span)
        if role == "run":
            return self.agent_run(span, ctx)
        if role == "chat" and ctx.agent is not None:
            self.chat(span, ctx)
        elif role == "tool" and ctx.agent is not None:
            return self.tool(span, ctx)
        elif role == "attempt":
            self.attempt(span, ctx)
        return ctx

    def runtime(self, span: RawSpan) -> None:
        """Which runtime wrote the spans, from the marks each leaves."""
        attributes = span.attributes
        if "handoff_sim.run_id" in attributes:
            self.out.ours = True
            self.out.runtime = "handoff-sim"
        elif self.out.runtime is None and _PYDANTIC_AI.intersection(attributes):
            self.out.runtime = "pydantic-ai"
        elif self.out.runtime is None and "openinference.span.kind" in attributes:
            self.out.runtime = "openai-agents" if attributes.get("llm.system") == "openai" else None

    def agent_run(self, span: RawSpan, ctx: _Ctx) -> _Ctx:
        agent = _agent_name(span)
        if ctx.agent is None and not self.own_chats(span) and self.has_runs(span):
            self.out.lifted += 1
            return ctx  # a workflow span around the agents (OpenInference's trace root)
        seen = self.out.agents.setdefault(agent, AgentSeen())
        seen.most_chats = max(seen.most_chats, self.own_chats(span))
        chats = self.reached(span, "chat")
        if seen.system_prompt is None and chats:
            seen.system_prompt = system_prompt_of(self.label, chats[0])
        if ctx.tool is not None and ctx.tool_agent is not None:
            tool = genai.tool_name(ctx.tool)
            self.out.agents[ctx.tool_agent].subagents[tool] = agent  # the agent that ran
            self.handoff_tools.add(ctx.tool.span_id)
        elif ctx.agent is None:
            self.root_run(span, agent)
        elif "handoff_sim.parent_run_id" in span.attributes:
            self.loose_runs.append((span, agent, ctx.agent))  # our export, beside its attempt
        return _Ctx(span, agent)

    def root_run(self, span: RawSpan, agent: str) -> None:
        if self.out.root is not None and self.out.root != agent:
            raise self.fail(
                span,
                f"a top-level run of agent {agent!r}, but the trace began with agent "
                f"{self.out.root!r}: a recording replays one top-level agent",
            )
        self.out.root = agent
        self.last_root = span
        first_chat = next(iter(self.reached(span, "chat")), None)
        given = span.attributes.get("handoff_sim.input")
        found = given if isinstance(given, str) else genai.run_input(span, first_chat)
        if not found and first_chat is not None and not isinstance(given, str):
            found = input_of(self.label, first_chat) or ""
        if not found and not isinstance(given, str):
            self.out.notes.append(
                f"turn {len(self.out.inputs) + 1}: its input is not in the spans (empty input)"
            )
        self.out.inputs.append(found)

    def reached(self, span: RawSpan, role: str) -> list[RawSpan]:
        """The spans of ``role`` a run holds, through spans we do not map (OpenInference's
        ``turn`` chains), not through other runs, tool calls or model calls."""
        found, stack = [], list(reversed(self.tree.kids(span)))
        while stack:
            kid = stack.pop()
            kind = role_of(kid)
            if kind == role:
                found.append(kid)
            elif kind is None:
                stack.extend(reversed(self.tree.kids(kid)))
        return found

    def own_chats(self, span: RawSpan) -> int:
        return len(self.reached(span, "chat"))

    def has_runs(self, span: RawSpan) -> bool:
        return bool(self.reached(span, "run"))

    def chat(self, span: RawSpan, ctx: _Ctx) -> None:
        assert ctx.agent is not None
        assert ctx.run is not None
        self.chats += 1
        if self.chats > DEFAULT_MAX_MODEL_CALLS:
            raise self.fail(
                span,
                f"the trace holds more than {DEFAULT_MAX_MODEL_CALLS:,} model calls, more "
                "than a replayed run may make (its model-call budget)",
            )
        seen = self.out.agents[ctx.agent]
        seen.model = seen.model or model_of(span)
        for tool in offered_tools(self.label, span):
            seen.offered.setdefault(tool["name"], tool)
        step = self.step(span, ctx.agent)
        seen.steps.append(StepSeen(span.start_ns, span.index, step, self.latency(span)))
        if step.get("tool_calls") and any(c["arguments"] is None for c in step["tool_calls"]):
            self.pending.append((ctx.run.span_id, step))

    def step(self, span: RawSpan, agent: str) -> dict[str, Any]:
        if span.status_code == 2:
            if genai.is_cancelled(span) or span.attributes.get("error.type") == "_OTHER":
                return {"cancelled": True}  # cut off in the run: never answers in a replay
            return {"error": _message(span)}
        answer = answer_of(self.label, span)
        if not answer.content:
            self.missing_content.add(agent)
        step: dict[str, Any] = {}
        if answer.text is not None or not answer.calls:
            step["text"] = answer.text if answer.text is not None else ""
        if answer.calls:
            step["tool_calls"] = [
                {"id": c.id, "name": c.name, "arguments": c.arguments} for c in answer.calls
            ]
        usage = usage_of(span)
        if usage is not None:
            step["usage"] = usage
        return step

    def latency(self, span: RawSpan) -> float:
        if span.end_ns < span.start_ns:
            raise self.fail(span, "ends before it starts: no latency can be recorded")
        seconds = (span.end_ns - span.start_ns) / _NS
        if seconds > MAX_SECONDS:
            raise self.fail(
                span,
                f"lasted {seconds:.6g} s, longer than a recorded latency may be "
                f"({MAX_SECONDS:,.0f} s, a virtual year)",
            )
        return round(seconds, 6)

    def tool(self, span: RawSpan, ctx: _Ctx) -> _Ctx:
        assert ctx.run is not None
        assert ctx.agent is not None
        call_id = genai.text(span.attributes.get("gen_ai.tool.call.id")) or ""
        self.arguments[(ctx.run.span_id, call_id)] = genai.tool_arguments(span)
        subagent = span.attributes.get("handoff_sim.handoff.subagent")
        if isinstance(subagent, str):  # our export names the delegate even when it never ran
            caller = self.out.agents[ctx.agent]
            caller.subagents.setdefault(genai.tool_name(span), subagent)
            caller.mount_names.setdefault(genai.tool_name(span), subagent)
            self.handoff_tools.add(span.span_id)
            self.our_handoffs.setdefault(ctx.agent, []).append(span)
            self.out.agents[ctx.agent].policy.handoff(genai.tool_name(span), span, ctx.run)
        else:
            self.plain.append((span, ctx.agent))
        return _Ctx(ctx.run, ctx.agent, span, ctx.agent)

    def attempt(self, span: RawSpan, ctx: _Ctx) -> None:
        if ctx.tool_agent is None or span.attributes.get("handoff_sim.outcome") != "timeout":
            return
        self.out.agents[ctx.tool_agent].policy.timed_out(
            span.attributes.get("handoff_sim.duration_ms")
        )

    def link_loose_runs(self) -> None:
        """A delegate's run our export wrote beside its attempt (not inside it) belongs to
        the caller's handoff of the same session, else to the one open when it started."""
        for run, agent, caller in self.loose_runs:
            handoffs = self.our_handoffs.get(caller, [])
            session = run.attributes.get("gen_ai.conversation.id")
            found = next(
                (
                    h
                    for h in handoffs
                    if h.attributes.get("handoff_sim.handoff.session_id") == session
                ),
                None,
            ) or next((h for h in handoffs if _within(run, h)), None)
            if found is not None:
                self.out.agents[caller].subagents[genai.tool_name(found)] = agent

    def finish(self) -> None:
        self.link_loose_runs()
        chats = self.reached(self.last_root, "chat") if self.last_root is not None else []
        if chats and chats[-1].status_code != 2:
            self.out.output = answer_of(self.label, chats[-1]).text
        for seen in list(self.out.agents.values()):
            for agent in seen.subagents.values():  # a delegate that never ran (denied)
                self.out.agents.setdefault(agent, AgentSeen())
        for run_id, step in self.pending:
            for call in step["tool_calls"]:
                if call["arguments"] is None:
                    found = self.arguments.get((run_id, call["id"]))
                    call["arguments"] = found if found is not None else "{}"
        for span, agent in self.plain:
            if span.span_id not in self.handoff_tools:
                self.plain_tool(span, agent)
        self.foreign_attempts()
        for agent in sorted(self.missing_content):
            self.out.notes.append(
                f"agent {agent}: the spans carry no content of its model calls' answers "
                "(content capture was off): those steps answer with empty text and '{}' "
                "as tool call arguments"
            )

    def plain_tool(self, span: RawSpan, agent: str) -> None:
        name = genai.tool_name(span)
        failed = span.status_code == 2
        call = ToolCallSeen(
            span.start_ns,
            span.index,
            agent,
            genai.tool_arguments(span),
            None if failed else genai.tool_result(span) or "",
            _message(span) if failed else None,
            self.latency(span),
        )
        self.out.tools.setdefault(name, ToolSeen()).calls.append(call)
        self.out.agents[agent].offered.setdefault(name, tool_definition(self.label, span, name))

    def foreign_attempts(self) -> None:
        """Runs of one delegate inside one tool call are its attempts (retries)."""
        for span in self.tree.spans:
            if span.span_id in self.handoff_tools and role_of(span) == "tool":
                runs = sum(1 for kid in self.tree.kids(span) if role_of(kid) == "run")
                parent = _parent_agent(self, span)
                if parent is not None and runs > 1:
                    self.out.agents[parent].policy.attempted(runs)


def _within(run: RawSpan, handoff: RawSpan) -> bool:
    """Whether ``run`` started while ``handoff`` was open, by our export's sequence numbers."""
    start = run.attributes.get("handoff_sim.seq.start")
    low, high = (
        handoff.attributes.get(k) for k in ("handoff_sim.seq.start", "handoff_sim.seq.end")
    )
    numbers = [v for v in (start, low, high) if isinstance(v, int) and not isinstance(v, bool)]
    return len(numbers) == 3 and low <= start <= high  # type: ignore[operator]


def _parent_agent(walker: _Walker, span: RawSpan) -> str | None:
    name = span.attributes.get("gen_ai.agent.name") or span.attributes.get("handoff_sim.agent")
    return name if isinstance(name, str) and name in walker.out.agents else None


def _agent_name(span: RawSpan) -> str:
    ours = span.attributes.get("handoff_sim.agent")
    if isinstance(ours, str):
        return ours
    found = genai.agent_name(span)
    if found == "agent" and span.attributes.get("openinference.span.kind") == "AGENT":
        return span.name or found
    return found


def _message(span: RawSpan) -> str:
    """The error a model call raised: the exception's message, else the span's status."""
    for event in span.events:
        if event.name == "exception":
            message = event.attributes.get("exception.message")
            if isinstance(message, str) and message:
                return message
    text = span.status_message or genai.error_text(span)
    kind = span.attributes.get("error.type")
    if isinstance(kind, str) and text.startswith(f"{kind}: "):
        return text[len(kind) + 2 :]  # our export writes "Type: message"; the step raises it
    return text


def walk(label: str, tree: SpanTree) -> Walked:
    """What the spans of ``tree`` hold (see the module docstring)."""
    walked = _Walker(label, tree).run()
    for name, seen in walked.agents.items():
        if seen.most_chats > MAX_STEPS:
            raise OtlpFormatError(
                label, "", f"agent {name!r} made {seen.most_chats} model calls in one run"
            )
    return walked
