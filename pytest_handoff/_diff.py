"""A readable explanation of two traces that differ (for ``pytest_assertrepr_compare``)."""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from handoff_sim import Trace

__all__ = ["trace_diff_lines"]


def trace_diff_lines(left: Trace, right: Trace, *, verbose: int = 0) -> list[str]:
    """Explain ``left == right`` failing for two traces: the first difference, then a diff."""
    old, new = left.render().splitlines(), right.render().splitlines()
    first = next((i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), None)
    if first is None:
        first = min(len(old), len(new))
    lines = [
        f"Trace({len(left)} events) == Trace({len(right)} events): "
        f"first difference at event {first + 1}",
        f"left:  {old[first] if first < len(old) else '(no more events)'}",
        f"right: {new[first] if first < len(new) else '(no more events)'}",
        "",
    ]
    context = 1 if verbose <= 0 else max(len(old), len(new))
    lines += list(difflib.unified_diff(old, new, "left", "right", n=context, lineterm=""))
    if verbose > 0:
        tree_old, tree_new = left.render_tree().splitlines(), right.render_tree().splitlines()
        if tree_old != tree_new:
            lines += ["", "handoff trees:"]
            lines += list(difflib.unified_diff(tree_old, tree_new, "left", "right", lineterm=""))
    return lines
