"""Read what GenAI spans say about a run, a model call or a tool call.

Each reader tries the current GenAI attribute first, then older or other common
names (pydantic-ai's ``agent_name``, ``final_result``, ``tool_arguments``,
``tool_response``; OpenInference's ``agent.name``, ``tool.name``, ``input.value``,
``output.value``), and gives ``None`` when the span does not say.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from handoff_sim._otlp import _openinference as openinference
from handoff_sim._otlp._names import (
    ERROR_TYPE,
    GEN_AI_AGENT_NAME,
    GEN_AI_TOOL_ARGUMENTS,
    GEN_AI_TOOL_NAME,
    GEN_AI_TOOL_RESULT,
)
from handoff_sim._otlp._parse import RawSpan
from handoff_sim._safe import JsonProblem, dump_json, parse_json

__all__ = [
    "agent_name",
    "call_labels",
    "error_text",
    "is_cancelled",
    "is_timeout",
    "message_count",
    "output_text",
    "run_input",
    "run_output",
    "text",
    "tool_arguments",
    "tool_definitions",
    "tool_name",
    "tool_result",
]

_CANCELLED = ("cancelled", "canceled", "CancelledError", "asyncio.CancelledError")
_TIMEOUT = ("timeout", "TimeoutError", "asyncio.TimeoutError", "builtins.TimeoutError")


def text(value: object) -> str | None:
    """``value`` as text: a string as is, anything else as JSON; ``None`` stays ``None``."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    try:
        return dump_json(value, ensure_ascii=False, separators=(",", ":"))
    except JsonProblem:
        return str(value)


def _first(span: RawSpan, *keys: str) -> Any:
    for key in keys:
        value = span.attributes.get(key)
        if value is not None:
            return value
    return None


def _after(name: str, prefix: str) -> str | None:
    head, _, rest = name.partition(" ")
    return rest.strip() or None if head == prefix else None


def agent_name(span: RawSpan) -> str:
    """The agent a run span runs."""
    found = _first(span, GEN_AI_AGENT_NAME, "agent_name", "agent.name", "graph.node.id")
    return text(found) or _after(span.name, "invoke_agent") or _oi_name(span) or "agent"


def tool_name(span: RawSpan) -> str:
    """The tool a tool span calls."""
    found = _first(span, GEN_AI_TOOL_NAME, "tool.name", "tool_name")
    return text(found) or _after(span.name, "execute_tool") or _oi_name(span) or "tool"


def _oi_name(span: RawSpan) -> str | None:
    """An OpenInference span's own name, which is its agent's or tool's when no attribute
    says (the openai-agents instrumentation's ``handoff to billing``)."""
    return span.name or None if openinference.is_openinference(span) else None


def tool_arguments(span: RawSpan) -> str:
    """The raw arguments of a tool call, as text (``""`` when not recorded)."""
    found = _first(span, GEN_AI_TOOL_ARGUMENTS, "tool_arguments", "input.value")
    return text(found) or ""


def tool_result(span: RawSpan) -> str | None:
    """What a tool call returned, as text."""
    return text(_first(span, GEN_AI_TOOL_RESULT, "tool_response", "output.value"))


def _messages(value: object) -> list[Any]:
    if isinstance(value, str):
        try:
            value = parse_json(value)
        except JsonProblem:
            return []
    return value if isinstance(value, list) else []


def _parts(message: object) -> Sequence[Any]:
    if not isinstance(message, dict):
        return ()
    parts = message.get("parts")
    if isinstance(parts, list):
        return parts
    content = message.get("content")
    return [{"type": "text", "content": content}] if isinstance(content, str) else ()


def _message_text(message: object) -> str | None:
    texts = [
        part["content"]
        for part in _parts(message)
        if isinstance(part, dict)
        and part.get("type") == "text"
        and isinstance(part.get("content"), str)
    ]
    return "".join(texts) if texts else None


def _last_user_text(messages: list[Any]) -> str | None:
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            found = _message_text(message)
            if found is not None:
                return found
    return None


def run_input(span: RawSpan, first_chat: RawSpan | None) -> str:
    """The input of a run: its own attributes, else the last user message of its first call."""
    direct = _first(span, "input.value")
    if direct is not None:
        return text(direct) or ""
    sources = [
        first_chat.attributes.get("gen_ai.input.messages") if first_chat is not None else None,
        span.attributes.get("gen_ai.input.messages"),
        span.attributes.get("pydantic_ai.all_messages"),
    ]
    for value in sources:
        found = _last_user_text(_messages(value))
        if found is not None:
            return found
    return ""


def output_text(span: RawSpan) -> str | None:
    """The text a model call (or a run) answered, from ``gen_ai.output.messages``."""
    texts = [
        found
        for message in _messages(span.attributes.get("gen_ai.output.messages"))
        if (found := _message_text(message)) is not None
    ]
    return "".join(texts) if texts else openinference.output_text(span)


def run_output(span: RawSpan, last_text: str | None) -> str | None:
    """The final output of a run that completed."""
    found = _first(span, "final_result", "output.value")
    if found is not None:
        return text(found)
    return output_text(span) or last_text


def call_labels(span: RawSpan) -> list[str] | None:
    """``id:name`` of each tool call a model call answered, or ``None`` when not recorded."""
    messages = _messages(span.attributes.get("gen_ai.output.messages"))
    if not messages:
        return None
    labels = []
    for message in messages:
        for part in _parts(message):
            if isinstance(part, dict) and part.get("type") == "tool_call":
                labels.append(f"{text(part.get('id')) or ''}:{text(part.get('name')) or ''}")
    return labels


def message_count(span: RawSpan) -> int:
    """How many messages the model was sent."""
    found = _messages(span.attributes.get("gen_ai.input.messages"))
    return len(found) if found else openinference.message_count(span) or 0


def tool_definitions(span: RawSpan) -> tuple[str, ...]:
    """The names of the tools the model was offered."""
    names = []
    for item in _messages(span.attributes.get("gen_ai.tool.definitions")):
        if isinstance(item, dict):
            name = item.get("name") or (item.get("function") or {}).get("name")
            if isinstance(name, str):
                names.append(name)
    return tuple(names)


def _exception(span: RawSpan) -> tuple[str | None, str | None]:
    for event in span.events:
        if event.name == "exception":
            kind = event.attributes.get("exception.type")
            message = event.attributes.get("exception.message")
            return text(kind), text(message)
    return None, None


def error_text(span: RawSpan) -> str:
    """Why a span failed: its exception event, status message or ``error.type``."""
    kind, message = _exception(span)
    if kind and message:
        return f"{kind}: {message}"
    recorded = span.status_message or text(span.attributes.get(ERROR_TYPE))
    return kind or message or recorded or "error"


def _error_kinds(span: RawSpan) -> list[str]:
    kind, _ = _exception(span)
    found = [text(span.attributes.get(ERROR_TYPE)) or "", kind or ""]
    return [k for k in found if k]


def is_cancelled(span: RawSpan) -> bool:
    """Whether the span says it was cancelled."""
    return any(k in _CANCELLED or k.endswith(".CancelledError") for k in _error_kinds(span))


def is_timeout(span: RawSpan) -> bool:
    """Whether the span says it timed out."""
    return any(k in _TIMEOUT or k.endswith("TimeoutError") for k in _error_kinds(span))
