"""Hypothesis entry point: ``st.from_type(HandoffPolicy)`` draws valid policies (T6).

Hypothesis calls :func:`_hypothesis_setup_hook` when it is imported, without
catching errors, so the hook swallows any failure: a broken install must never
break hypothesis for the whole environment.
"""

from __future__ import annotations

__all__: list[str] = []


def _hypothesis_setup_hook() -> None:
    try:
        from hypothesis import strategies as st

        from handoff_sim.strategies import policies
        from handoff_sim.subagents import HandoffPolicy

        st.register_type_strategy(HandoffPolicy, policies())
    except Exception:
        return
