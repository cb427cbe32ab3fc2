"""Turn a delegation call's raw arguments into the sub-agent's input text (S4)."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["envelope", "resolve_input", "unwrap_output"]


def _text(value: Any) -> str | None:
    if value is None:
        return None
    text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
    text = text.strip()
    return text or None


def resolve_input(arguments: str | None) -> str:
    """``task`` (or ``input``) plus optional ``context``; tolerant of anything else.

    Blank gives ``""``; non-JSON or non-object text passes through raw; no task
    gives the raw text; task and context give ``"<task>\\n\\nContext:\\n<context>"``.
    """
    if arguments is None or not arguments.strip():
        return ""
    try:
        obj = json.loads(arguments)
    except ValueError:
        return arguments
    if not isinstance(obj, dict):
        return arguments
    task = _text(obj.get("task")) or _text(obj.get("input"))
    context = _text(obj.get("context"))
    if task is None:
        return arguments
    if context is None:
        return task
    return f"{task}\n\nContext:\n{context}"


def envelope(subagent: str, tool_name: str, output: str | None, steps: int) -> str:
    """The compact JSON result the parent sees (S5); ``output`` is left out when None."""
    data: dict[str, Any] = {"subagent": subagent, "toolName": tool_name}
    if output is not None:
        data["output"] = output
    data["steps"] = steps
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def unwrap_output(raw: str | None) -> str | None:
    """The ``output`` inside a JSON-object result, else the trimmed text; blank is None."""
    if raw is None:
        return None
    text = raw.strip()
    if text.startswith("{"):
        try:
            obj = json.loads(text)
        except ValueError:
            obj = None
        if isinstance(obj, dict) and isinstance(obj.get("output"), str) and obj["output"].strip():
            return str(obj["output"])
    return text or None
