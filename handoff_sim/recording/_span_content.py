"""What a model-call span says it answered: text, tool calls with arguments, usage, model name.

Read from, in this order: handoff-sim's own export (``handoff_sim.text``,
``handoff_sim.tool_calls``, the arguments on the tool spans), the GenAI content-capture
attributes (``gen_ai.output.messages``; the older ``gen_ai.completion``, as JSON or
flattened ``gen_ai.completion.0.content``), and OpenInference's flattened
``llm.output_messages.N.message.*`` (how openai-agents traces reach OpenTelemetry through
openinference-instrumentation-openai-agents). Content that is there but is not JSON is an
:class:`OtlpFormatError` naming the span and the attribute, never skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from handoff_sim._otlp._genai import text as as_text
from handoff_sim._otlp._parse import RawSpan
from handoff_sim._safe import JsonProblem, parse_json
from handoff_sim.errors import OtlpFormatError

__all__ = [
    "Answer",
    "CallSeen",
    "answer_of",
    "input_of",
    "model_of",
    "offered_tools",
    "system_prompt_of",
    "tool_definition",
    "usage_of",
]

_OUTPUT = "gen_ai.output.messages"
_COMPLETION = "gen_ai.completion"
_FLAT = re.compile(r"^llm\.output_messages\.(\d+)\.message\.(.+)$")
_FLAT_CALL = re.compile(r"^tool_calls\.(\d+)\.tool_call\.(.+)$")
_OLD_FLAT = re.compile(r"^gen_ai\.completion\.(\d+)\.(.+)$")
_OLD_CALL = re.compile(r"^tool_calls\.(\d+)\.(.+)$")


@dataclass(frozen=True, slots=True)
class CallSeen:
    """A tool call a model answered: its id, tool name and raw arguments (None: not in the span)."""

    id: str
    name: str
    arguments: str | None


@dataclass(slots=True)
class Answer:
    """What one model call answered, as far as its span says."""

    text: str | None = None
    calls: list[CallSeen] = field(default_factory=list)
    content: bool = False
    """Whether the span carried the answer's content (texts and arguments) in full."""


def _json(label: str, span: RawSpan, key: str, value: object) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return parse_json(value)
    except JsonProblem as problem:
        raise OtlpFormatError(
            label,
            f"{span.where}.attributes[{key}]",
            f"span {span.name!r}: the captured content is not JSON ({problem})",
        ) from None


def _arguments(value: object) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else as_text(value)


def _from_messages(label: str, span: RawSpan, key: str, value: object) -> Answer:
    messages = _json(label, span, key, value)
    if isinstance(messages, dict):
        messages = [messages]
    if not isinstance(messages, list):
        raise OtlpFormatError(
            label, f"{span.where}.attributes[{key}]", f"span {span.name!r}: not a list of messages"
        )
    answer = Answer(content=True)
    texts: list[str] = []
    for message in messages:
        if not isinstance(message, dict):
            continue
        parts = message.get("parts")
        if not isinstance(parts, list):
            content = message.get("content")
            parts = [{"type": "text", "content": content}] if isinstance(content, str) else []
            parts += _chat_calls(message.get("tool_calls"))
        for part in parts:
            _part(part, texts, answer)
    answer.text = "".join(texts) if texts else None
    return answer


def _chat_calls(calls: object) -> list[dict[str, Any]]:
    """Chat-completions style ``tool_calls`` (``{id, function: {name, arguments}}``) as parts."""
    found = []
    for call in calls if isinstance(calls, list) else []:
        if isinstance(call, dict):
            inner = call.get("function")
            function: dict[str, Any] = inner if isinstance(inner, dict) else call
            found.append(
                {
                    "type": "tool_call",
                    "id": call.get("id"),
                    "name": function.get("name"),
                    "arguments": function.get("arguments"),
                }
            )
    return found


def _part(part: object, texts: list[str], answer: Answer) -> None:
    if not isinstance(part, dict):
        return
    kind = part.get("type")
    if kind == "text" and isinstance(part.get("content"), str):
        texts.append(part["content"])
    elif kind == "text":
        answer.content = False  # the part is there, its text was not captured
    elif kind == "tool_call":
        if part.get("arguments") is None:
            answer.content = False
        name = as_text(part.get("name")) or ""
        answer.calls.append(
            CallSeen(as_text(part.get("id")) or "", name, _arguments(part.get("arguments")))
        )


def _flattened(span: RawSpan, pattern: re.Pattern[str], call: re.Pattern[str]) -> Answer | None:
    """Flattened attributes (``llm.output_messages.0.message.content``) as an answer."""
    texts: dict[int, str] = {}
    calls: dict[tuple[int, int], dict[str, Any]] = {}
    for key, value in span.attributes.items():
        found = pattern.match(key)
        if found is None:
            continue
        index, rest = int(found.group(1)), found.group(2)
        if rest == "content" and isinstance(value, str):
            texts[index] = value
        elif (inner := call.match(rest)) is not None:
            slot = calls.setdefault((index, int(inner.group(1))), {})
            slot[inner.group(2).removeprefix("function.")] = value
    if not texts and not calls:
        return None
    answer = Answer(text="".join(texts[i] for i in sorted(texts)) or None, content=True)
    for place in sorted(calls):
        slot = calls[place]
        arguments = slot.get("arguments_json", slot.get("arguments"))
        answer.calls.append(
            CallSeen(
                as_text(slot.get("id")) or "",
                as_text(slot.get("name")) or "",
                _arguments(arguments) if arguments is not None else "{}",
            )
        )
    return answer


