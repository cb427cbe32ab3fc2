"""A hand-written SVG line chart (no plotting dependency): µs per handoff against N and K."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape

__all__ = ["Series", "render_svg"]

# (label, colour, dashed, points as (size, µs per handoff))
Series = tuple[str, str, bool, Sequence[tuple[int, float]]]

_W, _H = 460, 320
_LEFT, _RIGHT, _TOP, _BOTTOM = 62, 12, 34, 46


def _log_ticks(lo: float, hi: float) -> list[float]:
    ticks: list[float] = []
    for exp in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1):
        for m in (1, 2, 5):
            v = m * 10.0**exp
            if lo <= v <= hi:
                ticks.append(v)
    return ticks


def _panel(title: str, xlabel: str, series: Sequence[Series], lo: float, hi: float) -> list[str]:
    xs = sorted({x for *_, pts in series for x, _ in pts})
    if not xs:
        return [f'<text x="{_W / 2}" y="{_H / 2}" text-anchor="middle">no data</text>']
    x_lo, x_hi = math.log10(xs[0]), math.log10(xs[-1]) if xs[-1] > xs[0] else math.log10(xs[0]) + 1
    pw, ph = _W - _LEFT - _RIGHT, _H - _TOP - _BOTTOM

    def px(x: float) -> float:
        return _LEFT + (math.log10(x) - x_lo) / (x_hi - x_lo) * pw

    def py(y: float) -> float:
        return _TOP + ph - (math.log10(y) - math.log10(lo)) / (math.log10(hi / lo)) * ph

    out = [
        f'<text x="{_W / 2}" y="18" text-anchor="middle" font-weight="bold">{escape(title)}</text>',
        f'<rect x="{_LEFT}" y="{_TOP}" width="{pw}" height="{ph}" fill="none" stroke="#888"/>',
        f'<text x="{_LEFT + pw / 2}" y="{_H - 8}" text-anchor="middle">{escape(xlabel)}</text>',
        f'<text x="14" y="{_TOP + ph / 2}" text-anchor="middle" '
        f'transform="rotate(-90 14 {_TOP + ph / 2})">µs per handoff (log)</text>',
    ]
    for t in _log_ticks(lo, hi):
        y = py(t)
        out.append(
            f'<line x1="{_LEFT}" x2="{_LEFT + pw}" y1="{y:.1f}" y2="{y:.1f}" stroke="#eee"/>'
        )
        out.append(f'<text x="{_LEFT - 4}" y="{y + 4:.1f}" text-anchor="end">{t:,.0f}</text>')
    for x in xs:
        out.append(f'<text x="{px(x):.1f}" y="{_TOP + ph + 16}" text-anchor="middle">{x}</text>')
    for label, colour, dashed, pts in series:
        if not pts:
            continue
        path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in sorted(pts))
        dash = ' stroke-dasharray="5,3"' if dashed else ""
        out.append(
            f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"{dash}>'
            f"<title>{escape(label)}</title></polyline>"
        )
        out.extend(
            f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{colour}"/>' for x, y in pts
        )
    return out


def render_svg(panels: Mapping[str, tuple[str, Sequence[Series]]], caption: str = "") -> str:
    """Side-by-side log-log panels sharing one y range and one legend."""
    all_y = [y for _, ser in panels.values() for *_, pts in ser for _, y in pts if y > 0]
    lo = 10 ** math.floor(math.log10(min(all_y))) if all_y else 1.0
    hi = 10 ** math.ceil(math.log10(max(all_y))) if all_y else 10.0
    labels: dict[str, tuple[str, bool]] = {}
    body: list[str] = []
    for i, (title, (xlabel, series)) in enumerate(panels.items()):
        body.append(f'<g transform="translate({i * _W},0)">')
        body.extend(_panel(title, xlabel, series, lo, hi))
        body.append("</g>")
        for label, colour, dashed, _ in series:
            labels.setdefault(label, (colour, dashed))
    width, legend_y = _W * max(1, len(panels)), _H + 8
    height = legend_y + 18 * ((len(labels) + 1) // 2) + (24 if caption else 8)
    for j, (label, (colour, dashed)) in enumerate(labels.items()):
        x, y = 20 + (j % 2) * (width // 2), legend_y + 18 * (j // 2)
        dash = ' stroke-dasharray="5,3"' if dashed else ""
        body.append(
            f'<line x1="{x}" x2="{x + 26}" y1="{y + 8}" y2="{y + 8}" stroke="{colour}" '
            f'stroke-width="2"{dash}/><text x="{x + 32}" y="{y + 12}">{escape(label)}</text>'
        )
    if caption:
        body.append(f'<text x="20" y="{height - 8}" fill="#555">{escape(caption)}</text>')
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">\n'
        f'<rect width="{width}" height="{height}" fill="white"/>\n' + "\n".join(body) + "\n</svg>\n"
    )
