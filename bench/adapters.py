#!/usr/bin/env python3
"""The framework adapters' overhead, and what virtual time saves on a run with latencies.

For each framework (openai-agents, pydantic-ai, LangGraph) one run is a triage agent
that delegates to ``--handoffs`` agents used as tools in one turn, then answers
(``langgraph-supervisor``: a supervisor handing off to as many workers in one turn,
``parallel_tool_calls=True``, each worker transferring back):

- ``framework``: the run without handoff-sim — the framework's own test model
  (openai-agents ``agents.testing.ScriptedModel``, pydantic-ai ``FunctionModel``),
  plain delegations (``Agent.as_tool``; a tool that runs another agent), ``asyncio.run``,
  tracing off (openai-agents) as a test without handoff-sim would run it; LangGraph's
  runs use handoff-sim's ``SimChatModel`` here too (langchain-core's fakes cannot bind
  tools), so its ratio is ``capture()`` and virtual time alone (bench/_lg_runs.py);
- ``handoff-sim``: the same run with handoff-sim's ``SimModel(ScriptedModel)`` and the same
  plain delegations, under ``simulate_run`` (``capture()`` and virtual time);
- ``governed``: the same, each delegation under ``governed(...)`` (the policy's own work;
  the supervisor's handoff tools under ``governed_handoffs(...)``);
- ``callbacks only`` (LangGraph): the ``framework`` run with a LangChain callback handler
  that does nothing, joined as ``capture()`` joins its own: the observation point's cost.

Wall and CPU time of the run alone (agents are built beforehand), per handoff, median
of ``--repeats`` rounds; the variants of a round run back to back, so the ratios to
``framework`` come from one run of this script (target: ``handoff-sim`` within 1.2x).
``latency`` is a run whose models take 0.5 s (triage, twice) and 1 s (each agent used
as a tool, in parallel): 2 s of real time under ``asyncio.run`` (median of 5), against
the same run in virtual time under ``simulate_run``; ``latency_sum_ms`` is every model
call's latency added up (1 s + 1 s per handoff), what a run one call at a time would
wait. JSON lines on stdout, a table on stderr.

    python bench/adapters.py [--handoffs 8] [--repeats 9] [--frameworks langgraph ...]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Record, emit, machine, median, print_table
from _lg_runs import EXTRA_VARIANTS, lg_agents_run, lg_supervisor_run

Run = Callable[[], Any]
VARIANTS = ("framework", "handoff-sim", "governed")
LATENCY = 0.5  # seconds of each triage model call; an agent used as a tool takes twice that


# -- openai-agents ----------------------------------------------------------------------------


def _oai_script(n: int, latency: float = 0.0) -> list[dict[str, Any]]:
    calls = [{"id": f"c{i}", "name": f"ask{i}", "arguments": {"input": "x"}} for i in range(n)]
    return [{"tool_calls": calls, "latency": latency}, {"text": "done", "latency": latency}]


def oai_run(variant: str, n: int, latency: float = 0.0, *, real: bool = False) -> Run:
    """A fresh openai-agents run of ``variant`` (built now, run when called)."""
    from agents import Agent, RunConfig, Runner

    if variant == "framework":
        from agents.testing import ScriptedModel as SdkScripted
        from agents.testing import assistant_message, function_call

        subs = [
            Agent(name=f"sub{i}", model=SdkScripted([[assistant_message("out")]])) for i in range(n)
        ]
        calls = [function_call(f"ask{i}", {"input": "x"}, call_id=f"c{i}") for i in range(n)]
        triage = Agent(
            name="triage",
            model=SdkScripted([calls, [assistant_message("done")]]),
            tools=[s.as_tool(f"ask{i}", "Ask") for i, s in enumerate(subs)],
        )
        config = RunConfig(tracing_disabled=True)
        return lambda: asyncio.run(Runner.run(triage, "go", run_config=config))

    from handoff_sim.adapters.openai_agents import SimModel, governed, simulate_run
    from handoff_sim.testing import ScriptedModel

    subs = [
        Agent(
            name=f"sub{i}", model=SimModel(ScriptedModel([{"text": "out", "latency": 2 * latency}]))
        )
        for i in range(n)
    ]
    tools: list[Any]
    if variant == "governed":
        tools = [
            governed(s, tool_name=f"ask{i}", tool_description="Ask") for i, s in enumerate(subs)
        ]
    else:
        tools = [s.as_tool(f"ask{i}", "Ask") for i, s in enumerate(subs)]
    model = SimModel(ScriptedModel(_oai_script(n, latency)))
    triage = Agent(name="triage", model=model, tools=tools)
    if real:
        config = RunConfig(tracing_disabled=True)
        return lambda: asyncio.run(Runner.run(triage, "go", run_config=config))
    return lambda: simulate_run(lambda: Runner.run(triage, "go"))


# -- pydantic-ai ------------------------------------------------------------------------------


def _pai_framework(n: int) -> Run:
    from pydantic_ai import Agent, RunContext
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import FunctionModel

    def scripted(*responses: ModelResponse) -> FunctionModel:
        left = list(responses)
        return FunctionModel(lambda messages, info: left.pop(0))

    subs = [Agent(scripted(ModelResponse([TextPart("out")])), name=f"sub{i}") for i in range(n)]
    calls = [ToolCallPart(f"ask{i}", {"task": "x"}, tool_call_id=f"c{i}") for i in range(n)]
    triage = Agent(scripted(ModelResponse(calls), ModelResponse([TextPart("done")])), name="triage")
    for i, sub in enumerate(subs):
        _delegating(triage, sub, f"ask{i}", RunContext)
    return lambda: asyncio.run(triage.run("go"))


def _delegating(parent: Any, child: Any, name: str, context: Any) -> None:
    """pydantic-ai's documented delegation: a tool that runs another agent."""

    async def delegate(ctx: Any, task: str) -> str:
        return str((await child.run(task, usage=ctx.usage)).output)

    # real annotations: pydantic-ai reads them to see that the tool takes the run context
    delegate.__annotations__ = {"ctx": context, "task": str, "return": str}
    parent.tool(name=name)(delegate)


