"""The oracle's output stream for one concrete profile and t0: S2R → R2R → R2S."""

from __future__ import annotations

from typing import Iterator

from oracle import r2s
from oracle.model import ExpectedReport, Stream, WindowSpec
from oracle.r2r.query import R2R
from oracle.s2r.secret import simulate
from oracle.semantics import Profile


def output(stream: Stream, window: WindowSpec, profile: Profile, t0: int, query: R2R) -> list[ExpectedReport]:
    """Every report the profile prescribes, in order (see :func:`reports`)."""
    return list(reports(stream, window, profile, t0, query))


def reports(stream: Stream, window: WindowSpec, profile: Profile, t0: int, query: R2R) -> Iterator[ExpectedReport]:
    """The reports the profile prescribes, lazily: R2R runs only for the reports a caller asks for.

    Istream/Dstream difference each evaluated relation against the previous *evaluated* one (whether
    or not that one was streamed out); without empty-result notification an empty result is not
    streamed out.
    """
    decisions = ((trig.tau, trig.k, trig.opening, trig.closing, trig.content, trig.reason,
                  query.evaluate(trig.content)) for trig in simulate(stream, window, profile, t0))
    return r2s.streamed(decisions, profile)
