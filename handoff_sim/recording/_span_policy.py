"""The handoff policy an agent's handoffs show, as far as their spans show it.

Spans carry no policy. What each handoff did does say some of it: the most attempts one
made (``max_retries``), the time an attempt timed out at (``timeout``), a denial's reason
(``denied_tools``, ``allowed_tools``, ``max_depth``), what a denial or a failure did next
(``on_denied``, ``on_error``: the run failed, went on, or a fallback answered), and what
a fallback answered (the calling agent's ``tool_executor``). Everything else stays the
policy's default, and the recording's notes say so.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from handoff_sim._limits import MAX_RETRIES, MAX_SECONDS
from handoff_sim._otlp._parse import RawSpan
from handoff_sim.recording._graph import duration_text

__all__ = ["PolicySeen"]

_HANDOFF = "handoff_sim.handoff."
_DENIALS = ("not_allowed", "denied_tool", "max_depth")


def _int(value: object, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


@dataclass(slots=True)
class PolicySeen:
    """What the handoffs of one calling agent show of its policy."""

    attempts: int = 1
    timeout: float | None = None
    denied: set[str] = field(default_factory=set)
    not_allowed: set[str] = field(default_factory=set)
    admitted: set[str] = field(default_factory=set)
    deepest: int = 1
    depth_denied: int | None = None
    on_denied: str | None = None
    on_error: str | None = None
    fallback_outputs: list[str] = field(default_factory=list)

    def attempted(self, runs: int) -> None:
        """A handoff made ``runs`` attempts."""
        self.attempts = max(self.attempts, min(runs, MAX_RETRIES + 1))

    def timed_out(self, duration_ms: object) -> None:
        """An attempt timed out after ``duration_ms``: the policy's timeout."""
        if isinstance(duration_ms, int | float) and 0 < duration_ms <= MAX_SECONDS * 1000:
            self.timeout = round(duration_ms / 1000, 6)

    def handoff(self, tool: str, span: RawSpan, caller: RawSpan | None) -> None:
        """One handoff of our export: its end fields, and the calling run's outcome."""
        attributes = span.attributes
        self.attempted(_int(attributes.get(f"{_HANDOFF}attempts"), 1))
        status, reason = attributes.get(f"{_HANDOFF}status"), attributes.get(f"{_HANDOFF}reason")
        depth = _int(attributes.get(f"{_HANDOFF}depth"), 1)
        if reason in _DENIALS:
            self._denial(tool, str(reason), depth, status, caller)
        else:
            self.admitted.add(tool)
            self.deepest = max(self.deepest, depth)
            if status in ("fallback", "unavailable"):
                self.on_error = "fallback_to_primary"
        if status == "fallback":
            output = attributes.get("gen_ai.tool.call.result")
            if isinstance(output, str):
                self.fallback_outputs.append(output)

    def _denial(
        self, tool: str, reason: str, depth: int, status: object, caller: RawSpan | None
    ) -> None:
        if reason == "denied_tool":
            self.denied.add(tool)
        elif reason == "not_allowed":
            self.not_allowed.add(tool)
        else:
            self.depth_denied = min(self.depth_denied or depth, depth)
        if status in ("fallback", "unavailable"):
            self.on_denied = "fallback_to_primary"
        elif self.on_denied is None:
            failed = caller is not None and caller.attributes.get("handoff_sim.status") == "failed"
            self.on_denied = "fail" if failed else "report_to_model"

    def block(self, subagent_tools: Iterable[str]) -> tuple[dict[str, Any], list[str]]:
        """The policy block these handoffs show, and what could not be said."""
        policy: dict[str, Any] = {}
        notes: list[str] = []
        if self.depth_denied is not None:
            policy["max_depth"] = max(self.depth_denied - 1, 1)
        elif self.deepest > 1:
            policy["max_depth"] = self.deepest
        if self.attempts > 1:
            policy["max_retries"] = self.attempts - 1
        if self.timeout is not None:
            policy["timeout"] = duration_text(self.timeout)
        if self.not_allowed:
            allowed = sorted(set(subagent_tools) - self.not_allowed)
            if allowed:
                policy["allowed_tools"] = allowed
            else:
                notes.append("allowed_tools: no tool the spans show was admitted")
        if self.denied:
            policy["denied_tools"] = sorted(self.denied)
        if self.on_denied not in (None, "fail"):
            policy["on_denied"] = self.on_denied
        if self.on_error is not None:
            policy["on_error"] = self.on_error
        return policy, notes

    def tool_executor(self) -> tuple[dict[str, Any] | None, list[str]]:
        """The primary executor a fallback reached: what it answered, when one answer fits."""
        outputs = list(dict.fromkeys(self.fallback_outputs))
        if len(outputs) == 1:
            return {"returns": outputs[0]}, []
        if outputs:
            return {"returns": outputs[0]}, [
                f"tool_executor: fallbacks answered {len(outputs)} different results; "
                "the first is written"
            ]
        return None, []
