"""The data the oracle reasons about, named after the model (SECRET + CQL).

- a :class:`Stream` is an ordered tuple of :class:`Element` (content, t): an element is one triple or a
  whole event graph, and an event graph is atomic: it has one timestamp, so no window can split it;
- a :class:`WindowSpec` is the S2R operator's time-based sliding window (range ω, slide β);
- a Profile (one concrete operational semantics) and a ProfileSpace (the profiles a case admits) are in
  :mod:`oracle.semantics`; this module holds the vocabulary their parameters take;
- a :class:`ExpectedReport` is one element of the oracle's output stream; an :class:`ObservedReport` is one
  element of an engine's output stream, with whatever the engine could say about it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any, Iterable, Mapping

from rdflib.term import Node

Triple = tuple[Node, Node, Node]

#: Window boundary conventions: SECRET/CSRBench, YABench's oracle, RSP-QL.
BOUNDARIES = ("[o,c)", "[o,c]", "(o,c]")
TICKS = ("tuple-driven", "time-driven", "batch-driven")
GRANULARITIES = ("element", "timestamp")
GRAINS = ("single", "multiple", "single-held")
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


def triple_count(elements: Iterable[Element]) -> int:
    """How many triples ``elements`` hold: an element is one triple or a whole event graph, so a stream's
    size in triples (what loads, windows and benches are measured in) is not its number of elements."""
    return sum(len(e.triples) for e in elements)


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
    #: ``split``: ties in time split at the count (the semantics); ``extend``: an instance also takes in the
    #: units that share its last unit's timestamp — a fault the diagnosis tries (oracle/judge/shapes.py)
    ties: str = "split"
    #: ``unit``: the window slides by ``slide`` units (the semantics); ``ms``: the last ``count`` units are
    #: reported every ``slide`` ms from the first full window on — the count slide applied as time, a
    #: fault the diagnosis tries
    slide_unit: str = "unit"

    def __post_init__(self) -> None:
        if self.count <= 0 or self.slide <= 0:
            raise ValueError(f"window count and slide must be positive, got {self.count}/{self.slide}")
        if self.ties not in ("split", "extend"):
            raise ValueError(f"ties must be split or extend, got {self.ties!r}")
        if self.slide_unit not in ("unit", "ms"):
            raise ValueError(f"slide_unit must be unit or ms, got {self.slide_unit!r}")


#: when a query over several windows is evaluated (:class:`MultiWindowSpec`): the policies that need no
#: argument, and ``closes-of`` (one designated window's closes; as a profile value ``closes-of:<window>``)
POLICIES = ("any-close", "all-close", "content-change")
INSTANTS = POLICIES + ("closes-of",)


@dataclass(frozen=True)
class NamedWindow:
    """One window of an RSP-QL dataset: its name (the graph the query reads it as), the stream it is
    over, and its range and slide (ms) — or, for a count window, its ``count`` and slide in units of its
    own stream (``range`` None; :mod:`oracle.expected.multiwindow` says what a unit is and when it closes).
    ``flushed``: a count window whose instances that never fill close at the end of the stream (a fault the
    diagnosis tries, not a semantics: among several windows a count window has no clock)."""

    name: str
    stream: str
    range: int | None
    slide: int
    count: int | None = None
    flushed: bool = False

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
    UNSUPPORTED (a capability or construct the engine does not have), SKIPPED (the case's data is
    absent) and UNJUDGED (nothing could be compared: every t0 the case and the engine admit lies after the
    stream, so no window can hold data, and the engine said nothing) do not.  The order of definition is
    the order of a report's totals."""

    PASS = "PASS"
    FAIL = "FAIL"
    ERROR = "ERROR"
    TIMEOUT = "TIMEOUT"
    UNSUPPORTED = "UNSUPPORTED"
    SKIPPED = "SKIPPED"
    UNJUDGED = "UNJUDGED"

    @property
    def severity(self) -> int:
        """Worst first (a summary's order): ERROR, TIMEOUT, FAIL, UNSUPPORTED, UNJUDGED, SKIPPED, PASS."""
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
        """The group a diff scores moves between: PASS 2, UNSUPPORTED, UNJUDGED and SKIPPED 1, the bad ones 0."""
        return 2 if self.value == "PASS" else 0 if self.bad else 1


_SEVERITY = ("ERROR", "TIMEOUT", "FAIL", "UNSUPPORTED", "UNJUDGED", "SKIPPED", "PASS")
#: the verdicts' names, in the order of a report's totals
VERDICTS = tuple(v.value for v in Verdict)
