"""What a run report records of a case (:func:`about`), so a reader of the report (the site) never reads the
corpus again: the case's file, its query and window in words, and a summary of its stream."""

from __future__ import annotations

from pathlib import Path

from conformance.corpus import datapaths
from conformance.corpus.cases import Case
from oracle.model import CountWindowSpec, MultiWindowSpec, Stream, ValiditySpec, triple_count

#: timestamps a case's record keeps to draw its stream (evenly taken when there are more)
MAX_TICKS = 400


def window_in_words(case: Case) -> str:
    """The case's window (or S2R) in words, for each kind the corpus has."""
    w = case.window
    if isinstance(w, MultiWindowSpec):
        parts = [f"<{x.name}> over <{x.stream}>: " + (f"the last {x.count} units, sliding by {x.slide}"
                                                       if x.count is not None else
                                                       f"range {x.range} ms, slide {x.slide} ms") for x in w.windows]
        when = (f"evaluated whenever <{w.driver}> closes" if w.instants == "closes-of" else
                f"evaluated at {w.instants}" if w.instants else "evaluated when the engine's profile says")
        return (f"several windows{' merged into the default graph' if w.merged else ''} ({when}): "
                + "; ".join(parts))
    if isinstance(w, ValiditySpec):
        return ("time-annotated data, evaluated at each change of the valid set" if w.every is None
                else f"time-annotated data, evaluated every {w.every} ms")
    if isinstance(w, CountWindowSpec):
        return f"count window: the last {w.count} units, sliding by {w.slide}; stream {case.query['stream_iri']}"
    return f"time window: range {w.range} ms, slide {w.slide} ms; stream {case.query['stream_iri']}"


def stream_summary(stream: Stream) -> dict:
    """Elements, triples, static triples, time span and the timestamps to draw (at most :data:`MAX_TICKS`)."""
    times = sorted({e.t for e in stream.elements})
    if len(times) > MAX_TICKS:
        times = [times[i * len(times) // MAX_TICKS] for i in range(MAX_TICKS)]
    return {"elements": len(stream.elements), "triples": triple_count(stream.elements),
            "static": len(stream.static), "first": stream.elements[0].t if stream.elements else None,
            "last": stream.elements[-1].t if stream.elements else None, "times": times}


def about(case: Case, stream: Stream | None = None) -> dict:
    """What a run report records of the case it ran, so that a reader of the report (the site) never reads
    the corpus again: where the case came from (its file, relative to the project when inside it), what it
    asks, and its stream (``note`` when the run never loaded it)."""
    source = Path(case.source)
    try:
        source = source.resolve().relative_to(datapaths.PROJECT)
    except ValueError:
        pass
    return {"title": case.title, "source": source.as_posix(), "r2r": case.r2r, "r2s": case.r2s,
            "stream_iri": case.query["stream_iri"], "window": window_in_words(case),
            "stream": stream_summary(stream) if stream is not None else {"note": "not loaded: the case did not run "
                                                                               "as far as its stream"}}
