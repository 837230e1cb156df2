"""Profiles as written in YAML/JSON (a value or a list of admissible values per parameter).

The admissible semantics of one run of one case = the engine's declared profile, with the parameters
the case fixes replaced by the case's values, and the parameters the case lets the oracle vary
replaced by the case's admissible values.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from oracle.durations import parse_duration
from oracle.model import CountWindowSpec, MultiWindowSpec
from oracle.s2r.t0 import default_range
from oracle.semantics import Profile, ProfileSpace

NAMES = [f.name for f in fields(Profile)]


def _values(name: str, value: Any) -> tuple:
    if name == "report":
        # a list of conditions, or a list of such lists (alternatives)
        if value and isinstance(value[0], (list, tuple)):
            return tuple(frozenset(v) for v in value)
        return (frozenset(value),)
    if name == "t0_range":
        return (tuple(value) if value is not None else None,)
    if name == "periodic":
        return (None if value is None else parse_duration(value),)
    if isinstance(value, list):
        return tuple(value)
    return (value,)


ALIGNED = "aligned"


def aligned_t0(window, first: int) -> int:
    """t0 of windows that close at multiples of the slide, [kβ − ω, kβ) (Esper, C-SPARQL, RSP4J, rsp-js):
    the opening of the earliest such window that holds the stream's first element (it may be negative:
    a partial first window)."""
    r = (window.slide - window.range) % window.slide
    k = -((-(first - window.range + 1 - r)) // window.slide)  # ceil
    return k * window.slide + r


def _resolve(t0, window, stream):
    """``aligned`` as a number (any number will do for validation, before a case is known); among several
    windows it stays ``aligned``: each window's t0 is its own (:func:`oracle.expected.multiwindow.t0_candidates`)."""
    if t0 != ALIGNED or isinstance(window, MultiWindowSpec):
        return t0
    return aligned_t0(window, stream.elements[0].t) if window is not None and stream and stream.elements else 0


def space(declared: dict, fixed: dict | None = None, vary: dict | None = None, window=None,
          stream=None) -> ProfileSpace:
    """The ProfileSpace for an engine's declared profile under a case's fixed/vary semantics.

    ``t0: aligned`` (windows closing at multiples of the slide) becomes a number once the window and
    the stream are known.  When the case lets t0 vary (``any``) and the engine declares a t0, the range
    the oracle tries includes the declared one: a case that does not test t0 must not fail an engine
    for the t0 it says it uses — unless that t0 lies after the stream's last element, where no window
    can hold data."""
    merged: dict[str, Any] = {}
    for source in (declared, fixed or {}, vary or {}):
        for name, value in source.items():
            if name not in NAMES:
                raise ValueError(f"unknown profile parameter {name!r}; known: {', '.join(NAMES)}")
            merged[name] = value
    if isinstance(window, CountWindowSpec):
        # a count window starts at a position, not a time: the engine declares count_t0 (the position of
        # the unit that opens its first window), and its time t0 means nothing here (oracle/s2r/counting.py)
        merged.pop("t0_range", None)
        merged["t0"] = merged.pop("count_t0", "any")
        return ProfileSpace.from_choices({name: _values(name, value) for name, value in merged.items()})
    if isinstance(window, MultiWindowSpec) and any(w.count is not None for w in window.windows):
        merged["count_t0"] = merged.get("count_t0", "any")  # the count windows' own t0 (oracle/expected/multiwindow.py)
    else:
        merged.pop("count_t0", None)
    if isinstance(window, MultiWindowSpec):
        # when the query is evaluated: the case's own choice if its query states one; else the engine's
        # declaration, or every policy the windows admit (oracle/expected/multiwindow.py)
        if window.instants is not None:
            merged["instants"] = window.policy()
        elif merged.get("instants", "any") == "any":
            merged["instants"] = window.policies()
    else:
        merged.pop("instants", None)
    own = _resolve(declared.get("t0"), window, stream)
    merged["t0"] = _resolve(merged.get("t0", "any"), window, stream)
    # a declared t0 widens the range only if some window can hold data: a t0 after the last element
    # would let an engine that says nothing PASS (the range stays the stream's own then)
    if (merged["t0"] == "any" and isinstance(own, int) and not isinstance(own, bool)
            and merged.get("t0_range") is None and window is not None and stream is not None
            and stream.elements and own <= stream.elements[-1].t):
        lo, hi = default_range(stream, window)
        merged["t0_range"] = [min(lo, own), max(hi, own)]
    choices = {name: _values(name, value) for name, value in merged.items()}
    return ProfileSpace.from_choices(choices)


def profile(values: dict, window=None) -> Profile:
    """One concrete profile from YAML values (each parameter a single value); for a count ``window``,
    ``count_t0`` is its t0 (as in :func:`space`)."""
    variants = list(space(values, window=window).variants())
    if len(variants) != 1:
        raise ValueError(f"profile {values} names more than one variant")
    return variants[0]


