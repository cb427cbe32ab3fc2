"""Gate results as JUnit XML, one ``testcase`` per gate, in the dialect pytest writes
(the Jenkins xUnit plugin's ``junit-10.xsd``), so CI systems show each gate as a test."""

from __future__ import annotations

import os
import platform
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from handoff_sim._gates._evaluate import GateReport

__all__ = ["junit_xml", "write_junit"]

_ILLEGAL = {c: f"\\x{c:02x}" for c in (*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20))}
"""Characters XML 1.0 cannot hold at all: written as escapes, as pytest does."""


def _clean(text: str) -> str:
    cleaned = text.translate(_ILLEGAL)
    return "".join(
        c if not 0xD800 <= ord(c) <= 0xDFFF and c not in "\ufffe\uffff" else f"\\u{ord(c):04x}"
        for c in cleaned
    )


def junit_xml(reports: Sequence[GateReport], *, suite: str = "handoff-sim gates") -> str:
    """The JUnit XML document of ``reports``: ``classname`` is the trace, ``name`` the gate."""
    cases = [(report, result) for report in reports for result in report.results]
    failures = sum(1 for _, r in cases if not r.passed)
    total = sum(r.seconds for _, r in cases)
    root = ET.Element("testsuites", name=suite)
    element = ET.SubElement(
        root,
        "testsuite",
        name=suite,
        errors="0",
        failures=str(failures),
        skipped="0",
        tests=str(len(cases)),
        time=f"{total:.3f}",
        timestamp=datetime.now(UTC).isoformat(timespec="seconds"),
        hostname=_clean(platform.node()),
    )
    for report, result in cases:
        case = ET.SubElement(
            element,
            "testcase",
            classname=_clean(report.label),
            name=_clean(result.gate),
            time=f"{result.seconds:.3f}",
        )
        if not result.passed:
            failure = ET.SubElement(case, "failure", message=_clean(result.headline()))
            failure.text = _clean("\n".join([result.headline(), *result.offenders]))
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def write_junit(reports: Sequence[GateReport], path: str | Path) -> None:
    """Write :func:`junit_xml` to ``path`` (its folder created), replaced in one step."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    partial.write_text(junit_xml(reports), encoding="utf-8")
    os.replace(partial, target)