def pai_run(variant: str, n: int, latency: float = 0.0, *, real: bool = False) -> Run:
    """A fresh pydantic-ai run of ``variant`` (built now, run when called)."""
    if variant == "framework":
        return _pai_framework(n)
    from pydantic_ai import Agent, RunContext

    from handoff_sim.adapters.pydantic_ai import SimModel, governed, simulate_run
    from handoff_sim.testing import ScriptedModel

    subs = [
        Agent(SimModel(ScriptedModel([{"text": "out", "latency": 2 * latency}])), name=f"sub{i}")
        for i in range(n)
    ]
    calls = [{"id": f"c{i}", "name": f"ask{i}", "arguments": {"task": "x"}} for i in range(n)]
    script = [{"tool_calls": calls, "latency": latency}, {"text": "done", "latency": latency}]
    tools = (
        [governed(s, name=f"ask{i}") for i, s in enumerate(subs)] if variant == "governed" else []
    )
    triage = Agent(SimModel(ScriptedModel(script)), name="triage", tools=tools)
    if variant != "governed":
        for i, sub in enumerate(subs):
            _delegating(triage, sub, f"ask{i}", RunContext)
    if real:
        return lambda: asyncio.run(triage.run("go"))
    return lambda: simulate_run(lambda: triage.run("go"))


BUILDERS: dict[str, tuple[str, str, Callable[..., Run]]] = {
    # framework: (module it needs, the extra that installs it, the run builder)
    "openai-agents": ("agents", "openai-agents", oai_run),
    "pydantic-ai": ("pydantic_ai", "pydantic-ai", pai_run),
    "langgraph": ("langgraph", "langgraph", lg_agents_run),
    "langgraph-supervisor": ("langgraph_supervisor", "langgraph", lg_supervisor_run),
}


# -- measuring --------------------------------------------------------------------------------


