"""The Spark engine on small inputs: compiled (whole-stage code generation) against interpreted, side by side.

Every new plan's generated Java is compiled by Janino; on a small input that costs more than the rows, so
``engines/spark/session.py`` runs a replay of fewer than ``INTERPRETED_BELOW`` triples interpreted.  This
bench shows where the crossover lies: the same workloads, alternated round by round in one process, with
the threshold forced to 0 (every job compiled) and to infinity (every job interpreted).

    python3 bench/spark_small.py [--rounds 3] [--workloads w3c,corpus] [--max-triples 250000]

``w3c``: the W3C suite's folders that tests/test_w3c_suite.py runs through the engine (each test's data as
one window); ``corpus``: the corpus's cases with generated or recorded streams, by size, each run once a
round.  The data root (``RSPCONF_DATA``) must hold the W3C suite and the CSRBench stream.  A round's first
mode pays the JIT for both, so the first round is printed but left out of the ratio.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from oracle.model import triple_count  # noqa: E402
from tests.test_w3c_suite import SPARK_FAST  # noqa: E402 - the folders CI runs through the engine

MODES = {"compiled": 0, "interpreted": 10 ** 15}
BUCKETS = [(0, 1_000), (1_000, 20_000), (20_000, 100_000), (100_000, 1_000_000), (1_000_000, 10 ** 15)]


def _corpus(engine):
    """(triples, size bucket, case id, request) of every corpus case the engine runs, smallest first."""
    from conformance.corpus.cases import load_corpus
    from conformance.run.harness import request_for

    out = []
    info = engine.info()
    for case in load_corpus(ROOT / "cases"):
        if case.family == "syntax":
            continue
        try:
            stream = case.load_stream()
            triples = triple_count(stream.elements)
            out.append((triples, _bucket(triples), case.id, request_for(case, info, stream)))
        except Exception:  # noqa: BLE001 - a case this engine cannot be asked is not part of the bench
            continue
    return sorted(out, key=lambda x: (x[0], x[2]))


def _bucket(triples: int) -> str:
    """The size bucket a case is timed in (:data:`BUCKETS`)."""
    return next(f"{lo:,}–{hi:,}" if hi < 10 ** 15 else f"{lo:,}+" for lo, hi in BUCKETS if lo <= triples < hi)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workloads", default="w3c,corpus")
    parser.add_argument("--max-triples", type=int, default=250_000,
                        help="leave out corpus cases with more (the 2·10^6-triple loads take 15 s a run)")
    args = parser.parse_args(argv)
    workloads = args.workloads.split(",")

    from conformance.corpus import datapaths, w3c
    from conformance.run import sparqlsuite
    from engines.contract import Unsupported
    from engines.spark import SparkEngine
    session_module = sys.modules["engines.spark.session"]

    engine = SparkEngine()
    tests = w3c.tests(datapaths.data_root(), SPARK_FAST) if "w3c" in workloads else []
    cases = [c for c in _corpus(engine) if c[0] <= args.max_triples] if "corpus" in workloads else []
    seconds: dict = defaultdict(lambda: defaultdict(list))  # workload → mode → per round
    outcomes: dict = {}
    for rnd in range(args.rounds):
        for mode, below in MODES.items():
            session_module.INTERPRETED_BELOW = below
            if tests:
                started = time.perf_counter()
                doc = sparqlsuite.run_suite(tests, ("spark",))
                seconds["w3c"][mode].append(time.perf_counter() - started)
                outcomes.setdefault(("w3c", mode), [(t["id"], t["spark"]["outcome"]) for t in doc["tests"]])
            for _, bucket, case_id, request in cases:
                started = time.perf_counter()
                try:
                    answer = [(r.tau, r.window, sorted(map(repr, r.solutions)) if isinstance(r.solutions, list)
                               else repr(r.solutions)) for r in engine.run(request)]
                except Unsupported as exc:
                    answer = f"refused: {exc}"
                spent = time.perf_counter() - started
                per_round = seconds[f"corpus {bucket} triples"][mode]
                if len(per_round) <= rnd:
                    per_round.append(0.0)
                per_round[rnd] += spent
                outcomes.setdefault((case_id, mode), answer)
            print(f"round {rnd + 1} {mode}: " + ", ".join(f"{w} {s[mode][rnd]:.1f} s" for w, s in seconds.items()),
                  flush=True)
    same = all(outcomes[(k, "compiled")] == outcomes[(k, "interpreted")] for k, m in outcomes if m == "compiled")
    print(f"\nthe same answers in both modes: {same}")
    print(f"{'workload':<32} {'compiled s':>11} {'interpreted s':>14} {'interpreted/compiled':>21}")
    for workload, by in seconds.items():
        later = slice(1, None) if args.rounds > 1 else slice(None)
        c, i = min(by["compiled"][later]), min(by["interpreted"][later])
        print(f"{workload:<32} {c:>11.2f} {i:>14.2f} {i / c:>20.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
