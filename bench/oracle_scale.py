"""The oracle at engine scale (issue 18): its two R2R evaluators over every window of a YABench-model
stream, side by side — a first version, to measure where the time goes before the data is held for scale.

Run: python3 bench/oracle_scale.py [--stations 500,5000] [--queries filter,aggregate]

Streams of YABench's generator (30 s, interval 1 s, seed 1430236906; 1,000 stations ≈ 10^5 triples),
5 s tumbling windows from t0 = 0 (one t0: the oracle's cost per t0 class), CSRBench Q1 (filter) and Q4
(aggregate). For each evaluator: generation apart, then every window evaluated once — the window's
triples gathered, loaded (rdflib Graph / Oxigraph store), queried — and the triples judged per second.
The two evaluators' answers are checked equal in the same run (or different by a declared rule: AVG
over xsd:float is float-arithmetic, oracle/README.md).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from conformance.generate import stream  # noqa: E402
from oracle.evaluators import declared_rule  # noqa: E402
from oracle.model import Profile, WindowSpec  # noqa: E402
from oracle.r2r import R2R  # noqa: E402
from oracle.secret import simulate  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from spark_replay import QUERIES as SPARK_QUERIES  # noqa: E402  (the same query texts as the engine's bench)

QUERIES = {"filter": SPARK_QUERIES["filter (Q1)"], "aggregate": SPARK_QUERIES["aggregate (Q4)"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stations", default="500,5000")
    parser.add_argument("--queries", default="filter,aggregate")
    args = parser.parse_args()
    window = WindowSpec(5000, 5000)
    profile = Profile(t0=0, tick="time-driven", end_of_stream="flush")
    print(f"{'stations':>8} {'triples':>10} {'gen':>6} {'query':>9} {'rdflib':>8} {'oxigraph':>9} {'ratio':>6} "
          f"{'oxigraph triples/s':>19}  equal")
    for stations in (int(s) for s in args.stations.split(",")):
        started = time.perf_counter()
        s = stream("yabench", stations=stations, interval=1000, duration=30000, seed=1430236906)
        generated = time.perf_counter() - started
        triples = sum(len(e.triples) for e in s.elements)
        contents = [trig.content for trig in simulate(s, window, profile, 0)]
        for name in args.queries.split(","):
            answers, seconds, queries = {}, {}, {}
            for evaluator in ("rdflib", "oxigraph"):
                query = queries[evaluator] = R2R(QUERIES[name], s, evaluator)
                started = time.perf_counter()
                answers[evaluator] = [query.evaluate(c) for c in contents]
                seconds[evaluator] = time.perf_counter() - started
            agree = "True"
            for content, a, b in zip(contents, answers["rdflib"], answers["oxigraph"]):
                if sorted(a.keys) != sorted(b.keys):
                    rule = declared_rule(a, b, QUERIES[name], queries["rdflib"].triples(content))
                    agree = f"by rule {rule}" if rule else "False"
                    if not rule:
                        break
            print(f"{stations:>8} {triples:>10,} {generated:>5.1f}s {name:>9} {seconds['rdflib']:>7.2f}s "
                  f"{seconds['oxigraph']:>8.2f}s {seconds['rdflib'] / seconds['oxigraph']:>5.1f}x "
                  f"{triples / seconds['oxigraph']:>18,.0f}  {agree}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
