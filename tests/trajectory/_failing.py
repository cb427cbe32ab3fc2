"""Failing variants of the bundled trajectory scenarios: each mode, argument mode, bound and
scope with an expectation the run breaks, and the failure lines it must print."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

BUNDLED = Path(__file__).resolve().parents[2] / "scenarios" / "trajectories"


def bundled(file: str, name: str) -> dict[str, Any]:
    """The scenario ``name`` of ``scenarios/trajectories/<file>``, as plain data."""
    data = yaml.safe_load((BUNDLED / file).read_text(encoding="utf-8"))
    return next(s for s in data["scenarios"] if s["scenario"] == name)


# (id, bundled file, scenario, the failing expect, lines the failure must print)
VARIANTS: list[tuple[str, str, str, dict[str, Any], list[str]]] = [
    (
        "mode-exact",
        "modes.yaml",
        "trajectory-exact",
        {"trajectory": {"scope": {"agent": "billing"}, "calls": ["sql", "lookup", "sql"]}},
        [
            (
                'out of order: call 1 {tool: "lookup"} was expected right after #2 sql '
                '{"query":"select refunds","limit":10} by billing (depth 1), but the '
                'call that fits it comes later: #8 lookup {"account":"A-7"} by billing '
                "(depth 1)"
            ),
        ],
    ),
    (
        "mode-subsequence",
        "modes.yaml",
        "trajectory-subsequence",
        {"trajectory": {"mode": "subsequence", "calls": ["lookup", "delegate_billing"]}},
        [
            (
                'out of order: call 1 {tool: "delegate_billing"} was expected after #8 '
                'lookup {"account":"A-7"} by billing (depth 1), but the call that fits '
                'it comes before: #1 delegate_billing {"task":"bill"} by manager (depth '
                "0)"
            ),
        ],
    ),
    (
        "mode-per-branch",
        "modes.yaml",
        "trajectory-per-branch",
        {
            "trajectory": {
                "mode": "per_branch",
                "calls": [
                    {"tool": "lookup", "agent": "billing"},
                    {"tool": "sql", "agent": "billing"},
                ],
            }
        },
        [
            (
                'out of order: call 1 {tool: "sql", agent: "billing"} was expected after '
                '#8 lookup {"account":"A-7"} by billing (depth 1), but the call that '
                "fits it comes before: #2 sql"
            ),
        ],
    ),
    (
        "mode-unordered",
        "modes.yaml",
        "trajectory-unordered",
        {
            "trajectory": {
                "mode": "unordered",
                "scope": {"agent": "billing"},
                "calls": ["lookup", "sql", "search"],
            }
        },
        [
            (
                'missing: call 2 {tool: "search"} was not called in the scope; a call '
                'outside it fits: #4 search {"q":"refund policy"} by research (depth 1)'
            ),
            (
                'extra: #7 sql {"query":"select invoices","limit":10} by billing (depth '
                '1) is one call too many: call 1 {tool: "sql"} fits it (taken by #2)'
            ),
        ],
    ),
    (
        "mode-superset",
        "modes.yaml",
        "trajectory-superset",
        {
            "trajectory": {
                "mode": "superset",
                "calls": ["lookup", {"tool": "search", "args": {"q": "build step"}}],
            }
        },
        [
            (
                'missing: call 1 {tool: "search", args: {"q": "build step"}} was not '
                'called; nearest: #6 search {"q":"build steps"} by worker (depth 2) '
                "(differs in args.q)"
            ),
        ],
    ),
    (
        "mode-subset",
        "modes.yaml",
        "trajectory-subset",
        {
            "trajectory": {
                "mode": "subset",
                "scope": {"handoff": "delegate_research"},
                "calls": ["search", "delegate_worker"],
            }
        },
        [
            (
                'extra: #6 search {"q":"build steps"} by worker (depth 2) is one call '
                'too many: call 0 {tool: "search"} fits it (taken by #4)'
            ),
        ],
    ),
    (
        "args-exact",
        "argument_modes.yaml",
        "args-exact",
        {
            "trajectory": {
                "mode": "superset",
                "calls": [{"tool": "sql", "args": {"query": "select refunds"}}],
            }
        },
        [
            (
                'nearest: #2 sql {"query":"select refunds","limit":10} by billing (depth '
                "1) (differs in args.limit)"
            ),
        ],
    ),
    (
        "args-ignore",
        "argument_modes.yaml",
        "args-ignore",
        {
            "trajectory": {
                "scope": {"agent": "billing"},
                "args_mode": "ignore",
                "calls": ["sql", "lookup"],
            }
        },
        [
            (
                'trajectory does not hold (mode: exact, scope: {agent: "billing"}, '
                "args_mode: ignore): 1 problem(s)"
            ),
            "extra: #7 sql",
        ],
    ),
    (
        "args-subset",
        "argument_modes.yaml",
        "args-subset",
        {
            "trajectory": {
                "mode": "superset",
                "calls": [{"tool": "lookup", "args_mode": "subset", "args": {"region": "eu"}}],
            }
        },
        [
            (
                'missing: call 0 {tool: "lookup", args: {"region": "eu"}, args_mode: '
                '"subset"} was not called; nearest: #8 lookup {"account":"A-7"} by '
                "billing (depth 1) (differs in args.account)"
            ),
        ],
    ),
    (
        "args-superset",
        "argument_modes.yaml",
        "args-superset",
        {
            "trajectory": {
                "mode": "superset",
                "args_mode": "superset",
                "calls": [{"tool": "sql", "args": {"order": "desc"}}],
            }
        },
        [
            "args_mode: superset): 1 problem(s)",
            "(differs in args.order)",
        ],
    ),
    (
        "args-matcher",
        "argument_modes.yaml",
        "args-matcher",
        {
            "trajectory": {
                "mode": "superset",
                "calls": [{"tool": "search", "args": {"subset": {"q": {"match": "^deploy"}}}}],
            }
        },
        [
            (
                'missing: call 0 {tool: "search", args: {"subset": {"q": {"match": '
                '"^deploy"}}}} was not called; nearest: #6 search {"q":"build steps"} by '
                "worker (depth 2) (differs in args)"
            ),
        ],
    ),
    (
        "args-per-tool",
        "argument_modes.yaml",
        "args-per-tool",
        {
            "trajectory": {
                "scope": {"agent": "billing"},
                "tool_args_modes": {"sql": "ignore"},
                "calls": [
                    {"tool": "sql"},
                    {"tool": "sql"},
                    {"tool": "lookup", "args": {"account": "B-1"}},
                ],
            }
        },
        [
            (
                'missing: call 2 {tool: "lookup", args: {"account": "B-1"}} was not '
                'called; nearest: #8 lookup {"account":"A-7"} by billing (depth 1) '
                "(differs in args.account)"
            ),
        ],
    ),
    (
        "bound-count",
        "bounds.yaml",
        "bound-count",
        {"trajectory": {"mode": "superset", "calls": [{"tool": "sql", "count": 3}]}},
        [
            (
                'count: call 0 {tool: "sql", count: 3} fits 2 call(s) of the scope (#2, '
                "#7), expected count 3"
            ),
        ],
    ),
    (
        "bound-min",
        "bounds.yaml",
        "bound-min",
        {"trajectory": {"mode": "superset", "calls": [{"tool": "search", "min": 3}]}},
        [
            (
                'count: call 0 {tool: "search", min: 3} fits 2 call(s) of the scope (#4, '
                "#6), expected min 3"
            ),
        ],
    ),
    (
        "bound-max",
        "bounds.yaml",
        "bound-max",
        {"trajectory": {"mode": "superset", "calls": [{"tool": "sql", "max": 1}]}},
        [
            (
                'count: call 0 {tool: "sql", max: 1} fits 2 call(s) of the scope (#2, '
                "#7), expected max 1"
            ),
        ],
    ),
    (
        "bound-range",
        "bounds.yaml",
        "bound-range",
        {
            "trajectory": {
                "scope": {"agent": "billing"},
                "calls": [{"tool": {"match": "."}, "min": 1, "max": 2}],
            }
        },
        [
            (
                'count: call 0 {tool: {"match": "."}, min: 1, max: 2} fits 3 call(s) of '
                "the scope (#2, #7, #8), expected 1 to 2"
            ),
            (
                'is one call too many: call 0 {tool: {"match": "."}, min: 1, max: 2} '
                "fits it, but its bound is full"
            ),
        ],
    ),
    (
        "tool-runs-bound",
        "bounds.yaml",
        "tool-runs-bounds",
        {"tool_runs": {"sql": {"max": 1}, "lookup": {"count": 2, "arguments": {"account": "A-7"}}}},
        [
            "expect.tool_runs.sql: tool 'sql' ran 2 time(s), expected at most 1",
            (
                "expect.tool_runs.lookup: tool 'lookup' ran 1 time(s) with arguments "
                "that fit (of 1 run(s)), expected 2"
            ),
        ],
    ),
    (
        "scope-agent",
        "scopes.yaml",
        "scope-agent",
        {"trajectory": {"scope": {"agent": "worker"}, "calls": ["search", "sql"]}},
        [
            'scope: {agent: "worker"}',
            (
                'missing: call 1 {tool: "sql"} was not called in the scope; a call '
                "outside it fits: #2 sql"
            ),
        ],
    ),
    (
        "scope-handoff",
        "scopes.yaml",
        "scope-handoff",
        {
            "trajectory": {
                "scope": {"handoff": "delegate_billing", "agent": "billing"},
                "mode": "superset",
                "calls": [{"tool": "sql", "count": 2}, "search"],
            }
        },
        [
            'scope: {agent: "billing", handoff: "delegate_billing"}',
            (
                'missing: call 1 {tool: "search"} was not called in the scope; a call '
                "outside it fits: #4 search"
            ),
        ],
    ),
    (
        "scope-depth",
        "scopes.yaml",
        "scope-depth",
        {"trajectory": {"scope": {"depth": 2}, "calls": ["search", "search"]}},
        [
            "scope: {depth: 2}",
            (
                'missing: call 1 {tool: "search"} was not called in the scope; a call '
                'outside it fits: #4 search {"q":"refund policy"} by research (depth 1)'
            ),
        ],
    ),
    (
        "scope-branch",
        "scopes.yaml",
        "scope-branch",
        {
            "trajectory": {
                "scope": {"branch": ["manager", "research", "worker"]},
                "calls": ["delegate_worker"],
            }
        },
        [
            'scope: {branch: ["manager", "research", "worker"]}',
            (
                'missing: call 0 {tool: "delegate_worker"} was not called in the scope; '
                'a call outside it fits: #5 delegate_worker {"task":"build"} by research '
                "(depth 1)"
            ),
        ],
    ),
]


def failing_file() -> str:
    """One scenario file holding every failing variant, named by its id."""
    scenarios = []
    for ident, file, name, expect, _ in VARIANTS:
        scenario = bundled(file, name)
        scenarios.append({**scenario, "scenario": ident, "expect": expect})
    return yaml.safe_dump({"scenarios": scenarios}, sort_keys=False)
