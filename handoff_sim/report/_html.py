"""The report page: summary, filter, one collapsed section per scenario, inline style and script.

Every text from a scenario (names, paths, outputs, errors) is escaped here; timeline data
travels as JSON inside ``<script type="application/json">`` with ``<``, ``>`` and ``&``
escaped, and the script only sets text. Same entries, same bytes: nothing depends on
the clock, the machine or the order results arrived in.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

from handoff_sim.report._assets import SCRIPT, STYLE
from handoff_sim.report._axis import format_duration
from handoff_sim.report._entry import STATUSES, ReportEntry, entry_from_result
from handoff_sim.report._spans import HandoffSpan, RunSpan, collect_spans
from handoff_sim.report._text import clean
from handoff_sim.report._timeline import SYMBOLS, Row, build_timeline, handoff_outcome
from handoff_sim.trace import Trace

if TYPE_CHECKING:
    from handoff_sim.scenarios import ScenarioResult

__all__ = ["render_report", "write_report"]

OPEN_FAILURES = 20
"""Failed scenarios shown open when the page loads (the rest wait for a click)."""
FILES_OPEN = 12
"""The table of files is shown open up to this many files (failing files come first)."""
TREE_OPEN = 60
"""Handoff trees up to this many handoffs are shown open."""
EVENT_LINES = 1500
"""Lines of a failed scenario's event listing kept in the page."""

_LABELS = {"failed": "FAILED", "error": "ERROR", "skipped": "SKIPPED", "passed": "PASSED"}
_MARKS = {"failed": "✗", "error": "!", "skipped": "–", "passed": "✓"}
_LEGEND = (
    ("ok", "✓ attempt ok"),
    ("timeout", "◷ attempt timed out"),
    ("error", "✗ attempt failed"),
    ("cancelled", "■ cancelled"),
    ("denied", "⊘ denied (no attempt)"),
    ("fallback", "↩ fallback to the primary executor"),
    ("unavailable", "∅ fallback unavailable"),
    ("par", "∥ ran in parallel"),
)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def _esc(text: object) -> str:
    return escape(str(text), quote=True)


def _json(data: object) -> str:
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for char, code in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(char, code)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _entries(items: Iterable[ReportEntry | ScenarioResult], base: Path | None) -> list[ReportEntry]:
    entries = [i if isinstance(i, ReportEntry) else entry_from_result(i, base=base) for i in items]
    rank = {status: index for index, status in enumerate(STATUSES)}
    return sorted(entries, key=lambda e: (rank.get(e.status, 0), e.path, e.line, e.id))


def render_report(
    results: Iterable[ReportEntry | ScenarioResult],
    *,
    title: str = "handoff-sim report",
    base: Path | None = None,
) -> str:
    """The whole report as one self-contained HTML page.

    ``results`` are ``ScenarioResult`` objects (from ``run_scenario``) or report entries;
    ``base`` shortens absolute scenario paths to paths relative to it.
    """
    entries = _entries(results, base)
    counts = {s: sum(1 for e in entries if e.status == s) for s in STATUSES}
    head = ", ".join(f"{counts[s]} {s}" for s in STATUSES if counts[s]) or "no scenarios"
    opened = 0
    sections: list[str] = []
    for index, entry in enumerate(entries, 1):
        failing = entry.status in ("failed", "error")
        sections.append(_scenario(entry, index, failing and opened < OPEN_FAILURES))
        opened += failing
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_esc(title)}: {_esc(head)}</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<header><h1>{_esc(title)}</h1>{_totals(len(entries), counts)}</header>",
        _files(entries),
        _controls(len(entries)),
        f'<main id="scenarios">{"".join(sections)}</main>',
        f"<script>{SCRIPT}</script>",
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"


