"""Findings about the shape of an engine's windows, from the whole output: borders that drift, windows of
another width or slide (from gracious mode's reconstructions or the engine's declared borders), count
windows of another size; each stated with the evidence it rests on."""

from __future__ import annotations

from dataclasses import replace
from statistics import median

from oracle.compare import CaseVerdict
from oracle.durations import in_words
from oracle.model import CountWindowSpec, WindowSpec
from oracle.r2r.query import R2R


def window_borders(best) -> list[tuple[int, int, int, int]]:
    """(expected opening, closing, engine's opening, closing) per window where the engine's borders are
    known: declared with the report, or reconstructed by gracious mode."""
    out = []
    for w in best.windows:
        e = w.expected
        if e is None:
            continue
        if w.actual is not None and w.actual.window is not None:
            out.append((e.opening, e.closing, int(w.actual.window[0]), int(w.actual.window[1])))
        elif w.gracious is not None and w.gracious["recall"] > 0:
            out.append((e.opening, e.closing, w.gracious["opening"], w.gracious["closing"]))
    return out


def shape_findings(best, verdict: CaseVerdict | None = None, query: R2R | None = None) -> list[tuple[str, str]]:
    """Drift (window starts off by a growing amount) and another width or slide, from known borders;
    a width or slide that explains the whole output exactly is said so."""
    if verdict is not None and isinstance(verdict.context.get("window"), CountWindowSpec):
        return count_findings(best, verdict, query)
    out = []
    borders = window_borders(best)
    shifts = [(o2 - o1) for o1, _, o2, _ in borders]
    if len(shifts) >= 3 and len(set(shifts)) > 1:
        steps = [b - a for a, b in zip(shifts, shifts[1:])]
        if all(st >= 0 for st in steps) and shifts[-1] > shifts[0] or all(st <= 0 for st in steps) and shifts[-1] < shifts[0]:
            per = (shifts[-1] - shifts[0]) / (len(shifts) - 1)
            out.append(("drift", f"window starts drift: {'+' if per > 0 else '-'}{in_words(abs(round(per)))} per window "
                                 f"(the engine's openings move from {shifts[0]:+d} to {shifts[-1]:+d} ms off the expected ones)"))
    # widths: every window the engine declares (paired or not), else gracious mode's exact reconstructions
    declared = sorted({tuple(w.actual.window) for w in best.windows if w.actual is not None and w.actual.window})
    exact = [(g["opening"], g["closing"]) for g in (w.gracious for w in best.windows)
             if g is not None and g["precision"] == 1.0 and g["recall"] == 1.0]
    shape = declared if len(declared) >= 2 else exact * 2 if len(exact) == 1 else exact
    expected = next(((e.opening, e.closing) for e in (w.expected for w in best.windows) if e is not None), None)
    if len(shape) >= 2 and expected is not None:
        widths = [c - o for o, c in shape]
        width, want = median(widths), expected[1] - expected[0]
        if width != want and sum(1 for x in widths if x == width) * 2 > len(widths):
            text = f"the engine's windows look {in_words(width)} wide, not {in_words(want)}"
            openings = sorted({o for o, _ in shape})
            slides = [b - a for a, b in zip(openings, openings[1:])]
            slide = median(slides) if slides else None
            expected_slide = best.windows and case_slide(best)
            if slide and expected_slide and slide != expected_slide and declared:
                text += f", and slide by {in_words(slide)}, not {in_words(expected_slide)}"
            fits = window_that_explains(verdict, query, best, int(width), int(slide) if slide and declared else None)
            if fits:
                text += f"; the whole output is exactly the oracle's for {in_words(fits.range)} windows sliding by {in_words(fits.slide)}"
            out.append(("width", text + " — was it made with another window? (a replay manifest can say so)"))
    return out


def count_findings(best, verdict: CaseVerdict, query: R2R | None) -> list[tuple[str, str]]:
    """A count window has no time borders to compare: try the neighbouring counts and slides, and the
    other unit, and say which one reproduces the whole output exactly (oracle/s2r/counting.py)."""
    window = verdict.context["window"]
    if query is None:
        return []
    n, m = window.count, window.slide
    tries = [(n + d, m) for d in (-1, 1)] + [(n, m + d) for d in (-1, 1)] + [(n + d, m + d) for d in (-1, 1)]
    for count, slide in tries:
        if count >= 1 and slide >= 1 and verdict.explains(query, best.profile, CountWindowSpec(count, slide)):
            return [("count", f"the whole output is exactly the oracle's for count windows of {count} sliding by "
                              f"{slide}, not {n} sliding by {m}: an off-by-one in the engine's count?")]
    other = "triple" if best.profile.count_unit == "element" else "element"
    if verdict.explains(query, replace(best.profile, count_unit=other)):
        return [("count", f"the whole output is exactly the oracle's when the window counts {other}s, not "
                          f"{best.profile.count_unit}s as the engine declares")]
    return []


def window_that_explains(verdict, query, best, width: int, slide: int | None):
    """The window of the suspected width (tumbling, or with the declared slide) that reproduces every
    report exactly, if one does."""
    if verdict is None or query is None:
        return None
    for candidate in dict.fromkeys(s for s in (slide, width, case_slide(best)) if s):
        window = WindowSpec(width, candidate)
        if verdict.explains(query, best.profile, window):
            return window
    return None


def case_slide(best) -> int | None:
    openings = sorted({w.expected.opening for w in best.windows if w.expected is not None})
    return min((b - a for a, b in zip(openings, openings[1:])), default=None)
