"""Issue 18 §2: how to hold the stream for Oxigraph — a fresh store per window (the oracle's way,
oracle/r2r/held.py) against one store holding the whole stream once, a named graph per bucket of elements
between two window borders, each window queried over the union of its buckets (``default_graph``).

    python3 bench/store_layout.py [--stations 10000] [--sliding-stations 1000]

Prints, side by side in one run, for CSRBench Q1 on YABench's stream (30 s): 5 s tumbling windows at
``--stations`` and 5 s windows sliding by 1 s over four t0 classes at ``--sliding-stations``: the time
to hold the stream each way, to evaluate every window with the stream held, and whether the answers
agree.  A named graph per timestamp is not tried: YABench's stream has one timestamp per 11 triples
(18,961 at 1,000 stations), and a window over thousands of graphs took 60 s instead of 0.3 s.
"""

from __future__ import annotations

import argparse
import bisect
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from spark_replay import QUERIES  # noqa: E402


def measure(stations: int, slide: int, t0s: list[int]) -> dict:
    import pyoxigraph as ox
    from workload import contents as window_contents
    from workload import yabench

    from oracle.model import WindowSpec, triple_count
    from oracle.r2r.evaluators import plain
    from oracle.r2r.query import R2R

    s = yabench(stations)
    triples = triple_count(s.elements)
    contents = window_contents(s, WindowSpec(5000, slide), t0s)
    r2r = R2R(QUERIES["filter (Q1)"], s, "oxigraph")
    started = time.perf_counter()
    per_window = [r2r.evaluate(c) for c in contents]
    first = time.perf_counter() - started
    r2r._cache.clear()
    started = time.perf_counter()
    per_window = [r2r.evaluate(c) for c in contents]
    held = time.perf_counter() - started

    # one store: the elements between two consecutive window borders are one named graph
    held_stream = r2r.held_stream()
    started = time.perf_counter()
    cuts = sorted({x for c in contents for x in c})
    parts = []
    for i in range(cuts[0], cuts[-1]):
        text = held_stream.held(i)
        if text:
            parts.append(text.replace(b" .\n", f" <urn:bucket:{bisect.bisect_right(cuts, i) - 1}> .\n".encode()))
    store = ox.Store()
    store.bulk_load(b"".join(parts), format=ox.RdfFormat.N_QUADS)
    loaded = time.perf_counter() - started

    def over_buckets(content):
        lo, hi = content
        graphs = [ox.NamedNode(f"urn:bucket:{k}") for k in range(cuts.index(lo), cuts.index(hi))]
        result = store.query(r2r.oxigraph.text, default_graph=graphs[0] if len(graphs) == 1 else graphs)
        names = [v.value for v in result.variables]
        rows = [{n: plain(sol[n]) for n in names if sol[n] is not None} for sol in result]
        return r2r.from_answer({"rows": rows, "unsliced": None})
    started = time.perf_counter()
    one_store = [over_buckets(c) for c in contents]
    queried = time.perf_counter() - started
    agree = all(sorted(map(repr, a.rows)) == sorted(map(repr, b.rows)) for a, b in zip(per_window, one_store))
    return {"triples": triples, "windows": len(contents), "buckets": len(cuts) - 1, "t0s": len(t0s),
            "first": first, "held": held, "loaded": loaded, "queried": queried, "agree": agree}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stations", type=int, default=10000)
    parser.add_argument("--sliding-stations", type=int, default=1000)
    args = parser.parse_args()
    print("| triples | windows | layout | hold the stream | evaluate, stream held | triples/s (× t0) | agree |")
    print("|---|---|---|---|---|---|---|")
    for name, stations, slide, t0s in (("tumbling 5 s", args.stations, 5000, [0]),
                                       ("sliding 5/1 s, 4 t0", args.sliding_stations, 1000, [0, 250, 500, 750])):
        r = measure(stations, slide, t0s)
        judged = r["triples"] * r["t0s"]
        print(f"| {r['triples']:,} | {name}: {r['windows']} | a store per window | text, on first use "
              f"(first pass {r['first']:.2f} s) | {r['held']:.2f} s | {judged / r['held']:,.0f} | — |")
        print(f"| {r['triples']:,} | {name}: {r['windows']} | one store, {r['buckets']} bucket graphs | "
              f"{r['loaded']:.2f} s | {r['queried']:.2f} s | {judged / r['queried']:,.0f} | "
              f"{'yes' if r['agree'] else 'NO'} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
