"""Findings about the shape of an engine's windows, from the whole output: borders that drift, windows of
another width or slide (from gracious mode's reconstructions or the engine's declared borders), count
windows of another size; each stated with the evidence it rests on."""

from __future__ import annotations

from dataclasses import replace
from math import gcd
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
    found = width_finding(best, verdict, query)
    if found and found.startswith(WHOLE):  # another window explains everything: starts that seem to drift
        return [("width", found)]          # are that window's, not a drift of their own
    grid = None if found else grid_finding(best, verdict, query)
    if grid and grid[1].startswith(WHOLE):  # a grid that reproduces everything before a pattern of starts
        return [grid]
    out = []
    advance = per_solution_advance(verdict)
    if advance:  # one cause: the starts move by what was reported, which is also why they seem to drift
        return [("per-solution", advance)] + ([("width", found)] if found else [])
    if grid:
        return [grid]
    borders = window_borders(best)
    shifts = [(o2 - o1) for o1, _, o2, _ in borders]
    if len(shifts) >= 3 and len(set(shifts)) > 1:
        steps = [b - a for a, b in zip(shifts, shifts[1:])]
        if all(st >= 0 for st in steps) and shifts[-1] > shifts[0] or all(st <= 0 for st in steps) and shifts[-1] < shifts[0]:
            per = (shifts[-1] - shifts[0]) / (len(shifts) - 1)
            out.append(("drift", f"window starts drift: {'+' if per > 0 else '-'}{in_words(abs(round(per)))} per window "
                                 f"(the engine's openings move from {shifts[0]:+d} to {shifts[-1]:+d} ms off the expected ones)"))
    if found:
        out.append(("width", found))
    return out


def per_solution_advance(verdict: CaseVerdict | None) -> str | None:
    """The words for an engine whose declared window starts advance by one slide per solution it reported
    (each report's window opens (solutions of the report before) × slide after the one before, in every
    consecutive pair of reports that declare a window), or None.  rsp-js 1.3.5 does this: ``window.t0 +=
    window.slide`` for every binding it emits."""
    window = verdict.context.get("window") if verdict is not None else None
    actual = verdict.context.get("actual") if verdict is not None else None
    if not isinstance(window, WindowSpec) or not actual:
        return None
    declared = [(int(a.window[0]), len(a.solutions)) for a in actual
                if a.window is not None and not isinstance(a.solutions, bool)]
    pairs = list(zip(declared, declared[1:]))
    if not pairs or not all(o2 - o1 == n1 * window.slide for (o1, n1), (o2, _) in pairs):
        return None
    # evidence: a pair no correct engine makes — after a report of other than one solution (one is also the
    # normal step), a window the oracle does not report, or one past windows it reports (so not a correct engine
    # that left out empty ones), or the same window again where each window reports once, at its close
    expected = {w.expected.opening for w in verdict.best.windows if w.expected is not None}
    once = set(verdict.best.profile.report) <= {"window-close", "non-empty-content"}  # one report per window

    def telling(pair) -> bool:
        (o1, n1), (o2, _) = pair
        if n1 == 1:
            return False
        if o1 == o2:  # after an empty relation the same window again: no window reports twice at its close
            return once
        return o2 not in expected or any(o1 < o < o2 for o in expected)
    shown = next((pair for pair in pairs if telling(pair)), None)
    if shown is None:
        return None
    (o1, n1), (o2, _) = shown
    pairs_said = "its one pair" if len(pairs) == 1 else f"each of its {len(pairs)} pairs"
    return (f"its declared window starts advance by one slide per solution it reports, in {pairs_said} of "
            f"consecutive reports (a report of {n1} solutions opening at {o1} is followed by one opening at "
            f"{o2} = {o1} + {n1} × {window.slide} ms): its windows run ahead of the stream, and the reports of the "
            "windows it skips are missing")


