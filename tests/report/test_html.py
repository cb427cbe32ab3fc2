"""The report page without a browser: structure, escaping, determinism and size."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import pytest

from handoff_sim import ConfigurationError
from handoff_sim.report import (
    ReportEntry,
    entry_from_error,
    entry_from_result,
    render_report,
    write_report,
)
from handoff_sim.scenarios import load_dict, run_scenario
from tests.report._support import (
    HOSTILE,
    SHOWCASE,
    bundled,
    fan_out,
    hostile_run,
    showcase,
    wide,
)


class _Tags(HTMLParser):
    """Every start tag with its attributes, and the text of each script element."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"
        if self._in_script:
            self.scripts.append("")

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts[-1] += data


def _parse(page: str) -> _Tags:
    parser = _Tags()
    parser.feed(page)
    parser.close()
    return parser


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | dict):
        items = value.values() if isinstance(value, dict) else value
        return [s for item in items for s in _strings(item)]
    return []


def _sections(page: str) -> list[dict[str, str | None]]:
    return [attrs for tag, attrs in _parse(page).tags if tag == "details" and attrs.get("data-id")]


def test_failed_scenarios_come_first_and_open_with_their_mismatch_at_file_line() -> None:
    passed, failed = showcase()[1], showcase()[0]
    page = render_report([passed, failed], base=SHOWCASE.parents[2])

    sections = _sections(page)
    assert [(s["data-id"], s["data-status"]) for s in sections] == [
        ("release-review", "failed"),
        ("retry-then-pass", "passed"),
    ]
    assert "open" in sections[0]
    assert "open" not in sections[1]
    line = next(m.line for m in failed.mismatches)
    assert f'<span class="where">report/files/showcase.yaml:{line}</span>' in page
    assert "scenarios.0.expect.handoffs.2" in page
    assert "handoff 2 (delegate_tests) differs in status" in page


def test_summary_counts_each_file_with_failing_files_first() -> None:
    entries = [
        entry_from_error("b/broken.yaml", "b/broken.yaml:3:1: scenario: required"),
        entry_from_result(showcase()[1]),
        entry_from_result(showcase()[1]).with_failure("snapshot differs"),
    ]
    page = render_report([*entries, entry_from_result(showcase()[1])])

    rows = re.findall(r'<tr data-status="(\w+)">.*?data-filter="([^"]+)".*?</tr>', page)
    assert [status for status, _ in rows] == ["failed", "failed"]
    assert '<p id="totals">4 scenarios' in page
    assert "1 failed" in page
    assert "1 error" in page
    assert "2 passed" in page
    assert "snapshot differs" in page


def test_each_scenario_carries_its_timeline_data_and_handoff_tree() -> None:
    page = render_report(showcase())
    parser = _parse(page)

    data = [json.loads(s) for s in parser.scripts if s.startswith("{")]
    assert len(data) == 2
    rows = data[0]["rows"]
    assert [r[2] for r in rows] == [
        "manager",
        "security",
        "docs",
        "spelling",
        "links",
        "tests",
        "deploy",
    ]
    assert [seg[2] for seg in rows[1][8]] == ["timeout", "ok"]
    assert data[0]["caption"] == "virtual time"
    tree = [a["data-status"] for t, a in parser.tags if t == "li"]
    assert tree[:7] == [
        "completed",
        "completed",
        "completed",
        "completed",
        "fallback",
        "completed",
        "denied",
    ]


def test_hostile_text_is_escaped_everywhere() -> None:
    result = hostile_run()
    entry = entry_from_result(result)
    forged = ReportEntry(
        id=HOSTILE,
        path=HOSTILE + ".yaml",
        line=3,
        status="failed",
        tags=(HOSTILE,),
        description=HOSTILE,
        notes=(HOSTILE,),
        error=HOSTILE,
        trace=result.trace,
    )
    page = render_report([entry, forged])
    parser = _parse(page)

    assert not [t for t, _ in parser.tags if t == "img"]
    assert [t for t, a in parser.tags if t == "script"] == ["script"] * 3
    assert not any("onerror" in a for _, a in parser.tags)
    for text in parser.scripts[:-1]:  # the timeline data: JSON with no markup at all
        assert not set(text) & {"<", ">", "&", "\u2028"}
        strings = _strings(json.loads(text))
        shown = HOSTILE.replace("\u2028", "\\u2028")  # a line separator is shown as an escape
        assert any(shown in s for s in strings)
    assert page.count("&lt;/script&gt;&lt;script&gt;alert(") >= 6


def test_text_that_cannot_be_written_as_utf8_is_shown_as_escapes(tmp_path: Path) -> None:
    entry = entry_from_error("a.yaml", "lone \udc80 surrogate and a \x00 NUL", status="failed")

    path = write_report([entry], tmp_path / "r.html")

    text = path.read_text("utf-8")
    assert "lone \\udc80 surrogate and a \\x00 NUL" in text


def test_same_results_in_any_order_give_the_same_bytes() -> None:
    results = [*list(showcase()), hostile_run()]

    first = render_report(results)
    again = render_report(list(reversed([*showcase(), hostile_run()])))

    assert first == again


def test_the_page_asks_for_nothing_over_the_network() -> None:
    page = render_report(showcase())

    assert "http://" not in page
    assert "https://" not in page
    tags = _parse(page).tags
    assert not [t for t, _ in tags if t in ("link", "img", "iframe", "object", "embed")]
    assert not [a for _, a in tags if "src" in a or ("href" in a and a["href"] != "#")]


def test_entries_survive_the_trip_through_plain_data() -> None:
    entry = entry_from_result(showcase()[0], base=SHOWCASE.parents[2])

    copy = ReportEntry.from_dict(json.loads(json.dumps(entry.to_dict())))

    assert copy == entry
    assert render_report([copy]) == render_report([entry])
    with pytest.raises(ConfigurationError, match="not a report entry: KeyError"):
        ReportEntry.from_dict({"id": "x"})


def test_an_unknown_status_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="status must be one of failed, error"):
        entry_from_error("a.yaml", "boom", status="weird")


def test_the_bundled_suite_report_stays_under_two_megabytes(tmp_path: Path) -> None:
    path = write_report(bundled(), tmp_path / "bundled.html")

    assert path.stat().st_size < 2_000_000
    sections = _sections(path.read_text("utf-8"))
    assert len(sections) == len(bundled())


@pytest.mark.slow
def test_a_thousand_parallel_handoffs_keep_the_page_small() -> None:
    page = render_report([wide()])

    assert len(page.encode()) < 1_000_000
    assert 'data-handoffs="1000"' in page
    assert '<details class="tree"><summary>handoff tree (1000)' in page  # collapsed


@pytest.mark.slow
def test_a_thousand_scenario_suite_stays_collapsed_and_small() -> None:
    one = entry_from_result(run_scenario(load_dict(fan_out(6))[0]))
    entries = [replace(one, id=f"case-{i:04}", path=f"s/{i % 40}.yaml") for i in range(1000)]

    page = render_report(entries)

    sections = _sections(page)
    assert len(sections) == 1000
    assert not any("open" in s for s in sections)
    assert len(page.encode()) < 5_000_000  # about 3.5 kB a scenario with six handoffs
