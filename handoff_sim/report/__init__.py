"""A self-contained HTML report of scenario runs: summary, timelines in virtual time, trees.

    from handoff_sim.report import write_report
    from handoff_sim.scenarios import load_path, run_scenario

    write_report([run_scenario(s) for s in load_path("scenarios/")], "report.html")

``pytest --handoff-report=FILE`` and ``handoff-sim run --html FILE`` write the same page.
The layout is described in docs/report.md.
"""

from handoff_sim.report._entry import ReportEntry, entry_from_error, entry_from_result
from handoff_sim.report._html import render_report, write_report

__all__ = [
    "ReportEntry",
    "entry_from_error",
    "entry_from_result",
    "render_report",
    "write_report",
]
