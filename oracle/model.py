"""The data the oracle reasons about, named after the model (SECRET + CQL).

- a :class:`Stream` is an ordered tuple of :class:`Element` (content, t): an element is one triple or a
  whole event graph, and an event graph is atomic: it has one timestamp, so no window can split it;
- a :class:`WindowSpec` is the S2R operator's time-based sliding window (range ω, slide β);
- a :class:`Profile` is one concrete operational semantics (CSRBench's "system description");
  a :class:`ProfileSpace` is the set of profiles a case admits (each parameter a tuple of values);
- a :class:`ExpectedReport` is one element of the oracle's output stream; an :class:`ObservedReport` is one
  element of an engine's output stream, with whatever the engine could say about it.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, fields, replace
from enum import Enum
from typing import Any, Iterable, Iterator, Mapping

from rdflib.term import Node

Triple = tuple[Node, Node, Node]

#: Window boundary conventions: SECRET/CSRBench, YABench's oracle, RSP-QL.
BOUNDARIES = ("[o,c)", "[o,c]", "(o,c]")
TICKS = ("tuple-driven", "time-driven", "batch-driven")
GRANULARITIES = ("element", "timestamp")
GRAINS = ("single", "multiple")
R2S_OPERATORS = ("rstream", "istream", "dstream")
CLOSE_RULES = (">=", ">")
END_OF_STREAM = ("flush", "drop")
REPORT_CONDITIONS = ("window-close", "content-change", "non-empty-content")
#: bag: every relation a multiset (SPARQL 1.1); set: duplicate-free relations (CSRBench's oracle, and
#: recorders that deduplicate each relation); R2S then takes set differences.
COUNT_UNITS = ("element", "triple")  # what a count window counts: stream elements (events) or triples
MULTIPLICITIES = ("bag", "set")


class StreamError(ValueError):
    """A stream that breaks the model (e.g. timestamps going backwards)."""


@dataclass(frozen=True)
class Element:
    """One stream element: a triple or an event graph, stamped with application time ``t`` (ms).

    ``batch`` optionally names the input batch the element arrived in (a CSRBench file, a Spark
    micro-batch); batch-driven ticks use it, and it defaults to the timestamp.
    ``source`` says where the element was read from, for error messages and provenance.
    ``until``/``expires`` annotate a fact of time-annotated data with the end of its validity.
    """

    t: int
    triples: tuple[Triple, ...]
    batch: Any = None
    source: str | None = None
    #: time-annotated data (seed 001, oracle/expected/validity.py): valid over [t, until), or from t until ``expires``
    #: unless a newer version of the fact arrives first; None for a plain stream element
    until: int | None = None
    expires: int | None = None
    #: the IRI of the stream the element belongs to, when a case has several (oracle/expected/multiwindow.py)
    stream: str | None = None

    @property
    def batch_key(self) -> Any:
        return self.t if self.batch is None else self.batch


def check_order(index: int, element: Element, previous: int | None) -> None:
    """Refuse element ``index`` if it is stamped before the element read just before it (``previous``)."""
    if previous is not None and element.t < previous:
        raise StreamError(
            f"element {index} ({element.source or 'inline'}): timestamp {element.t} is earlier "
            f"than the previous element's {previous}; streams must be in non-decreasing "
            "application time — sort the input or fix its timestamps")


@dataclass(frozen=True)
class Stream:
    """Elements ordered by non-decreasing application time, plus an optional static graph."""

    elements: tuple[Element, ...]
    static: tuple[Triple, ...] = ()

    def __post_init__(self) -> None:
        previous = None
        for index, element in enumerate(self.elements):
            if not isinstance(element.t, int) or isinstance(element.t, bool):
                raise StreamError(f"element {index} ({element.source or 'inline'}): timestamp "
                                  f"{element.t!r} is not an integer number of milliseconds")
            check_order(index, element, previous)
            previous = element.t

    @property
    def times(self) -> list[int]:
        return [e.t for e in self.elements]

    def __len__(self) -> int:
        return len(self.elements)


@dataclass(frozen=True)
class WindowSpec:
    """A time-based sliding window: instances [t0 + kβ, t0 + kβ + ω) for k ≥ 0."""

    range: int
    slide: int

    def __post_init__(self) -> None:
        if self.range <= 0 or self.slide <= 0:
            raise ValueError(f"window range and slide must be positive, got {self.range}/{self.slide}")


@dataclass(frozen=True)
class CountWindowSpec:
    """A count-based (physical) window: instance k holds the units at positions [t0 + kM, t0 + kM + N)
    of the arrival order (a unit is an element or a triple: the profile's ``count_unit``) and closes when
    its last unit arrives.  t0 is the position of the unit that opens the first window: 0 gives full
    windows from the first unit; a negative t0 gives partial windows first (CQL's ROWS, counted from the
    stream's start).  See :mod:`oracle.s2r.counting`."""

    count: int
    slide: int

    def __post_init__(self) -> None:
        if self.count <= 0 or self.slide <= 0:
            raise ValueError(f"window count and slide must be positive, got {self.count}/{self.slide}")


#: when a query over several windows is evaluated (:class:`MultiWindowSpec`): the policies that need no
#: argument, and ``closes-of`` (one designated window's closes; as a profile value ``closes-of:<window>``)
POLICIES = ("any-close", "all-close", "content-change")
INSTANTS = POLICIES + ("closes-of",)


@dataclass(frozen=True)
class NamedWindow:
    """One window of an RSP-QL dataset: its name (the graph the query reads it as), the stream it is
    over, and its range and slide (ms) — or, for a count window, its ``count`` and slide in units of its
    own stream (``range`` None; :mod:`oracle.expected.multiwindow` says what a unit is and when it closes)."""

    name: str
    stream: str
    range: int | None
    slide: int
    count: int | None = None

    def __post_init__(self) -> None:
        if (self.range is None) == (self.count is None):
            raise ValueError(f"window {self.name}: give either a range (time) or a count, not "
                             f"{'both' if self.count is not None else 'neither'}")
        width = self.range if self.count is None else self.count
        if width <= 0 or self.slide <= 0:
            what = "range" if self.count is None else "count"
            raise ValueError(f"window {self.name}: {what} and slide must be positive, got {width}/{self.slide}")


@dataclass(frozen=True)
class MultiWindowSpec:
    """Several named windows, each over a named stream (RSP-QL; :mod:`oracle.expected.multiwindow`).  ``instants``:
    when the query is evaluated, if the case fixes it — ``any-close`` (whenever some window closes),
    ``all-close`` (only when every window closes at once), ``content-change`` (only when some window's
    content changes) or ``closes-of`` (whenever the window named ``driver`` closes); None leaves it to
    the engine's profile (:attr:`Profile.instants`), like any other profile dimension.  ``merged``: the
    windows' contents are merged into the default graph with the static data (C-SPARQL's dataset),
    instead of each being the named graph of its name (RSP-QL's)."""

    windows: tuple[NamedWindow, ...]
    instants: str | None = None
    driver: str | None = None
    merged: bool = False

    def __post_init__(self) -> None:
        if not self.windows:
            raise ValueError("a multi-window query needs at least one window")
        if self.instants is not None and self.instants not in INSTANTS:
            raise ValueError(f"instants must be one of {', '.join(INSTANTS)}, got {self.instants!r}")
        names = [w.name for w in self.windows]
        if len(set(names)) != len(names):
            raise ValueError(f"window names must differ, got {names}")
        if (self.instants == "closes-of") != (self.driver is not None):
            raise ValueError("instants closes-of needs the window whose closes drive the evaluation (driver), "
                             "and only it does")
        if self.driver is not None and self.driver not in names:
            raise ValueError(f"instants closes-of {self.driver}: no window of that name; the windows are "
                             f"{', '.join(names)}")

    @classmethod
    def from_instants(cls, windows: tuple[NamedWindow, ...], instants, merged: bool = False) -> "MultiWindowSpec":
        """From ``instants`` as a case, a manifest or a request writes it: absent (None), a name, or
        ``{closes-of: IRI}``."""
        if isinstance(instants, dict):
            if set(instants) != {"closes-of"}:
                raise ValueError(f"instants {instants}: the one object form is {{closes-of: <window IRI>}}")
            return cls(windows, "closes-of", instants["closes-of"], merged)
        return cls(windows, instants, None, merged)

    def instants_message(self):
        """``instants`` as a case, a manifest or a request writes it (the inverse of :meth:`from_instants`)."""
        return {"closes-of": self.driver} if self.instants == "closes-of" else self.instants

    def policy(self) -> str | None:
        """``instants`` as a profile value (``closes-of:<IRI>`` for a designated window), or None."""
        return f"closes-of:{self.driver}" if self.instants == "closes-of" else self.instants

    def policies(self) -> list[str]:
        """Every evaluation-instant policy a query over these windows admits (as profile values)."""
        return list(POLICIES) + [f"closes-of:{w.name}" for w in self.windows]

    def under(self, policy: str | None) -> "MultiWindowSpec":
        """These windows evaluated under a profile's policy (None: the case's own, else any-close)."""
        if policy is None:
            return self if self.instants is not None else replace(self, instants="any-close")
        if policy.startswith("closes-of:"):
            return replace(self, instants="closes-of", driver=policy[len("closes-of:"):])
        return replace(self, instants=policy, driver=None)


@dataclass(frozen=True)
class ValiditySpec:
    """Time-annotated data instead of a window (seed 001; :mod:`oracle.expected.validity`): at each evaluation
    instant the query sees the static data plus the facts valid then.  ``every`` None: the instants are
    data-driven (each change of the valid set); else a client polling every ``every`` ms from 0."""

    every: int | None = None

    def __post_init__(self) -> None:
        if self.every is not None and self.every <= 0:
            raise ValueError(f"the polling period must be positive, got {self.every}")


@dataclass(frozen=True)
class Profile:
    """One concrete operational semantics; every item is a declared, named parameter.

    ``t0`` is an integer (ms) or ``"any"``; with ``"any"`` the oracle tries every t0 in
    ``t0_range`` (inclusive, ms; default: from the first element's time to that plus the window range,
    CSRBench's range at millisecond resolution).
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
        if not (self.t0 == "any" or (isinstance(self.t0, int) and not isinstance(self.t0, bool))):
            problems.append(f"t0 must be an integer (ms) or 'any', got {self.t0!r}")
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
        if self.grain == "single" and "window-close" not in self.report:
            out.append("grain 'single' chooses among the windows that close at one moment, which matters only for "
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


@dataclass(frozen=True)
class ExpectedReport:
    """One report of the oracle's output stream.

    ``k`` is the window instance, ``opening``/``closing`` its borders, ``tau`` the report time
    (application time of the trigger), ``content`` the half-open range of stream element indexes the
    window held when it reported, ``solutions`` the bag after R2R and R2S, ``reason`` what triggered it.
    """

    tau: int
    k: int
    opening: int
    closing: int
    content: tuple[int, int]
    solutions: Any
    reason: str


@dataclass(frozen=True)
class ObservedReport:
    """One report of an engine's output: solutions plus whatever timing the engine can give.

    ``solutions`` is a list of ``{var: rdflib term}`` mappings (SELECT), of triples (CONSTRUCT), or a
    bool (ASK).  ``window`` is the (opening, closing) the engine declares, ``tau`` its report time.
    """

    solutions: Any
    tau: int | None = None
    window: tuple[int, int] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)


class Verdict(str, Enum):
    """A case's verdict, the one place that orders verdicts.  PASS and FAIL say something about the
    engine's semantics; ERROR (the engine raised, or the harness could not run the case), TIMEOUT,
    UNSUPPORTED (a capability or construct the engine does not have) and SKIPPED (the case's data is
    absent) do not.  The order of definition is the order of a report's totals."""

    PASS = "PASS"
    FAIL = "FAIL"
    ERROR = "ERROR"
    TIMEOUT = "TIMEOUT"
    UNSUPPORTED = "UNSUPPORTED"
    SKIPPED = "SKIPPED"

    @property
    def severity(self) -> int:
        """Worst first (a summary's order): ERROR, TIMEOUT, FAIL, UNSUPPORTED, SKIPPED, PASS."""
        return _SEVERITY.index(self.value)

    @property
    def bad(self) -> bool:
        """The engine answered wrongly or not at all: a change into such a verdict is a regression."""
        return self.value in ("FAIL", "ERROR", "TIMEOUT")

    @property
    def judged(self) -> bool:
        """The oracle compared the engine's output (PASS or FAIL)."""
        return self.value in ("PASS", "FAIL")

    @property
    def standing(self) -> int:
        """The group a diff scores moves between: PASS 2, UNSUPPORTED and SKIPPED 1, the bad ones 0."""
        return 2 if self.value == "PASS" else 0 if self.bad else 1


_SEVERITY = ("ERROR", "TIMEOUT", "FAIL", "UNSUPPORTED", "SKIPPED", "PASS")
#: the verdicts' names, in the order of a report's totals
VERDICTS = tuple(v.value for v in Verdict)
