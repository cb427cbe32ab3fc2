"""Turn a delegation call's raw arguments into the sub-agent's input text."""

from __future__ import annotations

from json.encoder import encode_basestring as _quote
from typing import Any

from handoff_sim._safe import JsonProblem, dump_json, parse_arguments, parse_json

__all__ = ["envelope", "resolve_input", "unwrap_output"]


def _text(value: Any) -> str | None:
    """A field as text (non-strings as compact JSON); JsonProblem when it cannot be written."""
    if value is None:
        return None
    text = value if isinstance(value, str) else dump_json(value, separators=(",", ":"))
    text = text.strip()
    return text or None


def resolve_input(arguments: str | None) -> str:
    """``task`` (or ``input``) plus optional ``context``; tolerant of anything else.

    Blank gives ``""``; non-JSON or non-object text passes through raw, and so does
    text nested too deeply to read or to write back; no task gives the raw text; task
    and context give ``"<task>\\n\\nContext:\\n<context>"``.
    """
    if arguments is None or not arguments.strip():
        return ""
    try:
        obj = parse_arguments(arguments)  # read before, when the call arrived: not again
        if not isinstance(obj, dict):
            return arguments
        task = _text(obj.get("task")) or _text(obj.get("input"))
        context = _text(obj.get("context"))
    except JsonProblem:
        return arguments
    if task is None:
        return arguments
    if context is None:
        return task
    return f"{task}\n\nContext:\n{context}"


def envelope(subagent: str, tool_name: str, output: str | None, steps: int) -> str:
    """The compact JSON result the parent sees; ``output`` is left out when None."""
    if _plain(subagent, tool_name, output) and type(steps) is int:
        # Exactly what json.dumps writes for these types, without an encoder per call.
        head = f'{{"subagent":{_quote(subagent)},"toolName":{_quote(tool_name)}'
        tail = "" if output is None else f',"output":{_quote(output)}'
        return f'{head}{tail},"steps":{steps}}}'
    data: dict[str, Any] = {"subagent": subagent, "toolName": tool_name}
    if output is not None:
        data["output"] = output
    data["steps"] = steps
    return dump_json(data, separators=(",", ":"), ensure_ascii=False)


def _plain(subagent: object, tool_name: object, output: object) -> bool:
    """Exact ``str`` names and output (or no output): the envelope is written directly."""
    names = type(subagent) is str and type(tool_name) is str
    return names and (output is None or type(output) is str)


def unwrap_output(raw: str | None) -> str | None:
    """The ``output`` inside a JSON-object result, else the trimmed text; blank is None."""
    if raw is None:
        return None
    text = raw.strip()
    if text.startswith("{"):
        try:
            obj = parse_json(text)
        except JsonProblem:
            obj = None
        if isinstance(obj, dict) and isinstance(obj.get("output"), str) and obj["output"].strip():
            return str(obj["output"])
    return text or None
