"""The case verdict over every admissible explanation.

PASS iff some admissible explanation — a profile variant the case allows and a t0 — reproduces every
report exactly (same bags; same sequence under ORDER BY; no missing or extra report).  Otherwise FAIL,
with the best explanation (highest mean F1 over windows, first in enumeration order on ties).  How one
expected output is compared with the engine's (alignment, precision/recall, order) is :mod:`oracle.compare`.
"""

from __future__ import annotations

import time

from oracle.compare import (
    ALIGNMENTS,
    CaseVerdict,
    Explanation,
    compare,
    exact,
    observed_solutions,
    out_of_order,
    unjudged,
)
from oracle.expected.windows import output, reports
from oracle.model import CountWindowSpec, ObservedReport, Stream, WindowSpec
from oracle.r2r.query import R2R
from oracle.s2r import counting
from oracle.s2r import t0 as t0mod
from oracle.s2r.secret import simulate
from oracle.semantics import Profile, ProfileSpace


class JudgeTimeout(Exception):
    """The oracle could not judge within the time it was given (a harness limit, not an engine fault)."""


def candidate_t0s(stream: Stream, window: WindowSpec, profile: Profile, actual: list[ObservedReport],
                  how: str) -> list[tuple[int, tuple[int, int]]]:
    """(t0, its class) for every breakpoint class, plus the t0 values the engine's declarations pin."""
    if isinstance(window, CountWindowSpec):  # positions: each its own class (oracle/s2r/counting.py)
        return [(t, (t, t)) for t in counting.candidates(window, profile)]
    lo, hi = t0mod.t0_range(stream, window, profile)
    starts = t0mod.breakpoints(stream, window, profile)
    ends = [s - 1 for s in starts[1:]] + [hi]
    classes = dict(zip(starts, ends))
    chosen = set(starts)
    if how == "window":
        chosen.update(t0mod.hinted(lo, hi, window, [a.window[0] for a in actual if a.window]))
    elif how == "time" and profile.tick == "time-driven":
        shift = window.range + (1 if profile.close == ">" else 0)
        chosen.update(t0mod.hinted(lo, hi, window, [a.tau - shift for a in actual if a.tau is not None]))
    out = []
    for t in sorted(chosen):
        first = t0mod.class_of(t, starts)
        out.append((t, (first, classes[first])))
    return out


def check(stream: Stream, window: WindowSpec, query: R2R | str, space: ProfileSpace,
          actual: list[ObservedReport], how: str = "order", deadline: float | None = None,
          closest: bool = True) -> CaseVerdict:
    """Judge an engine's reports against every admissible explanation.

    First pass: every candidate (profile variant × t0) is compared lazily and dropped at its first
    wrong report, which finds every exact explanation cheaply.  Only when none is exact does a second
    pass compare every candidate in full to find the best (highest mean F1) explanation; ``closest``
    False skips it (a FAIL without an explanation, ``best`` None: for a caller that asks only whether
    some explanation holds, and would pay for evaluating every window of every candidate).
    Past ``deadline`` (a :func:`time.monotonic` instant) it raises :class:`JudgeTimeout`.
    """
    def on_time(done: int) -> None:
        if deadline is not None and time.monotonic() > deadline:
            raise JudgeTimeout(f"the oracle judged {done} of {len(candidates)} candidate explanations "
                               "before the case timeout")

    if how not in ALIGNMENTS:
        raise ValueError(f"alignment must be one of {ALIGNMENTS}, got {how!r}")
    if isinstance(query, str):
        query = R2R(query, stream)
    sols = [observed_solutions(a, query.form, query.concat) for a in actual]
    candidates = [(variant, t0, cls) for variant in space.variants()
                  for t0, cls in candidate_t0s(stream, window, variant, actual, how)]
    candidates, beyond = _within_stream(stream, window, candidates)
    if beyond and not actual:  # every t0 admitted lies after the stream, and nothing was said
        variant, t0, _ = candidates[0]
        return unjudged(variant.with_t0(t0), t0, len(candidates), how, beyond)
    if query.executor is not None:  # every content any candidate evaluates, at once (oracle/r2r/executors.py)
        query.prefetch(trigger.content for variant, t0, _ in candidates
                       for trigger in simulate(stream, window, variant, t0))
    explaining: list[tuple[dict, tuple[int, int]]] = []
    first_exact = None
    # no exact explanation is possible for a disordered output: the lazy first pass is skipped then
    for n, (variant, t0, cls) in enumerate([] if beyond or out_of_order(actual) else candidates):
        on_time(n)
        if exact(reports(stream, window, variant, t0, query), actual, sols, how, variant, stream):
            entry = (variant.describe(), cls)
            if entry not in explaining:
                explaining.append(entry)
            if first_exact is None:
                first_exact = (variant, t0, cls)
    if first_exact is not None:
        variant, t0, cls = first_exact
        best = Explanation(variant.with_t0(t0), t0, cls,
                           compare(output(stream, window, variant, t0, query), actual, how, query.form, sols,
                                   variant, stream))
        vacuous = not best.windows and len(stream) > 0
        return CaseVerdict("PASS", best, explaining, len(candidates), how, vacuous=vacuous)
    if not closest:
        return CaseVerdict("FAIL", None, explaining, len(candidates), how)
    best = None
    for n, (variant, t0, cls) in enumerate(candidates):
        on_time(n)
        exp = Explanation(variant.with_t0(t0), t0, cls,
                          compare(output(stream, window, variant, t0, query), actual, how, query.form, sols,
                                  variant, stream))
        if best is None or exp.mean_f1 > best.mean_f1 + 1e-12:
            best = exp
    assert best is not None
    verdict = CaseVerdict("FAIL", best, explaining, len(candidates), how,
                          context={"stream": stream, "window": window, "actual": actual, "sols": sols, "how": how})
    if beyond:
        verdict.notes.append(beyond)
    return verdict


def _within_stream(stream: Stream, window, candidates: list) -> tuple[list, str | None]:
    """The candidates whose t0 lets some window hold an element (a t0 after the stream explains nothing:
    it is never tried as an explanation), and None; or, when every t0 admitted lies after the stream, all
    of them and the words for it (nothing can be compared)."""
    by_position = isinstance(window, CountWindowSpec)
    viable = [c for c in candidates if not t0mod.after_stream(stream, c[1], by_position)]
    if candidates and not viable:
        return candidates, t0mod.nothing_held(stream, sorted({t0 for _, t0, _ in candidates}), by_position)
    return viable, None


def over_profiles(semantics, stream: Stream, window, query: str, space: ProfileSpace, actual, how: str,
                  evaluator: str = "auto") -> CaseVerdict:
    """The verdict of a window kind's fixed-instant module (:mod:`oracle.judge.kinds`) over every profile the
    space admits (for several windows: the evaluation-instant policies an engine leaves open): the first that
    explains the output, named when there were several, else the closest, with how many were tried."""
    variants, varied = list(space.variants()), sorted(space.varied())
    best = None
    for variant in variants:
        verdict = semantics.check(stream, window, query, variant, actual, how, evaluator)
        if verdict.verdict == "PASS":
            if len(variants) > 1:
                chosen = ", ".join(f"{name} {variant.describe().get(name)}" for name in varied)
                verdict.notes.append(f"explained by {chosen}, one of {len(variants)} admissible profiles")
            return verdict
        if best is None or verdict.best.mean_f1 > best.best.mean_f1:
            best = verdict
    if len(variants) > 1:
        best.notes.append(f"no admissible profile explains the output: {len(variants)} tried (varying "
                          f"{', '.join(varied)}); the closest is shown")
    return best
