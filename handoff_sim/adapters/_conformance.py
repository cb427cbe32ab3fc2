"""The conformance table: every bundled scenario on handoff-sim and each framework runtime.

``docs/conformance.md`` is written by ``python bench/conformance.py`` from a run, never
by hand. Each scenario runs on each runtime and gets a verdict: passed, failed (with
its first mismatch) or not applicable (with the reason). The differences in delegation
semantics are stated in :data:`DIFFERENCES`, each with the scenarios that expose it;
generating the page checks both ways that they agree with the run — a listed scenario
that no longer fails, or a failure no difference explains, stops the generation — so the
prose cannot drift from the frameworks' behaviour.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from handoff_sim.adapters._errors import ScenarioNotApplicable
from handoff_sim.adapters._registry import RUNTIME_NAMES, runtime_factory
from handoff_sim.errors import CheckFailedError
from handoff_sim.scenarios import LoadedScenario, load_path, run_scenario
from handoff_sim.scenarios._errors import ScenarioError
from handoff_sim.scenarios._expect import Mismatch, show

__all__ = [
    "DIFFERENCES",
    "ConformanceDrift",
    "Difference",
    "Row",
    "Verdict",
    "generate",
    "run_table",
    "versions",
]

Status = Literal["passed", "failed", "not applicable"]
FRAMEWORKS = RUNTIME_NAMES[1:]
_PACKAGES = {
    "openai-agents": "openai-agents",
    "pydantic-ai": "pydantic-ai-slim",
    "langgraph": "langgraph",
}
_CELL = 260  # characters of a failure shown in the table


class ConformanceDrift(CheckFailedError):
    """The run and the stated differences disagree: update :data:`DIFFERENCES` first."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """How one scenario went on one runtime."""

    status: Status
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Row:
    """One scenario (one matrix variant) and its verdict on every runtime."""

    path: str
    scenario: str
    verdicts: Mapping[str, Verdict]


@dataclass(frozen=True, slots=True)
class Difference:
    """A difference in delegation semantics, and the scenarios that expose it per framework."""

    title: str
    text: str
    exposed_by: Mapping[str, Sequence[str]] = field(default_factory=dict)


DIFFERENCES: tuple[Difference, ...] = (
    Difference(
        "A delegation's arguments are checked against its parameters",
        "handoff-sim takes any JSON object as a delegation's arguments: the sub-agent's input "
        "is `task`, else `input`, else the raw text (`{}` reaches the sub-agent as `{}`). "
        "On a framework the delegation has the framework's own parameter — `input` for "
        "openai-agents' `as_tool`, `task: str` for the pydantic-ai delegation function — "
        "and the framework validates the arguments against it, at different moments. "
        "openai-agents validates inside `as_tool`, so under `governed(...)` after the policy "
        "admitted the call: a call without `input` fails with `ModelBehaviorError: Invalid "
        "JSON input for tool ...`, which no retry can fix, so the handoff ends `failed` after "
        "one attempt and the model gets the SDK's own `An error occurred while running the "
        "tool. Please try again.` (the policy's `on_error` still decides). pydantic-ai "
        "validates before the tool runs: such a call never reaches the policy, no handoff is "
        "recorded, and the model gets pydantic-ai's retry prompt (`Field required`). "
        "LangGraph does the same with its own words: the governed tool's parameters are "
        "`task` and optional `context`, LangChain validates them before the tool runs, and "
        "the `ToolNode` answers the model `Error invoking tool ... task: Field required` "
        "(no handoff recorded). "
        "Scenarios that delegate with `{}`, or with another parameter than the framework's "
        "(the bundled recording `slow_subagent_what_if` delegates with `{input}`), show it.",
        {
            "openai-agents": (
                "doc-max-depth-blocks-recursion",
                "retry-recovers",
                "timeout-fallback",
            ),
            "pydantic-ai": (
                "deny-fallback-to-primary",
                "doc-allowed-tools-denies-unlisted",
                "doc-fallback-keeps-parent-alive",
                "doc-max-depth-blocks-recursion",
                "fallback-unavailable-real-wiring",
                "resolve-input-task-and-context",
                "retry-recovers",
                "slow-subagent-what-if[timeout-10s-retry-fallback]",
                "slow-subagent-what-if[timeout-15s]",
                "timeout-fallback",
            ),
            "langgraph": (
                "deny-fallback-to-primary",
                "doc-allowed-tools-denies-unlisted",
                "doc-fallback-keeps-parent-alive",
                "doc-max-depth-blocks-recursion",
                "fallback-unavailable-real-wiring",
                "resolve-input-task-and-context",
                "retry-recovers",
                "slow-subagent-what-if[timeout-10s-retry-fallback]",
                "slow-subagent-what-if[timeout-15s]",
                "timeout-fallback",
            ),
        },
    ),
    Difference(
        "A delegation's arguments are in the framework's shape",
        "A scenario delegates with `{task, context}`, handoff-sim's shape. On a framework that "
        'call reaches the delegation as the framework\'s own parameter — `{"input": ...}` on '
        'openai-agents, `{"task": ...}` on pydantic-ai — holding the text handoff-sim '
        "would give the sub-agent (the task, then `Context:` and the context); any other "
        "arguments reach the framework unchanged. So whatever reads a call's arguments sees "
        "the framework's shape: an input filter that reads or rewrites `task` and `context`, "
        "the primary executor a fallback hands the call to, the arguments of a tool call an "
        "`expect.trace` event names, and a tool's parameters in a script step's expectations. "
        "LangGraph's governed tool takes `{task, context}` itself, so there the call reaches "
        "it unchanged and none of this differs.",
        {
            "openai-agents": (
                "fallback-gets-unfiltered-call",
                "input-filter-python-redacts-only-calls-with-secrets",
                "input-filter-python-sees-the-call-id",
                "input-filter-rewrite",
                "partial-matching",
            ),
            "pydantic-ai": (
                "fallback-gets-unfiltered-call",
                "input-filter-python-redacts-only-calls-with-secrets",
                "input-filter-rewrite",
                "partial-matching",
            ),
        },
    ),
    Difference(
        "A sub-agent that answers with no text",
        "On handoff-sim a final answer without text is `None`: the handoff's output is null and "
        "the envelope has no `output`. openai-agents makes it the empty string (the envelope "
        'carries `"output":""`). pydantic-ai does not accept an empty response as an answer '
        "and asks the model again, so a script with one silent step runs out.",
        {
            "openai-agents": ("envelope-without-output",),
            "pydantic-ai": ("envelope-without-output",),
        },
    ),
    Difference(
        "Two tools with one name",
        "handoff-sim refuses the agent when it is built (`DuplicateToolNameError`). "
        "openai-agents logs a warning (`Tool name collision detected`) and the run goes on "
        "with the names as given; pydantic-ai refuses when the run starts, with its own "
        "`UserError: Tool name conflicts with existing tool`. On LangGraph both tools are "
        "offered to the model and the `ToolNode` keeps the last one of the name, silently.",
        {
            "openai-agents": ("duplicate-generated-names", "flink-duplicate-tool"),
            "pydantic-ai": ("duplicate-generated-names", "flink-duplicate-tool"),
            "langgraph": ("duplicate-generated-names", "flink-duplicate-tool"),
        },
    ),
    Difference(
        "No reserved tool names",
        "handoff-sim reserves the `subagent_` prefix for sub-agent tools and refuses a plain "
        "tool named with it (`ReservedPrefixError`). No framework reserves a name: the "
        "agent is built and runs.",
        {
            "openai-agents": ("flink-plain-tool-with-reserved-prefix",),
            "pydantic-ai": ("flink-plain-tool-with-reserved-prefix",),
            "langgraph": ("flink-plain-tool-with-reserved-prefix",),
        },
    ),
)


def versions() -> dict[str, str]:
    """The installed version of each framework package (``"not installed"`` when missing)."""
    found: dict[str, str] = {}
    for runtime, package in _PACKAGES.items():
        try:
            found[runtime] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            found[runtime] = "not installed"
    return found


def _first_mismatch(mismatches: Sequence[Mismatch]) -> str:
    first = mismatches[0]
    text = f"line {first.line}: {first.field}: {first.message}"
    if first.kind != "trace":
        text += f" (actual: {show(first.actual)})"
    return text


def _verdict(scenario: LoadedScenario, runtime: str) -> Verdict:
    factory = runtime_factory(runtime)
    try:
        result = run_scenario(scenario, runtime=None if factory is None else factory(()))
    except ScenarioNotApplicable as exc:
        return Verdict("not applicable", exc.reason)
    except ScenarioError as exc:
        return Verdict("failed", str(exc))
    if result.passed:
        return Verdict("passed")
    return Verdict("failed", _first_mismatch(result.mismatches))


def _shown(path: Path, root: Path) -> str:
    where, base = path.resolve(), root.resolve()
    return where.relative_to(base).as_posix() if where.is_relative_to(base) else where.name


def run_table(folder: Path, root: Path) -> list[Row]:
    """Run every scenario under ``folder`` on every runtime; paths shown relative to ``root``."""
    rows: list[Row] = []
    for scenario in load_path(folder):
        verdicts = {runtime: _verdict(scenario, runtime) for runtime in RUNTIME_NAMES}
        rows.append(Row(_shown(Path(scenario.path), root), scenario.id, verdicts))
    return rows


def check_differences(rows: Sequence[Row], differences: Sequence[Difference] = DIFFERENCES) -> None:
    """Every failure on a framework is explained by a difference, and every one listed fails."""
    failed = {
        (runtime, row.scenario)
        for row in rows
        for runtime, verdict in row.verdicts.items()
        if verdict.status == "failed"
    }
    listed = {
        (runtime, scenario)
        for difference in differences
        for runtime, scenarios in difference.exposed_by.items()
        for scenario in scenarios
    }
    problems = [
        f"{scenario} fails on {runtime} but no difference explains it"
        for runtime, scenario in sorted(failed - listed)
    ] + [
        f"{scenario} is listed as failing on {runtime} but did not fail"
        for runtime, scenario in sorted(listed - failed)
    ]
    if problems:
        raise ConformanceDrift("; ".join(problems))


# -- the page -------------------------------------------------------------------------------

_INTRO = """\
How each runtime runs a scenario file: **handoff-sim** is the project's own runtime.
**openai-agents** and **pydantic-ai** build every agent the scenario reaches as that
framework's agent, with `SimModel` around the scenario's fake model; its fake tools become
the framework's tools, and every sub-agent is mounted the way that framework's users
delegate, under the parent's policy (the frameworks have no delegation policy of their
own): on openai-agents `governed(child)`, which is `child.as_tool(...)` with its own
`{input}` parameter; on pydantic-ai a delegation tool as its docs write one, a function of
one `task: str` parameter that runs the child agent, under `governed_tool(...)`; on
langgraph each agent is a `create_agent` graph and a sub-agent is that graph used as a
tool (LangChain's multi-agent tool-calling shape), `governed(child)`, whose parameters
are `task` and `context` as in a scenario. A
scenario's `{task, context}` delegation call reaches that parameter as the text
handoff-sim would give the sub-agent (the task, then `Context:` and the context): `input`
on openai-agents, `task` on pydantic-ai (on langgraph it is unchanged); other arguments
reach the framework unchanged, so its own validation answers them. A LangGraph turn
continues the conversation by passing the last turn's messages with the new user message
(no checkpointer), and the calls of one answer run one at a time when the agent says
`parallel_tool_calls: false`. Scenarios delegate only through agents used as tools: a
supervisor's or a swarm's transfer (`Command(goto=...)`) moves control and the whole
message history with it, and comes back (if ever) as messages in the shared history, not
as a tool result, so no scenario is written with one (`governed_handoffs(...)` governs
transfers in Python; docs/adapters.md). All turns run in virtual time under `capture()`, and the
same expectations are checked on the captured trace (docs/adapters.md). A scenario that
needs what a framework does not have — the Flink or SoPhi style, `session_mode:
reuse_session`, a primary executor serving tool names the agent does not offer,
`expect.sessions` — is not applicable there, with the reason; it is neither passed nor
failed.
"""


def _cell(text: str) -> str:
    flat = " ".join(text.split()).replace("|", "\\|")
    return flat if len(flat) <= _CELL else flat[: _CELL - 1] + "…"


def _summary(rows: Sequence[Row]) -> list[str]:
    lines = ["| runtime | passed | failed | not applicable |", "| --- | ---: | ---: | ---: |"]
    for runtime in RUNTIME_NAMES:
        counts = [sum(r.verdicts[runtime].status == s for r in rows) for s in _STATUSES]
        lines.append(f"| {runtime} | " + " | ".join(map(str, counts)) + " |")
    return lines


_STATUSES: tuple[Status, ...] = ("passed", "failed", "not applicable")


def _differences() -> list[str]:
    lines: list[str] = []
    for number, difference in enumerate(DIFFERENCES, 1):
        lines += [f"### {number}. {difference.title}", "", difference.text, ""]
        shown = [
            f"{runtime}: " + ", ".join(f"`{s}`" for s in scenarios)
            for runtime, scenarios in difference.exposed_by.items()
        ]
        lines += ["Exposed by — " + "; ".join(shown) + ".", ""]
    return lines


def _reasons(rows: Sequence[Row]) -> dict[str, str]:
    """Each distinct reason for "not applicable" (without its field path), numbered."""
    found: dict[str, str] = {}
    for row in rows:
        for verdict in row.verdicts.values():
            if verdict.status == "not applicable":
                why = verdict.detail.partition(": ")[2] or verdict.detail
                found.setdefault(why, f"note {len(found) + 1}")
    return found


def _verdict_cell(verdict: Verdict, reasons: Mapping[str, str]) -> str:
    if verdict.status == "passed":
        return "passed"
    if verdict.status == "failed":
        return "**failed**: " + _cell(verdict.detail)
    where, _, why = verdict.detail.partition(": ")
    return f"not applicable ({reasons[why or verdict.detail]}: `{where}`)"


def _table(rows: Sequence[Row], reasons: Mapping[str, str]) -> list[str]:
    lines = [
        "| file | scenario | " + " | ".join(RUNTIME_NAMES) + " |",
        "| --- | --- | " + " | ".join("---" for _ in RUNTIME_NAMES) + " |",
    ]
    for row in rows:
        cells = [_verdict_cell(row.verdicts[r], reasons) for r in RUNTIME_NAMES]
        lines.append(f"| `{row.path}` | `{row.scenario}` | " + " | ".join(cells) + " |")
    return lines


def render(rows: Sequence[Row], found: Mapping[str, str]) -> str:
    """The page: summary, differences, reasons for "not applicable", the full table."""
    reasons = _reasons(rows)
    tested = ", ".join(f"{_PACKAGES[runtime]} {found[runtime]}" for runtime in FRAMEWORKS)
    lines = [
        "# Conformance: the bundled scenarios on handoff-sim, openai-agents, pydantic-ai and "
        "langgraph",
        "",
        "<!-- Generated by `python bench/conformance.py`; do not edit by hand. "
        "tests/adapters/test_conformance.py fails when this file is not what the script "
        "writes. -->",
        "",
        f"Generated from a run of every scenario under `scenarios/` with {tested}.",
        "",
        _INTRO,
        "## Summary",
        "",
        *_summary(rows),
        "",
        "## Differences in delegation semantics the run exposes",
        "",
        "Everything the policy decides — admission by allow and deny lists and depth, the "
        "input filter, retries, per-attempt timeouts that cancel the attempt, `FailureAction`, "
        "the fallback and its `handoff unavailable` result, parallel fan-out, cancellation of "
        "siblings in call order — behaves the same on all four: on a framework it runs through "
        "`governed(...)` or `governed_tool(...)`, the same code with the same events. What "
        "differs is what the "
        "frameworks do around it:",
        "",
        *_differences(),
        "## Why a scenario is not applicable",
        "",
        *[f"- **{label}**: {why}" for why, label in reasons.items()],
        "",
        "## Every scenario",
        "",
        *_table(rows, reasons),
        "",
    ]
    return "\n".join(lines)


def generate(folder: Path, root: Path) -> str:
    """Run the table, check it against :data:`DIFFERENCES`, and return the page."""
    found = versions()
    missing = [runtime for runtime, version in found.items() if version == "not installed"]
    if missing:
        extras = ",".join(missing)
        raise ConformanceDrift(
            f"the conformance table needs every framework: pip install 'handoff-sim[{extras}]'"
        )
    rows = run_table(folder, root)
    check_differences(rows)
    return render(rows, found)
