"""Static SVG pictures for the site, built by hand (no plotting library, no script): the window timeline,
per-window precision/recall, the verdict trend over stored runs, and shields-style badges."""

from __future__ import annotations

from html import escape

VERDICT_COLOURS = {"PASS": "#2e7d32", "FAIL": "#c62828", "ERROR": "#6a1b9a", "TIMEOUT": "#ef6c00",
                   "UNSUPPORTED": "#9e9e9e", "SKIPPED": "#bdbdbd", "UNJUDGED": "#d7ccc8"}
MATCH, WRONG, ENGINE = "#43a047", "#e53935", "#1e88e5"


def _svg(width: int, height: int, body: list[str], title: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)}"><title>{escape(title)}</title>'
            f'<style>text{{font:11px sans-serif;fill:#333}}</style>{"".join(body)}</svg>')


def reconstructed(window: dict) -> tuple[float, float] | None:
    """The engine's borders for a window: gracious mode's shift when it found one, else the window the
    engine declared, else (a matching window) the expected borders."""
    g = window.get("gracious")
    if g and g.get("opening") is not None:
        return g["opening"], g["closing"]
    if window.get("actual_window"):
        return tuple(window["actual_window"])
    if window["status"] == "MATCH" and window.get("open") is not None:
        return window["open"], window["close"]
    return None


def timeline(windows: list[dict], ticks: list[float], width: int = 760) -> str:
    """Expected window borders (top lanes) against the engine's reconstructed borders (bottom lanes);
    stream elements as ticks; a window that does not match drawn in red."""
    spans = [(w["open"], w["close"]) for w in windows if w.get("open") is not None]
    spans += [s for s in (reconstructed(w) for w in windows) if s]
    points = [t for s in spans for t in s] + list(ticks)
    if not points:
        return _svg(width, 30, ['<text x="4" y="18">no window with borders to draw</text>'], "window timeline")
    lo, hi = min(points), max(points)
    hi = hi if hi > lo else lo + 1
    left, right = 70, width - 10

    def x(t):
        return left + (t - lo) * (right - left) / (hi - lo)
    lanes = 3
    body = ['<text x="4" y="24">expected</text>', '<text x="4" y="78">engine</text>',
            '<text x="4" y="122">stream</text>']
    for w in windows:
        colour = MATCH if w["status"] == "MATCH" else WRONG
        lane = w["index"] % lanes
        tip = (f'window {w["index"]}: {w["status"]}; expected [{w.get("open")}, {w.get("close")})'
               f' P {w.get("precision")} R {w.get("recall")}')
        if w.get("open") is not None:
            x0, x1 = x(w["open"]), x(w["close"])
            body.append(f'<rect x="{x0:.1f}" y="{10 + lane * 12}" width="{max(x1 - x0, 1.5):.1f}" height="9" '
                        f'fill="{colour}" fill-opacity="0.75"><title>{escape(tip)}</title></rect>')
        span = reconstructed(w)
        if span:
            engine_tip = f"window {w['index']}: the engine's [{span[0]}, {span[1]})"
            x0, x1 = x(span[0]), x(span[1])
            body.append(f'<rect x="{x0:.1f}" y="{62 + lane * 12}" width="{max(x1 - x0, 1.5):.1f}" height="9" '
                        f'fill="{ENGINE if w["status"] == "MATCH" else WRONG}" fill-opacity="0.6">'
                        f'<title>{escape(engine_tip)}</title></rect>')
    for t in ticks:
        body.append(f'<line x1="{x(t):.1f}" x2="{x(t):.1f}" y1="110" y2="126" stroke="#555" stroke-width="1"/>')
    body.append(f'<line x1="{left}" x2="{right}" y1="130" y2="130" stroke="#999"/>')
    body.append(f'<text x="{left}" y="146">{escape(str(lo))}</text>')
    body.append(f'<text x="{right}" y="146" text-anchor="end">{escape(str(hi))}</text>')
    return _svg(width, 152, body, "window timeline: expected borders against the engine's")


