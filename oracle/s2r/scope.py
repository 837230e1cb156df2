"""SECRET's Scope and Content: which window instances exist and which elements each one holds.

Window k has borders o_k = t0 + kβ and c_k = o_k + ω (k ≥ 0).  Because the stream is sorted by time,
the elements of a window that have arrived so far are always one contiguous run of element indexes,
so a window's content is a half-open index range ``(lo, hi)`` — small, hashable, and the key of the
R2R cache.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass

from oracle.model import WindowSpec

MAX_WINDOWS = 1_000_000  # windows or instants one simulation visits one by one; past it the case is refused


class TooManyWindows(ValueError):
    """The expected output of a case runs past :data:`MAX_WINDOWS` windows: a far-out timestamp, most often."""


def within_limit(count: int, what: str, first: int, last: int, how: str) -> int:
    """``count`` if it is at most :data:`MAX_WINDOWS`, else the case is refused with the words for why."""
    if count > MAX_WINDOWS:
        raise TooManyWindows(
            f"the expected output would need more than {MAX_WINDOWS:,} {what}: the stream runs from t={first} "
            f"to t={last} ms, {how}; look for a far-out timestamp in the stream (an epoch-millisecond stamp "
            "among relative ones?)")
    return count


@dataclass(frozen=True)
class Scope:
    """The window instances of one window spec for one t0 and one boundary convention."""

    window: WindowSpec
    t0: int
    boundary: str = "[o,c)"

    def opening(self, k: int) -> int:
        return self.t0 + k * self.window.slide

    def closing(self, k: int) -> int:
        return self.opening(k) + self.window.range

    def contains(self, k: int, t: int) -> bool:
        o, c = self.opening(k), self.closing(k)
        if self.boundary == "[o,c)":
            return o <= t < c
        if self.boundary == "[o,c]":
            return o <= t <= c
        return o < t <= c

    def started(self, k: int, now: int | float) -> bool:
        """Whether window k can hold an element stamped ``now`` or earlier (it has opened)."""
        o = self.opening(k)
        return o < now if self.boundary == "(o,c]" else o <= now

    def content(self, k: int, times: list[int], arrived: int) -> tuple[int, int]:
        """Index range of the elements among the first ``arrived`` that window k holds ((0, 0) if none)."""
        o, c = self.opening(k), self.closing(k)
        left = bisect_right if self.boundary == "(o,c]" else bisect_left
        right = bisect_left if self.boundary == "[o,c)" else bisect_right
        lo = left(times, o, 0, arrived)
        hi = right(times, c, 0, arrived)
        return (lo, hi) if lo < hi else (0, 0)

    def next_holding(self, k: int, times: list[int]) -> int | None:
        """The smallest k' ≥ k whose [o, c] — both borders included, so that under every convention and close
        rule any other window is empty at every moment — holds some element time (None if none does): the
        windows over a gap in the stream are skipped in closed form, never one by one."""
        i = bisect_left(times, self.opening(k))
        while i < len(times):
            t = times[i]
            k = max(k, -((self.t0 + self.window.range - t) // self.window.slide))  # first k with c_k ≥ t
            if self.opening(k) <= t:
                return k
            i = bisect_left(times, self.opening(k), i)  # t falls between two windows (β > ω)
        return None

    def closed_by(self, x: int, close: str) -> int:
        """The highest k whose window is closed at instant ``x`` (c ≤ x for close ``>=``, c < x for ``>``)."""
        limit = x if close == ">=" else x - 1
        return (limit - self.t0 - self.window.range) // self.window.slide

    def last_window(self, t_last: int) -> int:
        """The highest k whose window has started by ``t_last`` (−1 if none has)."""
        k = (t_last - self.t0) // self.window.slide
        while k >= 0 and not self.started(k, t_last):
            k -= 1
        return k
