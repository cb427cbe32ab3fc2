"""Matching one expected value pattern against one actual value, captures included.

The written form is described (and checked at load) in the schema's ``_patterns``; the
matchers themselves live below the scenario engine (``handoff_sim._matchers``), where the
trajectory checks and the data-driven fakes read the same rules.
"""

from __future__ import annotations

from handoff_sim._matchers import Bindings, resolved, same, text_matches, value_matches

__all__ = ["Bindings", "resolved", "same", "text_matches", "value_matches"]
