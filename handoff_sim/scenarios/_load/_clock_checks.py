"""Load-time bounds of ``clock: real``: short latencies and timeouts, no exact times.

A real run waits for real, so every latency and timeout must be small, and a model that
waits forever is refused; the times of a real run vary from run to run, so expecting an
exact one is refused too. Each is reported at the key that is wrong.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from handoff_sim._limits import MAX_REAL_SECONDS
from handoff_sim.scenarios._load._style_checks import Finding
from handoff_sim.scenarios._load._yaml import FieldPath
from handoff_sim.scenarios._schema import ExpectSpec, ScenarioSpec, ScriptModelSpec, StepSpec

__all__ = ["real_clock_findings"]

_TIMES = ("t", "duration_ms")


def real_clock_findings(spec: ScenarioSpec) -> Iterator[Finding]:
    """Every value a ``clock: real`` scenario cannot have, at its key."""
    if spec.clock != "real":
        return
    for name, agent in spec.agents.items():
        at: FieldPath = ("agents", name)
        yield from _model(agent.model, (*at, "model"))
        if agent.tool_executor is not None:
            yield from _duration(agent.tool_executor.latency, (*at, "tool_executor", "latency"))
        yield from _policy(agent.policy, (*at, "policy"))
    for name, tool in spec.tools.items():
        yield from _duration(tool.latency, ("tools", name, "latency"))
        yield from _table(tool, ("tools", name))
    for name, kind in spec.agent_types.items():
        if kind.model is not None:
            yield from _model(kind.model, ("agent_types", name, "model"))
    yield from _exact_times(spec.expect, ("expect",))
    for index, variant in enumerate(spec.matrix or ()):
        for agent_name, patch in variant.policies.items():
            yield from _policy(patch, ("matrix", index, "policies", agent_name))
        if variant.expect is not None:
            yield from _exact_times(variant.expect, ("matrix", index, "expect"))


def _table(tool: Any, at: FieldPath) -> Iterator[Finding]:
    """A fake tool's answers, sequence and default: small latencies, and no timeout fault."""
    entries: list[tuple[FieldPath, Any]] = [
        (("answers", i), a) for i, a in enumerate(tool.answers or ())
    ]
    entries += [(("sequence", i), s) for i, s in enumerate(tool.sequence or ()) if s is not None]
    entries += [(("default",), tool.default)] if tool.default is not None else []
    for place, entry in entries:
        yield from _duration(entry.latency, (*at, *place, "latency"))
        if entry.timeout:
            yield (*at, *place, "timeout"), "a call that never answers: not under clock: real"


def _duration(seconds: float | None, at: FieldPath) -> Iterator[Finding]:
    if seconds is not None and seconds > MAX_REAL_SECONDS:
        yield at, f"must be <= {MAX_REAL_SECONDS:g}s under clock: real (a real run waits for it)"


def _policy(policy: Any, at: FieldPath) -> Iterator[Finding]:
    if policy is not None:
        yield from _duration(getattr(policy, "timeout", None), (*at, "timeout"))


def _model(model: Any, at: FieldPath) -> Iterator[Finding]:
    """Script latencies; an adversarial model asked to never answer."""
    if not isinstance(model, ScriptModelSpec):
        return  # a plugin's model kind: only the run's deadline bounds it
    for index, step in enumerate(model.script or ()):
        if isinstance(step, StepSpec):
            yield from _duration(step.latency, (*at, "script", index, "latency"))
    behaviours = model.adversarial.behaviours if model.adversarial is not None else None
    for index, behaviour in enumerate(behaviours or ()):
        if behaviour == "endless_latency":
            yield (
                (*at, "adversarial", "behaviours", index),
                "endless_latency never answers: not under clock: real",
            )


def _exact_times(expect: ExpectSpec, at: FieldPath) -> Iterator[Finding]:
    """Exact times, which differ from one real run to the next."""
    why = "the times of a clock: real run vary; expect no exact time"
    if expect.elapsed is not None:
        yield (*at, "elapsed"), why
    for index, handoff in enumerate(expect.handoffs or ()):
        for key in ("duration", "duration_ms"):
            if getattr(handoff, key, None) is not None:
                yield (*at, "handoffs", index, key), why
    trace = expect.trace_spec()
    if trace is None:
        return
    base: FieldPath = (*at, "trace") if isinstance(expect.trace, list) else (*at, "trace", "events")
    for index, pattern in enumerate(trace.events):
        for key in _TIMES:
            if key in pattern and not isinstance(pattern[key], dict):
                yield (*base, index, key), why
