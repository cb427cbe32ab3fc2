"""Input filters for scenarios/ai4j/input_filter_python.yaml, imported by their path.

A scenario names one as ``input_filter: {python: ai4j_input_filters:redact_secrets}``;
this file sits next to the scenario, whose directory is searched first.
"""

from __future__ import annotations

import json
import re

from handoff_sim.messages import ToolCall

_SECRET = re.compile(r"(password|token)=\S+")


def redact_secrets(call: ToolCall) -> ToolCall | None:
    """Mask ``password=...`` and ``token=...`` in the task; keep a call that has none."""
    arguments = json.loads(call.arguments)
    task = str(arguments.get("task", ""))
    if _SECRET.search(task) is None:
        return None  # nothing to hide: the call goes on unchanged
    arguments["task"] = _SECRET.sub(r"\1=***", task)
    return ToolCall(call.id, call.name, json.dumps(arguments, separators=(",", ":")))


def tag_with_call_id(call: ToolCall) -> ToolCall:
    """Put the call's id in front of its task, so the sub-agent knows which call it serves."""
    arguments = json.loads(call.arguments)
    arguments["task"] = f"[{call.id}] {arguments.get('task', '')}"
    return ToolCall(call.id, call.name, json.dumps(arguments, separators=(",", ":")))
