"""Hypothesis profiles for the fuzz tests: bounded and deadline-free, ``ci`` derandomized."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

# Re-registering "ci" reloads it when hypothesis detected CI (the CI env var) at import.
settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    database=None,
    print_blob=True,
    max_examples=25,
    suppress_health_check=[HealthCheck.too_slow],
)
