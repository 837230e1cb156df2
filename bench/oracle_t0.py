"""Oracle speed: breakpoint t0 enumeration + R2R cache vs brute force over every millisecond.

Run: python3 bench/oracle_t0.py [--sample N]   (needs the CSRBench data under the data root)

On CSRBench Q5 (5 s window sliding by 1 s over the 34 s stream), it checks one engine output — the
reference engine's (a PASS) and the late-purging test engine's (a FAIL) — three ways, side by side:
  A. the kit's oracle: one t0 per breakpoint class, R2R results cached by window content;
  B. every millisecond t0 in CSRBench's range [0, 5000], R2R cached by window content;
  C. every millisecond t0 without the cache — too slow to run whole, so N t0 values evenly spread are
     timed and the total is extrapolated (printed as such).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from conformance.corpus.cases import load_corpus  # noqa: E402
from conformance.run.harness import request_for  # noqa: E402
from engines.faults import LatePurgeEngine  # noqa: E402
from engines.reference import ReferenceEngine  # noqa: E402
from oracle import profiles  # noqa: E402
from oracle.compare import compare  # noqa: E402
from oracle.expected.windows import output  # noqa: E402
from oracle.judge.verdict import check
from oracle.r2r.query import R2R  # noqa: E402
from oracle.s2r.t0 import t0_range  # noqa: E402

CASE = "csrbench.q5[range=5s,slide=1s]"


def brute(stream, case, space, actual, how, cached: bool, t0s):
    query = R2R(case.r2r, stream)
    exact = 0
    for variant in space.variants():
        for t0 in t0s:
            if not cached:
                query = R2R(case.r2r, stream)
            windows = compare(output(stream, case.window, variant, t0, query), actual, how, query.form)
            exact += all(w.status == "MATCH" for w in windows)
    return exact


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sample", type=int, default=10, help="t0 values timed for C (default 10)")
    args = parser.parse_args()
    case = next(c for c in load_corpus(Path(__file__).resolve().parent.parent / "cases") if c.id == CASE)
    stream = case.load_stream()
    print(f"{CASE}: {len(stream)} elements, window {case.window.range}/{case.window.slide} ms")
    for engine in (ReferenceEngine(), LatePurgeEngine()):
        info = engine.info()
        actual = engine.run(request_for(case, info, stream))
        space = profiles.space({**info.profile, "t0": "any"}, {"r2s": case.r2s}, case.vary)
        variant = next(space.variants())
        lo, hi = t0_range(stream, case.window, variant)
        how = "order"  # the engine's declared windows would pin t0; by order every t0 is a real candidate

        started = time.perf_counter()
        verdict = check(stream, case.window, R2R(case.r2r, stream), space, actual, how)
        a = time.perf_counter() - started

        started = time.perf_counter()
        exact = brute(stream, case, space, actual, how, True, range(lo, hi + 1))
        b = time.perf_counter() - started

        step = max(1, (hi - lo + 1) // args.sample)
        sample = list(range(lo, hi + 1, step))[: args.sample]
        started = time.perf_counter()
        brute(stream, case, space, actual, how, False, sample)
        c = (time.perf_counter() - started) / len(sample) * (hi - lo + 1)

        print(f"\nengine {info.name}: verdict {verdict.verdict}, {verdict.candidates} candidate t0 (classes) "
              f"vs {hi - lo + 1} milliseconds; brute force found {exact} exact t0")
        print(f"  A breakpoints + cache      {a:9.2f} s   1.0x")
        print(f"  B every ms + cache         {b:9.2f} s   {b / a:6.1f}x slower")
        print(f"  C every ms, no cache (est) {c:9.0f} s   {c / a:6.0f}x slower  (from {len(sample)} timed t0)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