def timed(run: Run) -> tuple[float, float]:
    """Wall and CPU milliseconds of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    run()
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000


def overhead(framework: str, build: Callable[..., Run], n: int, repeats: int) -> list[Record]:
    """Per-handoff wall and CPU of each variant, rounds interleaved; ratios to ``framework``."""
    variants = (*VARIANTS, *(EXTRA_VARIANTS if framework.startswith("langgraph") else ()))
    samples: dict[str, list[tuple[float, float]]] = {v: [] for v in variants}
    for round_number in range(repeats + 2):  # two warm-up rounds
        for variant in variants:
            run = build(variant, n)
            measured = timed(run)
            if round_number >= 2:
                samples[variant].append(measured)
    base_wall = median(w for w, _ in samples["framework"])
    base_cpu = median(c for _, c in samples["framework"])
    records = []
    for variant in variants:
        wall = median(w for w, _ in samples[variant])
        cpu = median(c for _, c in samples[variant])
        records.append(
            {
                "bench": "adapters",
                "framework": framework,
                # not a handoff-sim run: a reference line, not a target (bench/report.py)
                "case": "observation point" if variant in EXTRA_VARIANTS else "overhead",
                "variant": variant,
                "handoffs": n,
                "repeats": repeats,
                "wall_ms_per_handoff": round(wall / n, 4),
                "cpu_ms_per_handoff": round(cpu / n, 4),
                "wall_ratio": round(wall / base_wall, 3),
                "cpu_ratio": round(cpu / base_cpu, 3),
            }
        )
    return records


def speed_up(framework: str, build: Callable[..., Run], n: int, repeats: int) -> Record:
    """Real time of a run with model latencies against the same run in virtual time."""
    real = [timed(build("handoff-sim", n, LATENCY, real=True)) for _ in range(5)]
    virtual = [timed(build("handoff-sim", n, LATENCY)) for _ in range(repeats)]
    real_wall = median(w for w, _ in real)
    virtual_wall = median(w for w, _ in virtual)
    return {
        "bench": "adapters",
        "framework": framework,
        "case": "latency",
        "variant": "virtual time",
        "handoffs": n,
        "repeats": repeats,
        "model_latency_ms": 4 * LATENCY * 1000,
        "latency_sum_ms": (2 + 2 * n) * LATENCY * 1000,
        "real_wall_ms": round(real_wall, 2),
        "virtual_wall_ms": round(virtual_wall, 2),
        "virtual_cpu_ms": round(median(c for _, c in virtual), 2),
        "speed_up": round(real_wall / virtual_wall, 1),
        "speed_up_vs_sum": round((2 + 2 * n) * LATENCY * 1000 / virtual_wall, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--handoffs", type=int, default=8, help="agents used as tools per run")
    parser.add_argument("--repeats", type=int, default=9, help="measured rounds (median)")
    parser.add_argument(
        "--frameworks",
        nargs="+",
        choices=list(BUILDERS),
        default=list(BUILDERS),
        help="measure only these (default: every installed one)",
    )
    args = parser.parse_args()
    if args.repeats < 5:
        parser.error("--repeats must be at least 5 (the figures are medians)")
    emit({"bench": "adapters", "machine": machine()})
    rows: list[Record] = []
    for framework in args.frameworks:
        module, extra, build = BUILDERS[framework]
        if importlib.util.find_spec(module) is None:
            print(
                f"{framework}: not installed, skipped (pip install 'handoff-sim[{extra}]')",
                file=sys.stderr,
            )
            continue
        for record in [*overhead(framework, build, args.handoffs, args.repeats)]:
            emit(record)
            rows.append(record)
        record = speed_up(framework, build, args.handoffs, args.repeats)
        emit(record)
        rows.append(record)
    print_table(
        [r for r in rows if r["case"] in ("overhead", "observation point")],
        [
            ("framework", "framework"),
            ("variant", "variant"),
            ("wall ms/handoff", "wall_ms_per_handoff"),
            ("cpu ms/handoff", "cpu_ms_per_handoff"),
            ("wall ratio", lambda r: f"{r['wall_ratio']:.2f}x"),
            ("cpu ratio", lambda r: f"{r['cpu_ratio']:.2f}x"),
        ],
        title=f"adapter overhead: {args.handoffs} agents as tools a run, median of {args.repeats}",
    )
    print_table(
        [r for r in rows if r["case"] == "latency"],
        [
            ("framework", "framework"),
            ("real wall ms", "real_wall_ms"),
            ("virtual wall ms", "virtual_wall_ms"),
            ("virtual cpu ms", "virtual_cpu_ms"),
            ("speed-up", lambda r: f"{r['speed_up']:.0f}x"),
            ("latency sum ms", "latency_sum_ms"),
            ("vs sum", lambda r: f"{r['speed_up_vs_sum']:.0f}x"),
        ],
        title="virtual time: 2 s of model latency (0.5 s + 1 s in parallel + 0.5 s)",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