def _ours(span: RawSpan) -> Answer | None:
    attributes = span.attributes
    if "handoff_sim.tool_calls" not in attributes and "handoff_sim.text" not in attributes:
        return None
    labels = attributes.get("handoff_sim.tool_calls")
    calls = []
    for label in labels if isinstance(labels, list) else []:
        call_id, _, name = str(label).partition(":")
        calls.append(CallSeen(call_id, name, None))  # arguments: on the tool spans
    return Answer(as_text(attributes.get("handoff_sim.text")), calls, content=True)


def answer_of(label: str, span: RawSpan) -> Answer:
    """What the model call of ``span`` answered (``content`` False when the span does not say)."""
    attributes = span.attributes
    ours = _ours(span)
    if ours is not None:
        return ours
    for key in (_OUTPUT, _COMPLETION):
        if attributes.get(key) is not None:
            return _from_messages(label, span, key, attributes[key])
    for pattern, call in ((_FLAT, _FLAT_CALL), (_OLD_FLAT, _OLD_CALL)):
        found = _flattened(span, pattern, call)
        if found is not None:
            return found
    return Answer()


def model_of(span: RawSpan) -> str | None:
    """The model name the call named."""
    for key in ("gen_ai.response.model", "gen_ai.request.model", "llm.model_name"):
        value = span.attributes.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def usage_of(span: RawSpan) -> dict[str, int] | None:
    """Input and output tokens of the call, when the span says."""
    keys = {
        "input_tokens": ("gen_ai.usage.input_tokens", "llm.token_count.prompt"),
        "output_tokens": ("gen_ai.usage.output_tokens", "llm.token_count.completion"),
    }
    usage: dict[str, int] = {}
    for name, options in keys.items():
        for key in options:
            value = span.attributes.get(key)
            if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**53:
                usage[name] = value
                break
    return usage or None


def offered_tools(label: str, span: RawSpan) -> list[dict[str, Any]]:
    """The tool definitions the model was offered (``gen_ai.tool.definitions``), each a
    mapping with at least a ``name``."""
    key = "gen_ai.tool.definitions"
    value = span.attributes.get(key)
    if value is None:
        return []
    items = _json(label, span, key, value)
    found = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        inner = item.get("function")
        function: dict[str, Any] = inner if isinstance(inner, dict) else item
        if isinstance(function.get("name"), str):
            found.append(function)
    return found


def _parts_text(parts: object) -> str | None:
    """The text of a list of GenAI parts (``[{"type": "text", "content": ...}]``)."""
    if not isinstance(parts, list):
        return None
    texts = [
        p["content"]
        for p in parts
        if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("content"), str)
    ]
    return "".join(texts) if texts else None


def system_prompt_of(label: str, span: RawSpan) -> str | None:
    """The instructions a model call was sent: pydantic-ai's ``gen_ai.system_instructions``,
    the ``instructions`` of OpenInference's ``llm.invocation_parameters``, or a system
    message among ``gen_ai.input.messages``."""
    attributes = span.attributes
    key = "gen_ai.system_instructions"
    if attributes.get(key) is not None:
        return _parts_text(_json(label, span, key, attributes[key]))
    key = "llm.invocation_parameters"
    if attributes.get(key) is not None:
        parameters = _json(label, span, key, attributes[key])
        found = parameters.get("instructions") if isinstance(parameters, dict) else None
        return found if isinstance(found, str) and found else None
    key = "gen_ai.input.messages"
    if attributes.get(key) is not None:
        for message in _listed(_json(label, span, key, attributes[key])):
            if message.get("role") == "system":
                return _parts_text(message.get("parts")) or as_text(message.get("content"))
    return None


def input_of(label: str, span: RawSpan) -> str | None:
    """The last user message of a model call's OpenInference ``input.value`` (a JSON list
    of messages), when the GenAI attributes do not say."""
    value = span.attributes.get("input.value")
    if not isinstance(value, str) or not value.lstrip().startswith("["):
        return None
    for message in reversed(_listed(_json(label, span, "input.value", value))):
        if message.get("role") == "user" and isinstance(message.get("content"), str):
            return str(message["content"])
    return None


def _listed(value: object) -> list[dict[str, Any]]:
    return [m for m in value if isinstance(m, dict)] if isinstance(value, list) else []


def tool_definition(label: str, span: RawSpan, name: str) -> dict[str, Any]:
    """A tool's definition as a tool span gives it (OpenInference's ``tool.description``
    and ``tool.parameters``); just its name when the span does not say."""
    found: dict[str, Any] = {"name": name}
    description = span.attributes.get("tool.description")
    if isinstance(description, str):
        found["description"] = description
    key = "tool.parameters"
    if span.attributes.get(key) is not None:
        parameters = _json(label, span, key, span.attributes[key])
        if isinstance(parameters, dict):
            found["parameters"] = parameters
    return found