def precision_recall(windows: list[dict], width: int = 760) -> str:
    """Per window: precision (filled) and recall (outlined) as bars from 0 to 1; a window with no value
    (nothing reported, nothing expected) is marked with a dash."""
    n = max(len(windows), 1)
    left, top, h = 40, 10, 100
    step = (width - left - 10) / n
    body = [f'<line x1="{left}" x2="{width - 10}" y1="{top + h}" y2="{top + h}" stroke="#999"/>',
            f'<text x="4" y="{top + 8}">1.0</text>', f'<text x="4" y="{top + h}">0.0</text>']
    for i, w in enumerate(windows):
        x0 = left + i * step
        bw = max(step / 2 - 1, 1)
        for j, (name, value) in enumerate((("precision", w.get("precision")), ("recall", w.get("recall")))):
            xx = x0 + j * (bw + 1)
            tip = f'window {w["index"]} {name}: {"-" if value is None else f"{value:.2f}"}'
            if value is None:
                body.append(f'<rect x="{xx:.1f}" y="{top + h - 2}" width="{bw:.1f}" height="2" fill="#999">'
                            f'<title>{escape(tip)}</title></rect>')
                continue
            colour = MATCH if value >= 1 else WRONG
            body.append(f'<rect x="{xx:.1f}" y="{top + h * (1 - value):.1f}" width="{bw:.1f}" height="{h * value:.1f}" '
                        f'fill="{colour}" fill-opacity="{0.9 if j == 0 else 0.45}"><title>{escape(tip)}</title></rect>')
    body.append(f'<text x="{left}" y="{top + h + 16}">windows 0…{len(windows) - 1} (each: precision, then recall)</text>')
    return _svg(width, top + h + 22, body, "precision and recall per window")


def trend(points: list[dict], width: int = 760) -> str:
    """Stacked verdict counts per stored run (oldest left): ``points`` are {label, counts}."""
    if not points:
        return _svg(width, 30, ['<text x="4" y="18">no stored runs</text>'], "trend")
    top, h, left = 10, 120, 40
    biggest = max(sum(p["counts"].values()) for p in points) or 1
    step = (width - left - 10) / len(points)
    body = []
    for i, p in enumerate(points):
        y = top + h
        for verdict, colour in VERDICT_COLOURS.items():
            n = p["counts"].get(verdict, 0)
            if not n:
                continue
            bh = h * n / biggest
            y -= bh
            body.append(f'<rect x="{left + i * step + 2:.1f}" y="{y:.1f}" width="{max(step - 4, 2):.1f}" '
                        f'height="{bh:.1f}" fill="{colour}"><title>{escape(p["label"])}: {verdict} {n}</title></rect>')
        if len(points) <= 12:
            body.append(f'<text x="{left + i * step + 2:.1f}" y="{top + h + 14}">{escape(p["label"][:16])}</text>')
    body.append(f'<text x="4" y="{top + 10}">{biggest}</text><text x="4" y="{top + h}">0</text>')
    return _svg(width, top + h + 22, body, "verdicts per stored run")


def badge(label: str, message: str, colour: str) -> str:
    """A flat shields-style badge."""
    lw, mw = 6 * len(label) + 12, 6 * len(message) + 12
    w = lw + mw
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="20" role="img" '
            f'aria-label="{escape(label)}: {escape(message)}"><title>{escape(label)}: {escape(message)}</title>'
            f'<rect width="{lw}" height="20" fill="#555"/><rect x="{lw}" width="{mw}" height="20" fill="{colour}"/>'
            f'<g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11" text-anchor="middle">'
            f'<text x="{lw / 2}" y="14">{escape(label)}</text><text x="{lw + mw / 2}" y="14">{escape(message)}</text>'
            f'</g></svg>')
