"""The arguments of ``delegate_to_subagent``: ``subagent_type``, ``prompt``, ``expected_tools``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from handoff_sim._safe import JsonProblem, parse_json

__all__ = ["DELEGATE_TOOL_NAME", "DELEGATION_PARAMETERS", "DelegationArgs", "parse_delegation"]

DELEGATE_TOOL_NAME = "delegate_to_subagent"

DELEGATION_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "subagent_type": {"type": "string", "description": "Which agent type to delegate to"},
        "prompt": {"type": "string", "description": "The task for the subagent to perform"},
        "expected_tools": {
            "type": "array",
            "items": {"type": "string"},
            "description": (
                "Tool names you expect this subagent to need, if known; the safe ones "
                "among them are granted up front"
            ),
        },
    },
    "required": ["subagent_type", "prompt"],
}


@dataclass(frozen=True, slots=True)
class DelegationArgs:
    """Parsed arguments of one delegation call."""

    subagent_type: str
    prompt: str
    expected_tools: tuple[str, ...] | None = None


def parse_delegation(arguments: str) -> DelegationArgs | str:
    """The parsed arguments, or a one-line description of what is wrong with them."""
    try:
        data = parse_json(arguments) if arguments.strip() else {}
    except JsonProblem as exc:
        return "arguments must be a JSON object" + (
            " (these are nested too deeply)" if exc.too_deep else ""
        )
    if not isinstance(data, dict):
        return "arguments must be a JSON object"
    kind = data.get("subagent_type")
    if not isinstance(kind, str) or not kind.strip():
        return "'subagent_type' is required and must be a non-blank string"
    prompt = data.get("prompt")
    if not isinstance(prompt, str):
        return "'prompt' is required and must be a string"
    expected = data.get("expected_tools")
    if expected is None:
        return DelegationArgs(kind, prompt)
    if not isinstance(expected, list) or not all(isinstance(t, str) for t in expected):
        return "'expected_tools' must be a list of tool names"
    return DelegationArgs(kind, prompt, tuple(expected))
