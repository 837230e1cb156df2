"""Operational semantics as data: a :class:`Profile` is one concrete semantics (CSRBench's "system
description": SECRET's report, tick and t0 plus CQL's R2S and the kit's further dimensions); a
:class:`ProfileSpace` is the set of profiles a case admits, each parameter a tuple of values.  How a
declared profile in YAML/JSON becomes a space is :mod:`oracle.profiles`."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, fields, replace
from typing import Any, Iterable, Iterator, Mapping

from oracle.model import (
    BOUNDARIES,
    CLOSE_RULES,
    COUNT_UNITS,
    END_OF_STREAM,
    GRAINS,
    GRANULARITIES,
    MULTIPLICITIES,
    POLICIES,
    R2S_OPERATORS,
    REPORT_CONDITIONS,
    TICKS,
)


@dataclass(frozen=True)
class Profile:
    """One concrete operational semantics; every item is a declared, named parameter.

    ``t0`` is an integer (ms), ``"aligned"`` (among several windows: each window's own aligned t0,
    :func:`oracle.profiles.aligned_t0`; elsewhere it is resolved before a Profile is made) or ``"any"``;
    with ``"any"`` the oracle tries every t0 in ``t0_range`` (inclusive, ms; default: from the first
    element's time to that plus the window range, CSRBench's range at millisecond resolution).
    ``report`` is a conjunction of conditions from :data:`REPORT_CONDITIONS`; ``periodic`` (ms) adds
    SECRET's periodic condition.  ``multiplicity`` says whether the engine's relations are bags or sets.
    ``count_t0`` is the t0 of count windows among several windows (a position, or ``"any"``; None when
    the query has none): a lone count window takes its position as ``t0`` itself (:mod:`oracle.s2r.counting`).
    ``instants`` is when a query over several windows is evaluated (:class:`MultiWindowSpec`; None for
    other queries): ``any-close``, ``all-close``, ``content-change`` or ``closes-of:<window IRI>``.

    A profile whose parameters contradict each other (one silently defeats another) is rejected with a
    message that says which value to use: see :meth:`contradictions`.
    """

    t0: int | str = "any"
    t0_range: tuple[int, int] | None = None
    report: frozenset[str] = frozenset({"window-close"})
    periodic: int | None = None
    tick: str = "tuple-driven"
    granularity: str = "timestamp"
    grain: str = "multiple"
    r2s: str = "rstream"
    empty: bool = True
    boundary: str = "[o,c)"
    close: str = ">="
    end_of_stream: str = "drop"
    multiplicity: str = "bag"
    count_unit: str = "element"
    count_t0: int | str | None = None
    instants: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "report", frozenset(self.report))
        problems = []
        if not (self.t0 in ("any", "aligned") or (isinstance(self.t0, int) and not isinstance(self.t0, bool))):
            problems.append(f"t0 must be an integer (ms), 'aligned' or 'any', got {self.t0!r}")
        if not (self.count_t0 in (None, "any") or (isinstance(self.count_t0, int)
                                                  and not isinstance(self.count_t0, bool))):
            problems.append(f"count_t0 must be an integer (a position) or 'any', got {self.count_t0!r}")
        if not (self.instants is None or self.instants in POLICIES or str(self.instants).startswith("closes-of:")):
            problems.append(f"instants must be one of {', '.join(POLICIES)} or closes-of:<window IRI>, "
                            f"got {self.instants!r}")
        if self.t0_range is not None:
            lo, hi = self.t0_range
            if lo > hi:
                problems.append(f"t0_range {self.t0_range} is empty")
        for name, allowed in (("tick", TICKS), ("granularity", GRANULARITIES), ("grain", GRAINS),
                              ("r2s", R2S_OPERATORS), ("boundary", BOUNDARIES), ("close", CLOSE_RULES),
                              ("end_of_stream", END_OF_STREAM), ("multiplicity", MULTIPLICITIES),
                              ("count_unit", COUNT_UNITS)):
            if getattr(self, name) not in allowed:
                problems.append(f"{name} must be one of {', '.join(allowed)}, got {getattr(self, name)!r}")
        unknown = self.report - set(REPORT_CONDITIONS)
        if unknown:
            problems.append(f"unknown report condition(s) {sorted(unknown)}; use {', '.join(REPORT_CONDITIONS)}"
                            " and the separate 'periodic' parameter")
        if not ({"window-close", "content-change"} & self.report) and self.periodic is None:
            problems.append("the report policy needs a trigger: window-close, content-change or periodic")
        if self.periodic is not None and self.periodic <= 0:
            problems.append(f"periodic must be a positive number of ms, got {self.periodic}")
        if not problems:
            problems = self.contradictions()
        if problems:
            raise ValueError("invalid profile: " + "; ".join(problems))

    def contradictions(self) -> list[str]:
        """Pairs of parameters where one would silently defeat the other, each with the fix.

        Every pair of dimensions was checked for this trap; these are the ones that have it:
        - a boundary closed on the right (``[o,c]``, ``(o,c]``) puts an element stamped c in the window,
          but close ``>=`` closes the window when c arrives, before that element is added;
        - ``t0_range`` is the range tried for ``t0: any`` and means nothing beside a fixed t0;
        - ``granularity`` splits a timestamp's elements into ticks of the tuple-driven tick only;
        - ``grain`` chooses among the windows one moment closes: only window-close reports have one;
        - ``end_of_stream: flush`` closes the last windows, which reports only under window-close.
        """
        out = []
        if self.boundary.endswith("c]") and self.close == ">=":
            out.append(f"boundary {self.boundary!r} puts an element stamped c inside the window, but close '>=' "
                       "closes the window when c arrives, before that element is added, so it never enters: "
                       "use close '>' with this boundary (or boundary '[o,c)')")
        if self.t0_range is not None and self.t0 != "any":
            out.append(f"t0_range {list(self.t0_range)} is the range tried for t0 'any', but t0 is fixed at {self.t0}: "
                       "drop t0_range or set t0: any")
        if self.granularity == "element" and self.tick != "tuple-driven":
            out.append(f"granularity 'element' splits ticks of the tuple-driven tick only, but tick is {self.tick!r}: "
                       "drop granularity or use tick: tuple-driven")
        if self.grain in ("single", "single-held") and "window-close" not in self.report:
            out.append(f"grain {self.grain!r} chooses among the windows that close at one moment, which matters only for "
                       "window-close reports: drop grain or add window-close to report")
        if self.end_of_stream == "flush" and "window-close" not in self.report:
            out.append("end_of_stream 'flush' closes the last windows, which reports only under window-close: "
                       "use end_of_stream: drop or add window-close to report")
        return out

    def describe(self) -> dict[str, Any]:
        """A JSON-ready description, stable across runs."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in ("count_t0", "instants") and value is None:
                continue  # only queries over several windows have them (a lone count window's t0 is t0)
            if isinstance(value, frozenset):
                value = sorted(value)
            elif isinstance(value, tuple):
                value = list(value)
            out[f.name] = value
        return out

    def with_t0(self, t0: int) -> "Profile":
        """This profile with t0 fixed (the range tried for 'any' no longer applies)."""
        return replace(self, t0=t0, t0_range=None)


