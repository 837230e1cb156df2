"""The expected relation of every window, computed while the stream goes by: memory bounded by the
largest window, not by the stream's length.

The harness holds a case's whole stream (the t0 enumeration and the engines need it). A nightly
stress run over a generated stream of 10^7–10^8 triples need not: for one t0 the windows close in
time order, so each is evaluated as soon as the first element past its close arrives, and an element
is let go once no open window can hold it.  Each element is held as N-Triples text on arrival
(oracle/r2r/held.py) and each window's store is filled by one parse, as in the held path; the R2R is the
Oxigraph evaluator alone (the differential check with rdflib is the corpus-wide ``both`` test, and
``auto``'s rules need facts about the whole stream).  With ``doubles``, xsd:float is read as
xsd:double, as ``auto`` does where float-arithmetic is the only rule that may apply.

The windows and their contents are SECRET's Scope and Content (oracle/s2r/scope.py) for a time-driven
report at each window's close (``boundary`` and ``close`` as in the Profile) with the end-of-stream flush: the same contents
:func:`oracle.s2r.secret.simulate` gives for that profile (tests/test_streamed.py checks it).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Iterable, Iterator

from oracle.model import Element, Stream, Triple, WindowSpec, check_order
from oracle.r2r.held import HeldStream, fill
from oracle.r2r.query import R2R
from oracle.r2r.solutions import Solutions
from oracle.s2r.scope import Scope
from oracle.semantics import Profile


@dataclass(frozen=True)
class WindowAnswer:
    """The expected answer of window ``k`` ([opening, closing) under the scope's boundary)."""

    k: int
    opening: int
    closing: int
    elements: int  # how many stream elements the window holds
    triples: int  # how many of their triples the query can match (the store's size, static data apart)
    solutions: Solutions
    buffered: int  # elements held in memory when it was answered (its own, and later ones already read)


def expected_windows(query: str, elements: Iterable[Element], window: WindowSpec, t0: int = 0,
                     static: tuple[Triple, ...] = (), boundary: str = "[o,c)", close: str = ">=",
                     doubles: bool = False) -> Iterator[WindowAnswer]:
    """Each window's answer in window order, consuming ``elements`` (in non-decreasing time) once."""
    Profile(t0=t0, tick="time-driven", end_of_stream="flush", boundary=boundary, close=close)  # refuses contradictions
    r2r = R2R(query, Stream((), static), "oxigraph")
    holder = HeldStream((), static, r2r.relevant, doubles)
    scope = Scope(window, t0, boundary)
    buffer: deque = deque()  # (t, held text or quads, triples held) of elements some open window may hold
    k, last = 0, None

    def closed(k: int, now: int) -> bool:
        """Whether window k has closed before an element stamped ``now`` arrives (SECRET's clock instant
        at the close comes before an arrival at the same time; ``close`` as in Profile)."""
        c = scope.closing(k)
        return c <= now if close == ">=" else c < now

    def answer(k: int) -> WindowAnswer:
        held = [(h, n) for t, h, n in buffer if scope.contains(k, t)]
        store = fill([holder.static_text] + [h for h, _ in held])
        solutions = r2r.from_answer(r2r.oxigraph.answer(store, r2r.form))
        buffered = len(buffer)
        holder.forget()
        while buffer and _before(scope, k + 1, buffer[0][0]):
            buffer.popleft()
        return WindowAnswer(k, scope.opening(k), scope.closing(k), len(held), sum(n for _, n in held),
                            solutions, buffered)

    for index, element in enumerate(elements):
        check_order(index, element, last)
        last = element.t
        while closed(k, element.t):
            yield answer(k)
            k += 1
        if not _before(scope, k, element.t):
            held = holder.hold(element.triples)
            buffer.append((element.t, held, _count(held)))
    if last is not None:
        for k in range(k, scope.last_window(last) + 1):  # the end-of-stream flush
            yield answer(k)


def _before(scope: Scope, k: int, t: int) -> bool:
    """Whether an element stamped ``t`` is before window k and so before every later window too."""
    o = scope.opening(k)
    return t <= o if scope.boundary == "(o,c]" else t < o


def _count(held) -> int:
    return len(held) if isinstance(held, list) else held.count(b"\n")
