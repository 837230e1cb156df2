"""YABench's gracious mode: shift a window's borders to find the window the engine really used.

For one engine report, try window contents whose borders lie on element timestamps near the expected
window, and keep the one whose result best matches the engine's (highest F1, then fewest shifted
elements).  The search is coordinate ascent — best opening for the current closing, then best closing
for that opening, until nothing improves — because trying every pair costs a query per pair.  Each side
is searched coarse to fine (:func:`_refine`): a dense stream has hundreds of borders within reach (50
stations with their own offsets), each an R2R evaluation, so :data:`CANDIDATES` evenly spread ones are
tried first and the search narrows around the best.
The reconstructed borders reveal a late purge (opening moved left) or a shifted window.
"""

from __future__ import annotations

import time
from bisect import bisect_left
from dataclasses import dataclass

from oracle import r2s
from oracle.compare import compare_bags
from oracle.r2r.query import R2R
from oracle.r2r.solutions import Solutions


@dataclass(frozen=True)
class GraciousWindow:
    opening: int
    closing: int
    content: tuple[int, int]
    precision: float
    recall: float

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 0.0 if p + r == 0 else 2 * p * r / (p + r)

    def describe(self) -> dict:
        return {"opening": self.opening, "closing": self.closing, "precision": self.precision,
                "recall": self.recall}


#: candidate borders tried per side of a window: a dense stream has hundreds within reach (50 stations
#: with their own offsets), each an R2R evaluation; evenly spread ones keep a window to a few dozen
CANDIDATES = 8


def _thin(candidates: list[int], limit: int = CANDIDATES) -> list[int]:
    if len(candidates) <= limit:
        return candidates
    step = (len(candidates) - 1) / (limit - 1)
    return sorted({candidates[round(k * step)] for k in range(limit)})


def _refine(candidates: list[int], score, late):
    """Coarse to fine: score at most CANDIDATES evenly spread candidates, then narrow to the neighbours of
    the best and repeat until every candidate left was scored.  (score, window result, candidate) or None."""
    pool, best, seen = candidates, None, {}
    while pool and not late():
        for c in _thin(pool):
            if c not in seen and not late():
                seen[c] = score(c)
                if best is None or seen[c][0] > best[0]:
                    best = (seen[c][0], seen[c][1], c)
        if len(pool) <= CANDIDATES or best is None:
            break
        i = pool.index(best[2]) if best[2] in pool else 0
        span = max(1, int(len(pool) / (CANDIDATES - 1)) + 1)
        narrowed = pool[max(0, i - span): i + span + 1]
        if len(narrowed) >= len(pool):
            break
        pool = narrowed
    return best


def _group_starts(times: list[int]) -> list[int]:
    return [i for i in range(len(times)) if i == 0 or times[i] != times[i - 1]] + [len(times)]


def reconstruct(query: R2R, operator: str, expected_content: tuple[int, int], opening: int, closing: int,
                actual: Solutions, previous: Solutions | None, reach: int,
                deadline: float | None = None) -> GraciousWindow:
    """The borders (on element timestamps within ``reach`` ms of the expected ones) that best explain
    ``actual``; ties keep the borders closest to the expected ones.  Trial windows are evaluated without
    filling the query's cache (they are many; the latest are remembered apart, up to a bound, for the
    second round and the next window: :data:`oracle.r2r.query.TRIAL_SOLUTIONS`), and past ``deadline``
    (a monotonic instant) the search stops with the best borders found so far."""
    times = query.stream.times
    n = len(times)
    cuts = _group_starts(times)
    lo_cands = [i for i in cuts if i < n and opening - reach <= times[i] <= opening + reach]
    hi_cands = [i for i in cuts if i > 0 and closing - reach <= times[i - 1] <= closing + reach]
    if expected_content != (0, 0):
        lo0, hi0 = expected_content
    else:
        lo0, hi0 = bisect_left(times, opening), bisect_left(times, closing)

    def score(lo: int, hi: int):
        content = (lo, hi) if lo < hi else (0, 0)
        out = r2s.apply(operator, query.evaluate(content, keep=content == expected_content), previous)
        w = compare_bags(out, actual)
        return (w.f1, -abs(lo - lo0) - abs(hi - hi0)), w

    def late() -> bool:
        return deadline is not None and time.monotonic() > deadline

    lo, hi = lo0, hi0
    best, best_w = score(lo, hi)
    for _ in range(2):
        improved = False
        found = _refine([c for c in lo_cands if c < hi], lambda c: score(c, hi), late)
        if found and found[0] > best:
            (best, best_w), lo, improved = found[:2], found[2], True
        found = _refine([c for c in hi_cands if c > lo], lambda c: score(lo, c), late)
        if found and found[0] > best:
            (best, best_w), hi, improved = found[:2], found[2], True
        if not improved:
            break
    new_open = opening if lo == lo0 else (times[lo] if lo < n else closing)
    new_close = closing if hi == hi0 else (times[hi] if hi < n else (times[-1] + 1 if n else closing))
    return GraciousWindow(new_open, new_close, (lo, hi), best_w.precision, best_w.recall)