def count_findings(best, verdict: CaseVerdict, query: R2R | None) -> list[tuple[str, str]]:
    """A count window has no time borders to compare: try the other unit, ties taken in, no flush, the
    slide applied as time, then the neighbouring counts and slides, and say which reproduce the whole
    output exactly (oracle/s2r/counting.py); a case that cannot tell two apart says both."""
    window = verdict.context["window"]
    if query is None:
        return []
    n, m = window.count, window.slide
    found = []  # every hypothesis that reproduces the output: a case that cannot tell two apart says both
    other = "triple" if best.profile.count_unit == "element" else "element"
    if verdict.explains(query, replace(best.profile, count_unit=other)):
        found.append(f"when the window counts {other}s, not {best.profile.count_unit}s as the engine declares "
                     "(count_unit)")
    if verdict.explains(query, best.profile, replace(window, ties="extend")):
        found.append(f"when each count window also takes in the units that share its last unit's timestamp "
                     f"(ties in time extend it), not split at the count of {n}")
    if best.profile.end_of_stream == "flush" and verdict.explains(query, replace(best.profile, end_of_stream="drop")):
        found.append("when the windows still open at the end of the stream are not flushed (end_of_stream drop, "
                     "not the declared flush)")
    if verdict.explains(query, best.profile, replace(window, slide_unit="ms")):
        found.append(f"when the last {n} units are reported every {m} ms from the first full window on, not "
                     f"every {m} units (the count slide applied as time)")
    tries = [] if found else [(n + d, m) for d in (-1, 1)] + [(n, m + d) for d in (-1, 1)] + [(n + d, m + d)
                                                                                              for d in (-1, 1)]
    for count, slide in tries:
        if count >= 1 and slide >= 1 and verdict.explains(query, best.profile, CountWindowSpec(count, slide)):
            found.append(f"for count windows of {count} sliding by {slide}, not {n} sliding by {m} (an off-by-one "
                         "in the engine's count?)")
            break
    if not found:
        return []
    return [("count", "the whole output is exactly the oracle's " + ", and ".join(found)
             + (" (this case cannot tell them apart)" if len(found) > 1 else ""))]


WHOLE = "the whole output is exactly the oracle's for "
#: at most this many windows are tried as the one a whole output was made with (a bound on work)
MAX_TRIED = 16


def width_finding(best, verdict: CaseVerdict | None, query: R2R | None) -> str | None:
    """Another width or slide, stated only with the evidence for it.

    Suspected widths come from the borders the engine declares, or gracious mode's exact reconstructions.
    The claim is made (1) when a window a user would have written — the suspected widths, the case's own
    width's divisors and multiples, whole seconds — reproduces the whole output exactly, naming every width
    tried and, where several fit (a sparse stream cannot tell them apart), each of them; or (2) without
    such a window, only from declared borders, when a majority of the engine's windows state one width.
    One reconstructed window is never a claim about the whole output."""
    expected = next(((e.opening, e.closing) for e in (w.expected for w in best.windows) if e is not None), None)
    if expected is None:
        return None
    want, want_slide = expected[1] - expected[0], case_slide(best)
    declared = sorted({tuple(w.actual.window) for w in best.windows if w.actual is not None and w.actual.window})
    exact = sorted({(g["opening"], g["closing"]) for g in (w.gracious for w in best.windows)
                    if g is not None and g["precision"] == 1.0 and g["recall"] == 1.0})
    shape = declared if len(declared) >= 2 else exact
    suspects = sorted({c - o for o, c in shape} - {want})
    if not suspects:
        return None
    declared_slide = _slide_of(declared) if len(declared) >= 2 else None
    tried = candidate_widths(want, suspects)
    fits = [(w, s) for w in tried for s in _slides(w, want_slide, declared_slide)
            if verdict is not None and query is not None and verdict.explains(query, best.profile, WindowSpec(w, s))]
    named = ", ".join(in_words(w) for w in tried)
    if fits:
        widths = sorted({w for w, _ in fits})
        slides = sorted({s for _, s in fits})
        which = (f"{in_words(widths[0])} windows" if len(widths) == 1 else
                 f"windows of each width from {in_words(widths[0])} to {in_words(widths[-1])} among those tried "
                 f"({', '.join(in_words(w) for w in widths)}: the data cannot tell them apart)")
        sliding = " or ".join(in_words(s) for s in slides)
        return (f"{WHOLE}{which} sliding by {sliding}, not {in_words(want)} "
                f"windows sliding by {in_words(want_slide or want)} (widths tried: {named}) — was it made with "
                "another window? (a replay manifest can say so)")
    if len(declared) >= 2:
        widths = [c - o for o, c in declared]
        width = median(widths)
        if width != want and sum(1 for x in widths if x == width) * 2 > len(widths):
            text = (f"the engine declares windows {in_words(width)} wide, not {in_words(want)}, in "
                    f"{sum(1 for x in widths if x == width)} of its {len(widths)} reports")
            if declared_slide and want_slide and declared_slide != want_slide:
                text += f", sliding by {in_words(declared_slide)}, not {in_words(want_slide)}"
            return text + f"; no window tried reproduces its whole output (widths tried: {named})"
    return None


