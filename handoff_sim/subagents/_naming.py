"""Tool names for sub-agents: the generated default and the explicit-name check."""

from __future__ import annotations

import re

from handoff_sim._errors._configuration import InvalidNameError

__all__ = ["SUBAGENT_PREFIX", "check_explicit_tool_name", "normalize_tool_name"]

SUBAGENT_PREFIX = "subagent_"
_NOT_ALLOWED = re.compile(r"[^a-z0-9_]")
_UNDERSCORES = re.compile(r"_+")
_EXPLICIT = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def normalize_tool_name(name: str) -> str:
    """The default tool name of a sub-agent called ``name``.

    Lower-case; anything outside ``[a-z0-9_]`` (every non-ASCII character too)
    becomes ``_``; runs of ``_`` collapse; outer ``_`` go; empty becomes
    ``agent``; a leading digit gets ``agent_``; then the ``subagent_`` prefix.
    ``code-reviewer`` → ``subagent_code_reviewer``, ``3d-modeler`` →
    ``subagent_agent_3d_modeler``, ``数据分析`` → ``subagent_agent``.
    """
    text = _NOT_ALLOWED.sub("_", name.strip().lower())
    text = _UNDERSCORES.sub("_", text).strip("_")
    if not text:
        text = "agent"
    elif text[0].isdigit():
        text = f"agent_{text}"
    return SUBAGENT_PREFIX + text


def check_explicit_tool_name(tool_name: str) -> str:
    """Trim an explicit tool name and check it against ``^[A-Za-z0-9_-]{1,64}$``."""
    trimmed = tool_name.strip()
    if not _EXPLICIT.match(trimmed):
        raise InvalidNameError(
            f"invalid subagent tool_name {tool_name!r}: must match ^[A-Za-z0-9_-]{{1,64}}$"
        )
    return trimmed
