"""What OpenInference spans say (``openinference.span.kind``, the convention of the
openai-agents, LangChain, CrewAI, LlamaIndex, smolagents and ADK instrumentations).

``AGENT`` spans are agent runs, ``LLM`` spans model calls, ``TOOL`` spans tool calls
(an agent run inside one is a handoff); ``CHAIN`` and the other kinds are read through,
as unmapped spans. An ``AGENT`` span that names no agent (``agent.name``,
``graph.node.id``) around agent spans that do is the framework's workflow (the
openai-agents instrumentation's ``Agent workflow`` root), read through as well, so the
first real agent is the top-level run. Model messages are flattened attributes
(``llm.output_messages.0.message.content``).
"""

from __future__ import annotations

import re
from typing import Final, Literal

from handoff_sim._otlp._parse import OtlpFormatError, RawSpan

__all__ = [
    "KIND",
    "agent_label",
    "is_openinference",
    "mark_workflows",
    "message_count",
    "output_text",
    "role",
    "why_unmapped",
]

KIND: Final = "openinference.span.kind"
KINDS: Final = frozenset(
    {
        "AGENT",
        "LLM",
        "TOOL",
        "CHAIN",
        "RETRIEVER",
        "EMBEDDING",
        "RERANKER",
        "GUARDRAIL",
        "EVALUATOR",
        "PROMPT",
        "UNKNOWN",
    }
)
"""The span kinds of openinference-semantic-conventions (0.1.42)."""

_ROLES: dict[str, Literal["run", "chat", "tool"]] = {"AGENT": "run", "TOOL": "tool", "LLM": "chat"}
_WORKFLOW: Final = "openinference.workflow"
_NAME_KEYS = ("gen_ai.agent.name", "agent.name", "graph.node.id")
_OUTPUT = re.compile(r"llm\.output_messages\.(\d+)\.message\.(role|content)")
_INPUT = re.compile(r"llm\.input_messages\.(\d+)\.message\.role")


def is_openinference(span: RawSpan) -> bool:
    """Whether ``span`` carries an OpenInference span kind."""
    return KIND in span.attributes


def agent_label(span: RawSpan) -> str | None:
    """The agent an OpenInference span names, if any."""
    for key in _NAME_KEYS:
        value = span.attributes.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def role(span: RawSpan) -> Literal["run", "chat", "tool"] | None:
    """What an OpenInference span stands for; ``None`` for a chain, a workflow, the rest."""
    if span.extra.get(_WORKFLOW):
        return None
    kind = span.attributes.get(KIND)
    return _ROLES.get(kind.upper()) if isinstance(kind, str) else None


def why_unmapped(span: RawSpan) -> str | None:
    """Why an OpenInference span became no event (``None``: not an OpenInference span)."""
    kind = span.attributes.get(KIND)
    if not isinstance(kind, str):
        return None
    if span.extra.get(_WORKFLOW):
        return "an OpenInference AGENT span naming no agent around agent spans (a workflow)"
    return f"OpenInference span kind {kind} is not an agent run, model call or tool call"


def mark_workflows(label: str, spans: list[RawSpan], kids: dict[str, list[RawSpan]]) -> None:
    """Check every span kind, and mark the unnamed AGENT spans that hold named ones."""
    for span in spans:
        kind = span.attributes.get(KIND)
        if kind is None:
            continue
        if not isinstance(kind, str) or kind.upper() not in KINDS:
            where = f"{span.where}.attributes[{KIND}]"
            known = ", ".join(sorted(KINDS))
            raise OtlpFormatError(
                label, where, f"{kind!r} is not an OpenInference span kind ({known})"
            )
        if kind.upper() == "AGENT" and agent_label(span) is None and _holds_agent(span, kids):
            span.extra[_WORKFLOW] = True


def _holds_agent(span: RawSpan, kids: dict[str, list[RawSpan]]) -> bool:
    stack = list(kids.get(span.span_id, ()))
    while stack:
        child = stack.pop()
        kind = child.attributes.get(KIND)
        if isinstance(kind, str) and kind.upper() == "AGENT" and agent_label(child) is not None:
            return True
        stack.extend(kids.get(child.span_id, ()))
    return False


def output_text(span: RawSpan) -> str | None:
    """The text of the assistant messages a model call answered (flattened attributes)."""
    roles: dict[int, str] = {}
    texts: dict[int, str] = {}
    for key, value in span.attributes.items():
        found = _OUTPUT.fullmatch(key)
        if found is None or not isinstance(value, str):
            continue
        index = int(found.group(1))
        (roles if found.group(2) == "role" else texts)[index] = value
    chosen = [texts[i] for i in sorted(texts) if roles.get(i, "assistant") == "assistant"]
    return "".join(chosen) if chosen else None


def message_count(span: RawSpan) -> int | None:
    """How many messages a model call was sent (``None``: the span does not say)."""
    indexes = {m.group(1) for key in span.attributes if (m := _INPUT.fullmatch(key))}
    return len(indexes) if indexes else None
