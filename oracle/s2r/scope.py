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

    def last_window(self, t_last: int) -> int:
        """The highest k whose window has started by ``t_last`` (−1 if none has)."""
        k = (t_last - self.t0) // self.window.slide
        while k >= 0 and not self.started(k, t_last):
            k -= 1
        return k
