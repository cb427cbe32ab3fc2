"""What a model call's ``chat`` span says it answered, for a model our capture does not drive.

pydantic-ai writes a call's input and output messages on its span as GenAI JSON
(``gen_ai.input.messages``, ``gen_ai.output.messages``); a foreign model's call is
recorded from them: its text, its tool calls with their raw argument strings, and how
many messages it was sent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from handoff_sim import ToolCall
from handoff_sim._safe import JsonProblem, dump_json, parse_json, text_of

__all__ = ["chat_output"]


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


def chat_output(attributes: Mapping[str, Any]) -> tuple[str | None, list[ToolCall], int]:
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
