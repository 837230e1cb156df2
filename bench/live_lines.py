"""The Spark engine's live mode formats what is pushed as N-Triples text in Python, beside the feeder:
three writers side by side in one run, the same triples:

- the kit's plain writer (every triple as a line, each term through rdflib);
- the stop-70 walk (:class:`Walk`, kept here as the baseline): the triples the query can match, by
  predicate, a Python loop per triple writing common terms inline;
- the live engine's columns (:class:`engines.spark.live.Columns`, since stop 71): the same triples, a
  column at a time by joins, C loops and Arrow, pushed as the feeder pushes them (a millisecond's
  elements at a time).

Run: python3 bench/live_lines.py [--stations 10000] [--seconds 5] [--repeat 5]

YABench-model stream (the weather filter's load); prints µs per pushed triple for each writer (best
of ``--repeat``), the triples each writes, and the ratios.  The walk's and the columns' rows are asserted
to be the same.
"""

from __future__ import annotations

import argparse
import sys
import time
from itertools import groupby
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pyarrow as pa  # noqa: E402
from rdflib import Literal, URIRef  # noqa: E402
from rdflib.namespace import XSD  # noqa: E402

from conformance.streams.generate import stream  # noqa: E402
from engines.spark import algebra_of  # noqa: E402
from engines.spark.live import Columns  # noqa: E402
from engines.spark.sqlterms import n3  # noqa: E402
from engines.spark.streaming import element_lines  # noqa: E402
from engines.spark.windowjob import matchable_predicates  # noqa: E402
from oracle.model import triple_count  # noqa: E402

QUERY = """PREFIX om-owl: <http://knoesis.wright.edu/ssw/ont/sensor-observation.owl#>
PREFIX weather: <http://knoesis.wright.edu/ssw/ont/weather.owl#>
SELECT ?sensor ?obs WHERE { ?obs om-owl:observedProperty weather:_AirTemperature ; om-owl:procedure ?sensor ;
  om-owl:result ?res . ?res om-owl:floatValue ?value . FILTER(?value > 80) }"""


class Walk:
    """The stop-70 formatting (engines/spark/live.py then): a Python loop over the triples, a predicate's
    text and whether it is wanted one lookup, a repeated subject's text reused, an IRI's and a typed
    literal's text made inline."""

    def __init__(self, wanted):
        self.wanted, self.predicates, self.rows = wanted, {}, {}

    def _column(self, p):
        p_text = n3(p)
        if self.wanted is not None and p_text not in self.wanted:
            self.predicates[p] = None
            return None
        subjects, objects = self.rows.setdefault(p_text, ([], []))
        entry = self.predicates[p] = (subjects.append, objects.append)
        return entry

    def add(self, elements) -> None:
        predicates = self.predicates
        iri, literal, string = URIRef, Literal, XSD.string
        subject = subject_text = last = last_text = None  # the last subject, the last IRI object
        for element in elements:
            for s, p, o in element.triples:
                entry = predicates.get(p, False)
                if entry is None:
                    continue
                if entry is False:
                    entry = self._column(p)
                    if entry is None:
                        continue
                if s is not subject:
                    subject = s
                    # an element's triples often name as subject the object of the triple before
                    subject_text = last_text if s is last else f"<{s}>" if type(s) is iri else n3(s)
                kind = type(o)
                if kind is iri:
                    last, o_text = o, f"<{o}>"
                    last_text = o_text
                elif (kind is literal and o._language is None and o._datatype is not None and o._datatype != string
                      and '"' not in o and "\\" not in o and "\n" not in o and "\r" not in o):
                    o_text = f'"{o}"^^<{o._datatype}>'
                else:
                    o_text = n3(o)
                entry[0](subject_text)
                entry[1](o_text)


    def table(self):
        """The rows as Arrow arrays (s, p, o), a predicate's together, as stop 70 handed them to Parquet."""
        return {name: pa.chunked_array([pa.array(column, pa.string()) for column in columns])
                for name, columns in (("s", [s_ for s_, _ in self.rows.values()]),
                                      ("p", [[p_] * len(s_) for p_, (s_, _) in self.rows.items()]),
                                      ("o", [o_ for _, o_ in self.rows.values()]))}


def best(fn, repeat: int) -> tuple[float, int]:
    times, n = [], 0
    for _ in range(repeat):
        started = time.perf_counter()
        n = len(fn())
        times.append(time.perf_counter() - started)
    return min(times), n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stations", type=int, default=10_000)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    elements = stream("yabench", stations=args.stations, interval=1000, duration=args.seconds * 1000,
                      seed=1430236906).elements
    triples = triple_count(elements)
    wanted = matchable_predicates(algebra_of(QUERY))
    plain, plain_lines = best(lambda: [line for e in elements for line in element_lines(e)], args.repeat)
    pushes = [list(group) for _, group in groupby(elements, key=lambda e: e.t)]  # as the feeder pushes them

    def walked():
        written = Walk(wanted)
        written.add(elements)
        return written.table()

    def columns():
        written = Columns(wanted)
        for push in pushes:
            written.add(push)
        return written.table()

    rows = [sorted(zip(*(table[name].to_pylist() for name in "spo"))) for table in (walked(), columns())]
    assert rows[0] == rows[1], "the writers differ"
    walk, walk_rows = best(lambda: walked()["s"], args.repeat)
    live, live_rows = best(lambda: columns()["s"], args.repeat)
    print(f"{triples:,} triples pushed ({args.stations:,} stations, {args.seconds} s)")
    print(f"{'writer':<34}{'µs/triple':>10}{'triples':>12}")
    print(f"{'every triple, terms each time':<34}{plain / triples * 1e6:>10.2f}{plain_lines:>12,}")
    print(f"{'matchable triples, walked':<34}{walk / triples * 1e6:>10.2f}{walk_rows:>12,}")
    print(f"{'matchable triples, by columns':<34}{live / triples * 1e6:>10.2f}{live_rows:>12,}")
    print(f"ratios: columns {plain / live:.1f}x faster than every line, {walk / live:.1f}x faster than the walk; at "
          f"700,000 triples/s (speed 10): {walk / triples * 7e5:.2f} vs {live / triples * 7e5:.2f} s of one core per second")
    return None


if __name__ == "__main__":
    main()
