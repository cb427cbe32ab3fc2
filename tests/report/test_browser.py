"""The report in a real browser: headless Chromium draws it, the DOM says what it shows.

Screenshots are saved under the test's tmp_path and copied to bench/out/report/
(ignored by git) so a person can look at them after the run.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from handoff_sim.report import write_report
from handoff_sim.scenarios import ScenarioResult, load_path, run_scenario
from tests.report._chromium import Browser, chromium_path
from tests.report._support import HOSTILE, ROOT, hostile_run, showcase, wide

CHROMIUM = chromium_path()
pytestmark = [
    pytest.mark.slow,  # starts headless Chromium
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="headless Chromium is not installed (Debian: apt-get install chromium)",
    ),
]
ARTEFACTS = ROOT / "bench" / "out" / "report"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    assert CHROMIUM is not None
    with Browser(CHROMIUM) as opened:
        yield opened


def _keep(shot: Path) -> Path:
    """Copy a screenshot where a person finds it after the run."""
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    return Path(shutil.copy(shot, ARTEFACTS / shot.name))


def _suite() -> list[ScenarioResult]:
    extra = ("ai4j/parallel_mixed_outcomes.yaml", "ai4j/nested_depth.yaml")
    files = [ROOT / "scenarios" / name for name in extra]
    return [*showcase(), *(run_scenario(s) for f in files for s in load_path(f))]


def _rows(browser: Browser, section: str) -> list[dict[str, Any]]:
    """The handoff rows of a section's timeline, with their bars and attempt segments."""
    script = f"""
      [...document.querySelectorAll({json.dumps(section)} + " .tl-row[data-kind=handoff]")]
        .map(r => ({{
          status: r.dataset.status, parallel: r.dataset.parallel || null,
          bars: [...r.querySelectorAll(".tl-bar")].map(b => b.dataset.status),
          attempts: [...r.querySelectorAll(".tl-att")].map(a => a.dataset.status),
          tails: [...r.querySelectorAll(".tl-tail")].map(a => a.dataset.status),
          name: r.querySelector(".nm").textContent, out: r.querySelector(".tl-out").textContent,
        }}))
    """
    rows: list[dict[str, Any]] = browser.evaluate(script)
    return rows


def test_failed_scenario_comes_first_with_a_bar_per_handoff_and_attempt(
    browser: Browser, tmp_path: Path
) -> None:
    suite = _suite()
    page = write_report(suite, tmp_path / "report.html", base=ROOT)
    browser.open(page, width=1400, height=1000)

    shot = _keep(browser.screenshot(tmp_path / "report-showcase.png"))
    order = browser.evaluate(
        "[...document.querySelectorAll('details.scn')]"
        ".map(d => [d.dataset.id, d.dataset.status, d.open])"
    )
    assert order[0] == ["release-review", "failed", True]
    assert [status for _, status, _ in order[1:]] == ["passed"] * (len(suite) - 1)
    assert not any(opened for _, _, opened in order[1:])
    assert shot.stat().st_size > 10_000

    browser.evaluate("document.getElementById('expand').click()")
    listed = sorted(suite, key=lambda r: (r.passed, str(r.scenario.path), r.scenario.line))
    assert [row[0] for row in order] == [r.scenario.id for r in listed]
    for index, result in enumerate(listed, 1):
        rows = _rows(browser, f"#s-{index}")
        records = result.trace.handoffs()
        assert len(rows) == len(records)
        assert all(len(r["bars"]) == 1 and r["bars"] == [r["status"]] for r in rows)
        drawn = sorted((r["status"], tuple(r["attempts"])) for r in rows)
        assert drawn == sorted((h.status, h.attempt_outcomes) for h in records)