def grid_finding(best, verdict: CaseVerdict | None, query: R2R | None) -> tuple[str, str] | None:
    """Windows of the case's width on another grid than the expected one, from the borders the engine
    declares (each as wide as the case's window): another t0 (the openings all fall on one residue of the
    slide, not the declared t0's), or another slide (the range: the slide ignored; or a shorter one).  Claimed as
    the cause of the whole output when that grid reproduces it exactly; another t0 also when each of two or more
    declared windows opens on it (the engine's own stamps say so) though that t0 does not reproduce the output;
    another slide only when it reproduces the output (a correct engine that leaves out empty windows declares
    gaps of several slides; starts that drift by a constant amount look like a longer slide, and the drift
    finding names them)."""
    window = verdict.context.get("window") if verdict is not None else None
    if not isinstance(window, WindowSpec) or query is None or not isinstance(best.profile.t0, int):
        return None  # a t0 the engine declares (``any`` or ``aligned`` leaves the oracle to find it)
    declared = sorted({(int(w.actual.window[0]), int(w.actual.window[1])) for w in best.windows
                       if w.actual is not None and w.actual.window is not None})
    if not declared or any(c - o != window.range for o, c in declared):
        return None
    openings = [o for o, _ in declared]
    step = 0
    for a, b in zip(openings, openings[1:]):
        step = gcd(step, b - a)
    residue, expected = openings[0] % window.slide, best.t0 % window.slide
    sample = ", ".join(f"[{o}, {c})" for o, c in declared[:2])
    # another slide: the range (tumbling, the slide ignored) or a shorter one; a longer one is what starts that
    # drift by a constant amount look like (the drift finding names it), or a right engine leaving out empty windows
    if step and step != window.slide and (step == window.range or step < window.slide):
        t0 = openings[0] % step
        if verdict.explains(query, replace(best.profile, t0=t0), replace(window, slide=step), t0=t0):
            return ("width", f"{WHOLE}windows of {in_words(window.range)} sliding by {in_words(step)} (the engine "
                             f"declares {sample}, …), not by the case's {in_words(window.slide)}"
                             + (": it ignores the slide?" if step == window.range else ""))
        if step % window.slide:  # openings off the slide's grid: no t0 makes them
            return None
    if residue == expected or any(o % window.slide != residue for o in openings):
        return None
    said = (f"the engine declares windows opening at {residue} + k·{in_words(window.slide)} ({sample}, …), not at "
            f"{expected} + k·{in_words(window.slide)} as its declared t0 {best.t0} says")
    if verdict.explains(query, replace(best.profile, t0=residue), window, t0=residue):
        return ("shifted-t0", f"{WHOLE}t0 {residue}: {said}")
    if len(declared) < 2:  # one declared window is a claim about the whole output only when it reproduces it
        return None
    return ("shifted-t0", f"{said}, in each of its {len(declared)} declared windows; t0 {residue} does not "
                          "reproduce its whole output")


def candidate_widths(want: int, suspects: list[int]) -> list[int]:
    """The widths a user would have written near the case's ``want``: the suspected ones, ``want``'s
    divisors and multiples, and whole seconds up to the largest of those; at most :data:`MAX_TRIED`."""
    near = set(suspects)
    near |= {want // d for d in (2, 3, 4, 5, 10) if want % d == 0}
    near |= {want * m for m in (2, 3, 5, 10)}
    top = max(near | {want})
    near |= {s * 1000 for s in range(1, min(top // 1000, 10) + 1)}
    near.discard(want)
    ordered = sorted(w for w in near if w > 0)
    keep = list(dict.fromkeys(suspects + sorted(ordered, key=lambda w: (abs(w - want), w))))[:MAX_TRIED]
    return sorted(keep)


def _slides(width: int, case_slide: int | None, declared: int | None) -> list[int]:
    """The slides tried with a width: the declared one, the case's (when it is not wider), and tumbling."""
    out = [s for s in (declared, case_slide) if s]
    return list(dict.fromkeys([s for s in out if s <= width] + [width]))


def _slide_of(windows) -> int | None:
    openings = sorted({o for o, _ in windows})
    gaps = [b - a for a, b in zip(openings, openings[1:])]
    return int(median(gaps)) if gaps else None


def case_slide(best) -> int | None:
    openings = sorted({w.expected.opening for w in best.windows if w.expected is not None})
    return min((b - a for a, b in zip(openings, openings[1:])), default=None)
