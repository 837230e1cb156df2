"""SVG pictures of a live load run (conformance/load/experiment.py), built by hand like the site's others: a value
per window as a box plot over repetitions (one run: a dot), result sizes against the oracle's, and CPU
and memory over time."""

from __future__ import annotations

import statistics
from html import escape

from conformance.site.svg import ENGINE, MATCH, WRONG, _svg


def quartiles(values: list[float]) -> tuple[float, float, float, float, float]:
    v = sorted(values)
    if len(v) == 1:
        return v[0], v[0], v[0], v[0], v[0]
    q1, q2, q3 = statistics.quantiles(v, n=4, method="inclusive")
    return v[0], q1, q2, q3, v[-1]


LEFT, TOP, HEIGHT = 56, 10, 110  # every picture's plot area: left margin, top margin, height


def axis(width: int, top: int, h: int, high: str, low: str) -> list[str]:
    """The baseline and the labels of the highest and lowest value (every picture here has them)."""
    return [f'<line x1="{LEFT}" x2="{width - 10}" y1="{top + h}" y2="{top + h}" stroke="#999"/>',
            f'<text x="4" y="{top + 8}">{escape(high)}</text>', f'<text x="4" y="{top + h}">{escape(low)}</text>']


def per_window(series: list[list[float]], title: str, unit: str, width: int = 760, lo: float | None = None,
               hi: float | None = None, good=None) -> str:
    """``series[i]``: window i's values over the repetitions (empty: no value, drawn as a dash).  A box
    from the first to the third quartile, whiskers to min and max, a line at the median."""
    values = [x for s in series for x in s]
    if not series or not values:
        return _svg(width, 30, [f'<text x="4" y="18">{escape(title)}: no value</text>'], title)
    lo = min(values + [0.0]) if lo is None else lo
    hi = max(values) if hi is None else hi
    hi = hi if hi > lo else lo + 1
    left, top, h = LEFT, TOP, HEIGHT
    step = (width - left - 10) / len(series)

    def y(v):
        return top + h - (v - lo) * h / (hi - lo)
    body = axis(width, top, h, f"{hi:.3g} {unit}", f"{lo:.3g}")
    for i, s in enumerate(series):
        cx = left + (i + 0.5) * step
        bw = max(min(step * 0.6, 24), 2)
        if not s:
            body.append(f'<rect x="{cx - bw / 2:.1f}" y="{top + h - 2}" width="{bw:.1f}" height="2" fill="#999">'
                        f'<title>window {i}: no value</title></rect>')
            continue
        mn, q1, md, q3, mx = quartiles(s)
        colour = ENGINE if good is None else (MATCH if good(md) else WRONG)
        tip = escape(f"window {i}: median {md:.4g} {unit} (min {mn:.4g}, max {mx:.4g}, n={len(s)})")
        body.append(f'<g><title>{tip}</title>'
                    f'<line x1="{cx:.1f}" x2="{cx:.1f}" y1="{y(mx):.1f}" y2="{y(mn):.1f}" stroke="#555"/>'
                    f'<rect x="{cx - bw / 2:.1f}" y="{y(q3):.1f}" width="{bw:.1f}" '
                    f'height="{max(y(q1) - y(q3), 1.5):.1f}" fill="{colour}" fill-opacity="0.6"/>'
                    f'<line x1="{cx - bw / 2:.1f}" x2="{cx + bw / 2:.1f}" y1="{y(md):.1f}" y2="{y(md):.1f}" '
                    f'stroke="#000" stroke-width="1.5"/></g>')
    body.append(f'<text x="{left}" y="{top + h + 16}">windows 0…{len(series) - 1}</text>')
    return _svg(width, top + h + 22, body, title)


def sizes(expected: list[int | None], actual: list[list[int]], width: int = 760) -> str:
    """Result size per window: the oracle's (outlined bar) against the engine's (a dot per repetition)."""
    top_value = max([x for x in expected if x is not None] + [x for s in actual for x in s] + [1])
    left, top, h = LEFT, TOP, HEIGHT
    n = max(len(expected), 1)
    step = (width - left - 10) / n
    body = axis(width, top, h, str(top_value), "0")
    for i, e in enumerate(expected):
        x0 = left + i * step + step * 0.2
        bw = step * 0.6
        if e is not None:
            bh = h * e / top_value
            body.append(f'<rect x="{x0:.1f}" y="{top + h - bh:.1f}" width="{bw:.1f}" height="{bh:.1f}" fill="none" '
                        f'stroke="#333"><title>window {i}: the oracle expects {e}</title></rect>')
        for a in actual[i] if i < len(actual) else []:
            colour = MATCH if a == e else WRONG
            body.append(f'<circle cx="{x0 + bw / 2:.1f}" cy="{top + h - h * a / top_value:.1f}" r="2.5" '
                        f'fill="{colour}"><title>window {i}: the engine reported {a}</title></circle>')
    body.append(f'<text x="{left}" y="{top + h + 16}">result size per window: oracle (outline), engine (dots)</text>')
    return _svg(width, top + h + 22, body, "result size per window")


def over_time(runs: list[list[dict]], key: str, title: str, unit: str, width: int = 760) -> str:
    """One polyline per repetition of a sampled value (``cpu`` or ``memory_mib``) against seconds."""
    points = [(s["t"], s[key]) for samples in runs for s in samples]
    if not points:
        return _svg(width, 30, [f'<text x="4" y="18">{escape(title)}: no sample</text>'], title)
    t_hi = max(t for t, _ in points) or 1
    v_hi = max(v for _, v in points) or 1
    left, top, h = LEFT, TOP, HEIGHT

    def xy(t, v):
        return f"{left + t * (width - left - 10) / t_hi:.1f},{top + h - v * h / v_hi:.1f}"
    body = axis(width, top, h, f"{v_hi:.3g} {unit}", "0")
    for samples in runs:
        if samples:
            body.append(f'<polyline fill="none" stroke="{ENGINE}" stroke-opacity="0.7" '
                        f'points="{" ".join(xy(s["t"], s[key]) for s in samples)}"/>')
    body.append(f'<text x="{left}" y="{top + h + 16}">0 … {t_hi:.0f} s</text>')
    return _svg(width, top + h + 22, body, title)