@dataclass(frozen=True)
class ProfileSpace:
    """The profiles a case admits: each parameter maps to the tuple of values the oracle may try.

    ``ProfileSpace.of(base, tick=("tuple-driven", "time-driven"))`` admits both ticks and fixes the
    rest to ``base``'s values.  Variants are enumerated in a fixed order, so verdicts are deterministic.
    """

    choices: tuple[tuple[str, tuple[Any, ...]], ...]

    @classmethod
    def of(cls, base: Profile | None = None, **vary: Iterable[Any]) -> "ProfileSpace":
        base = base or Profile()
        names = [f.name for f in fields(Profile)]
        unknown = set(vary) - set(names)
        if unknown:
            raise ValueError(f"unknown profile parameter(s): {sorted(unknown)}")
        choices = []
        for name in names:
            if name in vary:
                values = tuple(vary[name])
                if not values:
                    raise ValueError(f"profile parameter {name!r} admits no value")
            else:
                values = (getattr(base, name),)
            choices.append((name, values))
        return cls(tuple(choices))

    @classmethod
    def from_choices(cls, values: Mapping[str, tuple[Any, ...]]) -> "ProfileSpace":
        """A space from admissible values per parameter (defaults for the rest), validated only per
        variant: a contradictory first combination must not stop the admissible ones."""
        unknown = set(values) - {f.name for f in fields(Profile)}
        if unknown:
            raise ValueError(f"unknown profile parameter(s): {sorted(unknown)}")
        choices = []
        for f in fields(Profile):
            vals = tuple(values[f.name]) if f.name in values else (f.default,)
            if not vals:
                raise ValueError(f"profile parameter {f.name!r} admits no value")
            choices.append((f.name, vals))
        space = cls(tuple(choices))
        next(space.variants())  # at least one admissible profile, or a clear error
        return space

    def variants(self) -> Iterator[Profile]:
        """Every admissible profile.  A combination of *varied* values that contradicts itself (see
        :meth:`Profile.contradictions`) is not admissible and is left out; a contradiction among the
        fixed values, or a space with no admissible profile left, is an error."""
        names = [name for name, _ in self.choices]
        varied = set(self.varied())
        first_error = None
        yielded = False
        for combo in itertools.product(*(values for _, values in self.choices)):
            try:
                profile = Profile(**dict(zip(names, combo)))
            except ValueError as exc:
                if not varied:
                    raise
                first_error = first_error or exc
                continue
            yielded = True
            yield profile
        if not yielded and first_error is not None:
            raise ValueError(f"no admissible profile: every combination is invalid, e.g. {first_error}")

    def varied(self) -> dict[str, tuple[Any, ...]]:
        """The parameters that have more than one admissible value."""
        return {name: values for name, values in self.choices if len(values) > 1}