def test_showcase_marks_the_timed_out_attempt_the_denial_the_fallback_and_parallel_branches(
    browser: Browser, tmp_path: Path
) -> None:
    page = write_report(showcase(), tmp_path / "report.html", base=ROOT)
    browser.open(page, width=1400, height=1000)

    rows = {r["name"]: r for r in _rows(browser, "#s-1")}
    assert rows["security"]["attempts"] == ["timeout", "ok"]
    assert rows["links"]["attempts"] == ["timeout"]
    assert rows["links"]["tails"] == ["fallback"]
    assert rows["deploy"]["bars"] == ["denied"]
    assert rows["deploy"]["attempts"] == []
    assert "denied" in rows["deploy"]["out"]
    outer = {rows[n]["parallel"] for n in ("security", "docs", "tests", "deploy")}
    inner = {rows[n]["parallel"] for n in ("spelling", "links")}
    assert len(outer) == len(inner) == 1
    assert outer != inner
    assert None not in outer | inner
    badges = browser.evaluate("[...document.querySelectorAll('#s-1 .pb')].map(b => b.textContent)")
    assert badges == ["∥ 4 parallel", "∥ 2 parallel"]
    # geometry: parallel branches start together on separate rows; 30s of 42s timed out
    box = browser.evaluate(
        """(() => {
          const row = '#s-1 .tl-row[data-key=r1]';
          const seg = document.querySelector(row + ' .tl-att[data-status=timeout]');
          const trk = seg.parentElement.getBoundingClientRect(), s = seg.getBoundingClientRect();
          const lefts = ['r1', 'r2', 'r3'].map(k => document.querySelector(
            `#s-1 .tl-row[data-key=${k}] .tl-bar`).getBoundingClientRect());
          return {share: s.width / trk.width, label: seg.textContent,
                  lefts: lefts.map(b => Math.round(b.left)),
                  tops: lefts.map(b => Math.round(b.top))};
        })()"""
    )
    assert box["share"] == pytest.approx(30 / 42, abs=0.01)
    assert box["label"] == "#1 ◷ timeout 30s"
    assert len(set(box["lefts"])) == 1
    assert len(set(box["tops"])) == 3


def test_the_filter_box_and_status_select_hide_the_other_scenarios(
    browser: Browser, tmp_path: Path
) -> None:
    page = write_report(_suite(), tmp_path / "report.html", base=ROOT)
    browser.open(page)

    def visible(text: str, status: str) -> list[str]:
        shown: list[str] = browser.evaluate(
            f"""(() => {{
              const q = document.getElementById('q'), st = document.getElementById('st');
              q.value = {json.dumps(text)}; st.value = {json.dumps(status)};
              q.dispatchEvent(new Event('input')); st.dispatchEvent(new Event('change'));
              return [...document.querySelectorAll('details.scn')].filter(d => !d.hidden)
                .map(d => d.dataset.id);
            }})()"""
        )
        return shown

    assert visible("then-pass", "") == ["retry-then-pass"]
    assert visible("retry", "") == ["release-review", "parallel-mixed-outcomes", "retry-then-pass"]
    assert visible("", "failed") == ["release-review"]
    assert visible("NESTED", "") == ["nested-depth"]
    assert visible("timeouts", "passed") == ["parallel-mixed-outcomes", "retry-then-pass"]
    assert browser.evaluate("document.getElementById('shown').textContent") == "2 of 4 shown"
    assert len(visible("", "")) == 4


def test_hostile_text_stays_text_in_the_browser(browser: Browser, tmp_path: Path) -> None:
    page = write_report([hostile_run()], tmp_path / "hostile.html")
    browser.open(page)
    browser.evaluate("document.getElementById('expand').click()")

    assert browser.evaluate("document.querySelectorAll('img, iframe').length") == 0
    assert browser.evaluate("document.querySelectorAll('script').length") == 2
    key = browser.evaluate("document.querySelector('.tl-row[data-kind=handoff] .key').textContent")
    assert key == HOSTILE.replace("\u2028", "\\u2028")
    assert browser.evaluate("document.title").startswith("handoff-sim report")


def test_a_thousand_parallel_handoffs_draw_every_row(browser: Browser, tmp_path: Path) -> None:
    page = write_report([wide()], tmp_path / "wide.html")
    browser.open(page, width=1400, height=900)
    browser.evaluate("document.getElementById('expand').click()")

    counts = browser.evaluate(
        """[document.querySelectorAll('.tl-row[data-kind=handoff]').length,
            document.querySelectorAll('.tl-row[data-kind=handoff][data-parallel="1"]').length,
            document.querySelectorAll('.tl-att').length,
            (t => t.scrollHeight > t.clientHeight)(document.querySelector('.tl'))]"""
    )
    attempts = sum(h.attempts for h in wide().trace.handoffs())
    assert counts == [1000, 1000, attempts, True]  # drawn, grouped, and scrolled in its box
    _keep(browser.screenshot(tmp_path / "report-1000-parallel.png"))
