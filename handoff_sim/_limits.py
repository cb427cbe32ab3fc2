"""Upper bounds on every number a user or a file can give, and the default run budget.

A bound keeps one typo (``max_retries: 1000000000``) from running for minutes and eating
the machine: values above it are refused where they are given, with the bound in the
message. The budget ends any run in bounded work, even one no bound catches (a cycle of
sub-agents wired in Python with an unlimited depth).
"""

from __future__ import annotations

__all__ = [
    "DEFAULT_MAX_HANDOFFS",
    "DEFAULT_MAX_MODEL_CALLS",
    "MAX_FAN_OUT",
    "MAX_NESTING",
    "MAX_OVERSIZED_BYTES",
    "MAX_PATTERN_CHECK_SECONDS",
    "MAX_PATTERN_SECONDS",
    "MAX_PATTERN_SIZE",
    "MAX_REAL_GRACE_SECONDS",
    "MAX_REAL_RUN_SECONDS",
    "MAX_REAL_SECONDS",
    "MAX_RETRIES",
    "MAX_SCENARIO_FILE_BYTES",
    "MAX_SCHEMA_CHARS",
    "MAX_SCHEMA_VALUES",
    "MAX_SECONDS",
    "MAX_STEPS",
    "MAX_TRACE_FILE_BYTES",
    "MAX_TURNS",
    "MAX_YAML_DEPTH",
    "MAX_YAML_NODES",
]

MAX_RETRIES = 100
"""``HandoffPolicy.max_retries``: at most 101 attempts per handoff."""

MAX_STEPS = 10_000
"""``Agent.max_steps``: model calls in one agent run."""

MAX_TURNS = 10_000
"""Adversarial ``max_turns``, and the turns of one scenario run."""

MAX_FAN_OUT = 10_000
"""Adversarial ``fan_out``: tool calls the model asks for in one turn."""

MAX_OVERSIZED_BYTES = 10_000_000
"""Adversarial ``oversized_bytes``: 10 MB of arguments in one call."""

MAX_SECONDS = 366 * 24 * 3600.0
"""Any latency or timeout: one (virtual) year."""

MAX_REAL_SECONDS = 1.0
"""Scenario files with ``clock: real``: any latency or timeout, in real seconds."""

MAX_REAL_RUN_SECONDS = 10.0
"""Scenario files with ``clock: real``: the whole run (every turn), in real seconds."""

MAX_REAL_GRACE_SECONDS = 1.0
"""Scenario files with ``clock: real``: how long work cancelled at the deadline may take to
end before it is abandoned (the run has failed by then either way)."""

MAX_PATTERN_SECONDS = 1.0
"""A user's regular expression (``{match: ...}``, ``error.match``) against one text: past it
the match stops and its expectation fails. Counted in processor seconds while it matches
(the ``regex`` module's timeout), which are real seconds unless the machine is busy."""

MAX_PATTERN_CHECK_SECONDS = 5.0
"""Every regular expression of one scenario's expectations together, in real seconds."""

MAX_PATTERN_SIZE = 100_000
"""A user's regular expression, counted with its repeats written out (``(?:a{100}){100}``
counts 10,000): the matching engine unrolls counted repeats, about 300 bytes each."""

MAX_NESTING = 200
"""Agent runs nested inside one another (handoff inside handoff) in one run."""

MAX_YAML_DEPTH = 100
"""Scenario files: mappings and lists nested in one another, aliases expanded."""

MAX_YAML_NODES = 1_000_000
"""Scenario files: values in one document once aliases are expanded (no "billion laughs")."""

MAX_SCHEMA_VALUES = 20_000
"""Schema-driven arguments (``SchemaModel``, ``AdversarialModel``): the work one argument
set may take. Each schema entered counts one (an alternative tried and given up included,
each ``$ref`` followed), and so does each property, ``required`` entry, ``allOf`` member and
``$ref`` step looked at; an array's items are schemas entered. A ``$ref`` or array fan-out
past it is refused where the budget ran out."""

MAX_SCHEMA_CHARS = 1_000_000
"""Schema-driven arguments: the characters of one argument set's strings and keys (1 MB)."""

MAX_SCENARIO_FILE_BYTES = 10_000_000
"""Scenario files: 10 MB of YAML (a bundled example is under 10 KB)."""

MAX_TRACE_FILE_BYTES = 1 << 30
"""OTLP/JSON files read by ``handoff-sim check`` and ``read_otlp``: 1 GiB (about a million
compact spans)."""

DEFAULT_MAX_MODEL_CALLS = 10_000
"""Model calls across one top-level run or one Simulation, unless given otherwise."""

DEFAULT_MAX_HANDOFFS = 10_000
"""Handoffs across one top-level run or one Simulation, unless given otherwise."""