def write_report(
    results: Iterable[ReportEntry | ScenarioResult],
    path: str | Path,
    *,
    title: str = "handoff-sim report",
    base: Path | None = None,
) -> Path:
    """Write :func:`render_report` to ``path`` (UTF-8) and return it; OSError if it cannot.

    A missing folder of ``path`` is created, as the OTLP output's is.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(render_report(results, title=title, base=base), encoding="utf-8")
    return target


def _totals(total: int, counts: dict[str, int]) -> str:
    parts = [_plural(total, "scenario")]
    parts += [f'<span class="badge b-{s}">{counts[s]} {s}</span>' for s in STATUSES if counts[s]]
    return f'<p id="totals">{" ".join(parts)}</p>'


def _files(entries: Sequence[ReportEntry]) -> str:
    by_file: dict[str, dict[str, int]] = {}
    for entry in entries:
        tally = by_file.setdefault(entry.path, dict.fromkeys(STATUSES, 0))
        tally[entry.status] = tally.get(entry.status, 0) + 1

    def order(item: tuple[str, dict[str, int]]) -> tuple[int, str]:
        return (0 if item[1]["failed"] + item[1]["error"] else 1, item[0])

    rows = []
    for path, tally in sorted(by_file.items(), key=order):
        bad = tally["failed"] + tally["error"]
        mark = (
            '<span class="badge b-failed">✗</span>'
            if bad
            else '<span class="badge b-passed">✓</span>'
        )
        cells = "".join(f'<td class="n">{tally[s]}</td>' for s in STATUSES)
        rows.append(
            f'<tr data-status="{"failed" if bad else "passed"}"><td>{mark}</td>'
            f'<td><button type="button" data-filter="{_esc(path)}">{_esc(path)}</button></td>'
            f"{cells}</tr>"
        )
    head = "".join(f'<th class="n">{s}</th>' for s in STATUSES)
    failing = sum(1 for tally in by_file.values() if tally["failed"] + tally["error"])
    opened = " open" if len(by_file) <= FILES_OPEN else ""
    return (
        f'<details id="files" class="files"{opened}><summary><h2>Files ({len(by_file)}'
        f"{f', {failing} with failures' if failing else ''})</h2></summary>"
        f'<table class="files"><thead><tr><th></th><th>file</th>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></details>"
    )


def _controls(total: int) -> str:
    options = "".join(f'<option value="{s}">{s}</option>' for s in STATUSES)
    legend = "".join(f'<span><i class="{key}"></i>{_esc(text)}</span>' for key, text in _LEGEND)
    return (
        f'<h2>Scenarios ({total})</h2><div class="controls">'
        '<input id="q" type="search" placeholder="filter by name, file or tag" '
        'aria-label="filter scenarios by name, file or tag">'
        f'<select id="st" aria-label="status"><option value="">every status</option>{options}'
        "</select>"
        '<button type="button" id="expand">expand all</button>'
        '<button type="button" id="collapse">collapse all</button>'
        f'<span id="shown" class="dim">{total} of {total} shown</span></div>'
        f'<div class="legend">{legend}<span class="dim">times are virtual</span></div>'
    )


def _scenario(entry: ReportEntry, index: int, opened: bool) -> str:
    search = " ".join([entry.id, entry.where, *entry.tags]).lower()
    meta = [f'<span class="mono dim">{_esc(entry.where)}</span>']
    if entry.trace is not None:
        meta.append(f'<span class="dim">{format_duration(entry.elapsed_ms / 1000)} virtual</span>')
    if entry.tags:
        meta.append(f'<span class="dim">tags: {_esc(", ".join(entry.tags))}</span>')
    summary = (
        f'<summary><span class="badge b-{_esc(entry.status)}">'
        f"{_MARKS.get(entry.status, '?')} {_LABELS.get(entry.status, _esc(entry.status))}</span>"
        f"<b>{_esc(entry.id)}</b>{''.join(meta)}</summary>"
    )
    return (
        f'<details class="scn" id="s-{index}" data-status="{_esc(entry.status)}" '
        f'data-id="{_esc(entry.id)}" data-search="{_esc(search)}"{" open" if opened else ""}>'
        f'{summary}<div class="body">{_body(entry)}</div></details>'
    )


def _body(entry: ReportEntry) -> str:
    parts: list[str] = []
    if entry.description:
        parts.append(f'<p class="dim">{_esc(entry.description)}</p>')
    for m in entry.mismatches:
        details = "".join(f"\n  {_esc(d)}" for d in m.details)
        parts.append(
            f'<div class="mm"><span class="where">{_esc(m.where)}</span>: '
            f"<b>{_esc(m.field)}</b>: {_esc(m.message)}{details}</div>"
        )
    if entry.error is not None:
        if entry.status == "passed":
            parts.append(f'<div class="mm expected">raised, as expected: {_esc(entry.error)}</div>')
        else:
            parts.append(f'<div class="mm"><b>error</b>: {_esc(entry.error)}</div>')
    parts.extend(f'<div class="mm note">{_esc(note)}</div>' for note in entry.notes)
    if entry.outputs:
        shown = " · ".join(
            _esc(clean(o, 300)) if o is not None else "(no text)" for o in entry.outputs
        )
        parts.append(f'<p><span class="dim">output:</span> <span class="mono">{shown}</span></p>')
    if entry.trace is not None:
        parts.append(_timeline(entry.trace))
        parts.append(_tree(entry.trace))
        if entry.status != "passed":
            parts.append(_events(entry.trace))
    return "".join(parts)


def _row_data(row: Row) -> list[Any]:
    segments = [[s.start, s.end, s.status, s.label, s.attempt] for s in row.segments]
    brackets = [[depth, kind] for depth, kind in row.brackets]
    return [
        row.kind,
        row.depth,
        row.name,
        row.detail,
        row.start,
        row.end,
        row.status,
        row.outcome,
        segments,
        row.key,
        row.group,
        row.group_size,
        brackets,
    ]


def _timeline(trace: Trace) -> str:
    timeline = build_timeline(trace)  # a Trace: its span model is built once for both
    caption = "virtual time" if timeline.mode == "time" else "event order (no virtual time passed)"
    data = {
        "mode": timeline.mode,
        "caption": caption,
        "end": timeline.end,
        "ticks": [list(t) for t in timeline.ticks],
        "rows": [_row_data(r) for r in timeline.rows],
    }
    summary = _plural(timeline.handoffs, "handoff")
    if timeline.groups:
        summary += ", " + _plural(timeline.groups, "parallel group")
    return (
        f'<h3 class="dim">timeline · {_esc(summary)} · {_esc(caption)}</h3>'
        f'<div class="timeline" data-rows="{len(timeline.rows)}" '
        f'data-handoffs="{timeline.handoffs}">'
        f'<script type="application/json">{_json(data)}</script>'
        "<noscript>The timeline needs JavaScript; the handoff tree below has the same facts."
        "</noscript></div>"
    )


def _node(span: HandoffSpan) -> str:
    status = span.status
    end = span.end_event
    error = (
        f' <span class="dim">error: {_esc(clean(end.error, 300))}</span>'
        if end and end.error
        else ""
    )
    children = "".join(_node(c) for c in span.children)
    nested = f"<ul>{children}</ul>" if children else ""
    return (
        f'<li data-status="{_esc(status)}"><span class="badge b-{_esc(status)}">'
        f"{SYMBOLS.get(status, '?')} {_esc(status)}</span> <b>{_esc(span.subagent)}</b> "
        f'<span class="dim">from {_esc(span.agent)} via {_esc(span.tool)} '
        f"[{_esc(span.handoff_id)}]</span> {_esc(handoff_outcome(span))}{error}{nested}</li>"
    )


def _run(run: RunSpan, turns: int) -> str:
    status = run.end_event.status if run.end_event is not None else "open"
    turn = f"turn {run.turn}" if turns > 1 else "top agent"
    children = "".join(_node(c) for c in run.children)
    return (
        f'<li data-status="{_esc(status)}"><span class="badge b-{_esc(status)}">'
        f"{SYMBOLS.get(status, '?')} {_esc(status)}</span> <b>▶ {_esc(run.agent)}</b> "
        f'<span class="dim">{_esc(turn)}</span>{f"<ul>{children}</ul>" if children else ""}</li>'
    )


def _tree(trace: Trace) -> str:
    spans = collect_spans(trace)
    items = "".join(_run(r, len(spans.runs)) for r in spans.runs)
    items += "".join(_node(o) for o in spans.orphans)
    count = spans.handoffs
    opened = " open" if count <= TREE_OPEN else ""
    return (
        f'<details class="tree"{opened}><summary>handoff tree ({count})</summary>'
        f'<ul class="tree">{items}</ul></details>'
    )


def _events(trace: Trace) -> str:
    lines = trace.render().split("\n")[:-1]  # one event a line; each line ends in "\n"
    kept = lines[:EVENT_LINES]
    if len(lines) > EVENT_LINES:
        kept.append(f"… {len(lines) - EVENT_LINES} more events (handoff-sim render FILE shows all)")
    text = clean("\n".join(kept), 10**7)
    return (
        f'<details class="events"><summary>events ({len(trace)})</summary>'
        f'<pre class="events">{_esc(text)}</pre></details>'
    )
