"""Register ``st.from_type(HandoffPolicy)`` with hypothesis, whichever loads first.

The hypothesis entry point (``pytest_handoff._hypothesis``, outside this package so
that it never imports the runtime) calls :func:`register_policy_strategy` when the
runtime is already loaded; otherwise the policy module calls it when it is imported
and hypothesis is. Any failure is swallowed: a broken install must never break
hypothesis for the whole environment.
"""

from __future__ import annotations

import sys
from typing import Any

__all__: list[str] = []

_POLICY_MODULE = "handoff_sim.subagents.policy"


def _policies() -> Any:
    from handoff_sim.strategies import policies

    return policies()


def register_policy_strategy() -> None:
    """Register ``HandoffPolicy`` with hypothesis (idempotent, never raises)."""
    try:
        from hypothesis import strategies as st

        policy_type = sys.modules[_POLICY_MODULE].HandoffPolicy
        st.register_type_strategy(policy_type, lambda _type: _policies())
    except Exception:
        return
