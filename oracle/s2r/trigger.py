"""A report decision of SECRET's Report and Tick (:class:`Trigger`), shared by time windows
(:mod:`oracle.s2r.secret`) and count windows (:mod:`oracle.s2r.counting`)."""

from __future__ import annotations

import math
from dataclasses import dataclass

END = math.inf
EMPTY = (0, 0)


@dataclass(frozen=True)
class Trigger:
    """A report decision: window ``k`` reports ``content`` at time ``tau``.

    ``unit`` is the index of the tick unit whose arrival triggered it (None for a clock instant or the
    end-of-stream flush); it is what stays fixed when t0 moves within one class.
    """

    tau: int
    k: int
    opening: int
    closing: int
    content: tuple[int, int]
    reason: str
    unit: int | None

    def structure(self, t0: int) -> tuple:
        """What must not change while t0 moves inside one breakpoint class."""
        tau = ("unit", self.unit) if self.unit is not None else ("clock", self.tau - t0)
        return (self.k, self.content, self.reason, tau)
