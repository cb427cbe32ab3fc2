"""Hypothesis entry point of handoff-sim: free unless the runtime is loaded.

Hypothesis runs this hook every time it is imported, in every environment where
handoff-sim is installed. It lives here because ``pytest_handoff`` imports nothing
on its own, while importing anything under ``handoff_sim`` loads the runtime.
"""

from __future__ import annotations

import sys

__all__: list[str] = []


def _hypothesis_setup_hook() -> None:
    if "handoff_sim.subagents.policy" in sys.modules:
        from handoff_sim._hypothesis_plugin import register_policy_strategy

        register_policy_strategy()
