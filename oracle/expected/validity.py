"""Time-annotated data (seed 001, the TPF Query Streamer): facts valid over an interval, or until an
expiration time, instead of a window over a stream.

Facts.  Each element of the data is one fact (its triples) with
- an interval: valid at t iff ``t ≤ t < until`` (``tmp:initial``/``tmp:final``; several versions of one
  fact may follow each other, keeping its history), or
- an expiration: published at ``t`` and valid until ``expires`` (exclusive) — unless a newer version of
  the fact is published first, which replaces it (only the latest version is kept).  A newer version is
  a later fact with the same (subject, predicate) pairs: the train's delay, not the train.
Static data is valid at every instant.

Evaluation instants (the ValiditySpec, an S2R of its own): data-driven (``every`` None) — each instant at
which the valid set changes: a fact starts, ends, expires or is replaced; that is when the paper's client
fetches again (its "minimal expiration time") — or periodic: a client polling every p ms from 0, up to
the last change.  At an instant t the relation is the query over the static data plus the facts valid
at t; R2S and empty-result notification apply as for windows; a report's τ is t, and an engine that
labels reports names the instant as the window [t, t].  Nothing here is enumerated: the data fixes the
instants, so there is one admissible explanation (t0 plays no part).
"""

from __future__ import annotations

from dataclasses import dataclass

from oracle import r2s
from oracle.compare import fixed
from oracle.model import ExpectedReport, ObservedReport, Stream, ValiditySpec
from oracle.r2r.query import R2R
from oracle.r2r.solutions import Solutions
from oracle.s2r.scope import within_limit
from oracle.semantics import Profile

#: whole-output faults the diagnosis tries (a semantics that reproduces every report names the fault)
FAULTS = {
    "closed-end": "treats a fact as still valid at its final or expiration time (validity [initial, final] "
                  "instead of [initial, final))",
    "keeps-old-versions": "keeps a fact's old version after a newer one was published (expiration data keeps "
                          "only the latest version)",
    "replaces-by-subject": "lets a newer fact replace every older fact about its subject, whatever the predicate "
                           "(a newer version is a fact with the same subject and predicate)",
    "every-point": "evaluates at every start, end and expiration time, also where the valid facts did not change "
                   "(a replaced fact's own expiry)",
}


@dataclass(frozen=True)
class Semantics:
    """How validity is read: the correct reading, or one of the :data:`FAULTS` (for the diagnosis)."""

    closed_end: bool = False
    keeps_old_versions: bool = False
    poll_shift: int = 0  # periodic instants: the client polls every p + poll_shift ms (one unit off: ±1)
    by_subject: bool = False  # a newer fact replaces the older ones with the same subject, any predicate
    every_point: bool = False  # data-driven instants at every change point, changed or not


def _key(element, how: Semantics) -> frozenset:
    """What a fact is about: a later fact with the same key is its newer version."""
    if how.by_subject:
        return frozenset(s for s, _, _ in element.triples)
    return frozenset((s, p) for s, p, _ in element.triples)


def valid_at(stream: Stream, t: int, how: Semantics = Semantics()) -> tuple[int, ...]:
    """The indexes of the facts valid at instant t."""
    out = []
    latest: dict[frozenset, int] = {}
    if not how.keeps_old_versions:
        for i, e in enumerate(stream.elements):
            if e.expires is not None and e.t <= t:
                latest[_key(e, how)] = i  # elements are in time order: the last one published by t wins
    for i, e in enumerate(stream.elements):
        if e.t > t:
            break
        end = e.until if e.until is not None else e.expires
        if end is not None and (t > end if how.closed_end else t >= end):
            continue
        if e.expires is not None and not how.keeps_old_versions and latest.get(_key(e, how)) != i:
            continue
        out.append(i)
    return tuple(out)


def change_points(stream: Stream) -> list[int]:
    """Every time at which some fact starts, ends or expires (a replacement happens at a start)."""
    points = set()
    for e in stream.elements:
        points.add(e.t)
        for end in (e.until, e.expires):
            if end is not None:
                points.add(end)
    return sorted(points)


def instants(stream: Stream, spec: ValiditySpec, how: Semantics = Semantics()) -> list[tuple[int, tuple[int, ...]]]:
    """(instant, valid fact indexes) at every evaluation instant."""
    points = change_points(stream)
    if not points:
        return []
    if spec.every is not None:
        every = spec.every + how.poll_shift
        within_limit(points[-1] // every + 1, "evaluation instants", 0, points[-1],
                     f"evaluated every {every} ms from t=0")
        return [(t, valid_at(stream, t, how)) for t in range(0, points[-1] + 1, every)]
    out, previous = [], None
    for t in points:
        # a closed end makes the change one millisecond after the end
        for at in ((t, t + 1) if how.closed_end else (t,)):
            current = valid_at(stream, at, how)
            if current != previous or how.every_point:
                out.append((at, current))
                previous = current
    return out


def expected(stream: Stream, spec: ValiditySpec, query_text: str, profile: Profile,
             how: Semantics = Semantics(), evaluator: str = "auto") -> list[ExpectedReport]:
    """The oracle's reports: per instant, R2R over the static data and the valid facts, then R2S."""
    cache: dict[tuple[int, ...], Solutions] = {}

    def relation(valid: tuple[int, ...]) -> Solutions:
        if valid not in cache:
            sub = Stream(tuple(stream.elements[i] for i in valid), stream.static)
            cache[valid] = R2R(query_text, sub, evaluator).evaluate((0, len(valid)))
        return cache[valid]
    return list(r2s.streamed(((t, k, t, t, (0, 0), "validity", relation(valid))
                              for k, (t, valid) in enumerate(instants(stream, spec, how))), profile))


def check(stream: Stream, spec: ValiditySpec, query_text: str, profile: Profile, actual: list[ObservedReport],
          how: str, evaluator: str = "auto"):
    """The verdict: PASS iff the engine's reports are exactly the oracle's; else FAIL with per-instant
    precision/recall and, when one of :data:`FAULTS` reproduces the whole output, that fault named."""
    faults = [(name, FAULTS[name], lambda how_=how_: expected(stream, spec, query_text, profile, how_, evaluator))
              for name, how_ in (("closed-end", Semantics(closed_end=True)),
                                 ("keeps-old-versions", Semantics(keeps_old_versions=True)),
                                 ("replaces-by-subject", Semantics(by_subject=True)))]
    if spec.every is None:  # data-driven: an evaluation at every change point, whether the valid set changed
        faults.append(("every-point", FAULTS["every-point"], lambda: expected(
            stream, spec, query_text, profile, Semantics(every_point=True), evaluator)))
    if spec.every is not None:  # a client polling one unit off: every p + 1 or p - 1 ms
        faults += [("poll-period", f"polls every {spec.every + shift} ms where the query asks every {spec.every} ms "
                    "(one unit off)", lambda how_=Semantics(poll_shift=shift): expected(
                        stream, spec, query_text, profile, how_, evaluator))
                   for shift in (1, -1) if spec.every + shift >= 1]
    return fixed(expected(stream, spec, query_text, profile, evaluator=evaluator), actual, how,
                 R2R(query_text, stream).form, profile, stream, "the instants the data fixes", faults)
