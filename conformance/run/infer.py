"""``rspconf infer-profile ENGINE``: which operational semantics explain what an engine does.

The engine runs each case once; its outputs are then judged many times, under candidate profiles, with no
diagnosis (the oracle only says whether some t0 explains the output).  The search is bounded: a
coordinate search over :data:`DIMENSIONS` from the engine's declared profile — each dimension's values
tried with the others held at the current best, the value explaining the most cases kept (a tie keeps the
current value), at most :data:`PASSES` passes — so it costs (sum of the dimensions' values) × cases ×
passes checks, each bounded by ``--check-timeout``, never the product of the dimensions.  t0 is asked last:
with the other dimensions found, of the t0s explaining the most cases the most specific: a fixed t0, then
``aligned`` (windows closing at multiples of the slide), then ``any``.  The case's own fixed semantics stay
(an engine told its window borders is not asked about them), except the R2S operator, which is asked as
executed.  Large-stream cases, streams of more than :data:`MAX_ELEMENTS` elements and the syntax family are
left out unless named with ``-k``.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import yaml

from conformance.corpus import datapaths
from conformance.corpus.cases import Case, CaseFileError, DataMissing, load_corpus
from conformance.run import adapters
from conformance.run.harness import call_engine, judge, oracle_query, request_for
from engines.contract import EngineInfo
from oracle.findings import FINDINGS
from oracle.judge.kinds import kind
from oracle.judge.verdict import JudgeTimeout
from oracle.judge.words import reason
from oracle.model import CountWindowSpec, MultiWindowSpec, WindowSpec

PASSES = 3
AS_ASKED = "as asked"
#: streams longer than this are left out unless -k names the case: each is judged ~30 times per pass, and
#: every answered case's stream is held until the search ends (memory and time stay bounded)
MAX_ELEMENTS = 5000


@dataclass(frozen=True)
class Dimension:
    """One profile dimension the search asks: its values (each a fragment of a profile), and which cases
    can tell them apart (a count-unit means nothing to a time window)."""

    name: str
    values: tuple
    applies: str = "all"  # all | count | multi

    def fragment(self, value) -> dict:
        if self.name == "borders":
            return {"boundary": value[0], "close": value[1]}
        if self.name == "alignment":  # not a profile parameter: what the reports' labels are trusted for
            return {}
        if self.name == "r2s" and value == AS_ASKED:
            return {}
        return {self.name: list(value) if isinstance(value, tuple) else value}

    def show(self, value) -> str:
        if self.name == "borders":
            return f"{value[0]} closing at {value[1]} c"
        if isinstance(value, tuple):
            return "+".join(value)
        return str(value).lower() if isinstance(value, bool) else str(value)

    def relevant(self, case: Case) -> bool:
        if self.applies == "count":
            return isinstance(case.window, CountWindowSpec)
        if self.applies == "multi":
            return isinstance(case.window, MultiWindowSpec)
        return True


DIMENSIONS = (
    Dimension("report", (("window-close",), ("window-close", "non-empty-content"), ("content-change",),
                         ("content-change", "window-close"))),
    Dimension("tick", ("time-driven", "tuple-driven", "batch-driven")),
    Dimension("grain", ("multiple", "single", "single-held")),
    Dimension("borders", (("[o,c)", ">="), ("[o,c)", ">"), ("[o,c]", ">"), ("(o,c]", ">"))),
    Dimension("empty", (True, False)),
    Dimension("end_of_stream", ("flush", "drop")),
    Dimension("r2s", (AS_ASKED, "rstream", "istream", "dstream")),
    Dimension("multiplicity", ("bag", "set")),
    Dimension("count_unit", ("element", "triple"), "count"),
    Dimension("instants", ("any-close", "all-close", "content-change"), "multi"),
    Dimension("alignment", ("window", "time", "order")),
)


def _start(declared: dict) -> dict:
    """The search's starting point: the engine's declared value of each dimension where it names one."""
    out = {}
    for d in DIMENSIONS:
        if d.name == "alignment":
            value = declared.get("alignment", "order")
        elif d.name == "borders":
            value = (declared.get("boundary", "[o,c)"), declared.get("close", ">="))
        elif d.name == "r2s":
            value = declared["r2s"] if isinstance(declared.get("r2s"), str) else AS_ASKED
        elif d.name == "report":
            r = declared.get("report", ["window-close"])
            value = tuple(sorted(r)) if r and isinstance(r[0], str) else ("window-close",)
        else:
            value = declared.get(d.name, d.values[0])
            value = value if not isinstance(value, list) else d.values[0]
        if d.name == "report":
            value = next((v for v in d.values if tuple(sorted(v)) == value), d.values[0])
        out[d.name] = value if value in d.values else d.values[0]
    return out


@dataclass
class Ran:
    """One case the engine answered: its stream and reports, kept for every later judgement."""

    case: Case
    stream: object
    reports: list


@dataclass
class Inference:
    engine: str
    declared: dict
    alignment: str                     # the engine's declared alignment (window | time | order)
    chosen: dict
    t0: object
    t0_evidence: dict
    evidence: dict                     # dimension → {shown value: [case ids explained]}
    explained: list[str]
    unexplained: dict[str, str]        # case id → why (the oracle's reason under the inferred profile)
    patterns: dict[str, list[str]]     # failure pattern (oracle/findings.py) → the unexplained cases showing it
    not_run: dict[str, str]            # case id → verdict and reason
    slow: list[str] = field(default_factory=list)
    checks: int = 0
    seconds: float = 0.0

    def profile(self) -> dict:
        """The inferred profile, written as an engine declares one (oracle/profiles.py)."""
        out: dict = {"t0": self.t0}
        for d in DIMENSIONS:
            out.update(d.fragment(self.chosen[d.name]))
        return out

    def to_json(self) -> dict:
        return {"engine": self.engine, "declared": self.declared, "profile": self.profile(),
                "alignment": self.chosen["alignment"],
                "dimensions": {name: {"inferred": DIMS[name].show(self.chosen[name]),
                                      "explains": ev} for name, ev in self.evidence.items()},
                "t0": {"inferred": self.t0, "explains": self.t0_evidence},
                "explained": self.explained, "unexplained": self.unexplained, "patterns": self.patterns,
                "not_run": self.not_run,
                "slow": self.slow, "checks": self.checks, "seconds": round(self.seconds, 1)}


DIMS = {d.name: d for d in DIMENSIONS}


class Search:
    """Judgements of the engine's outputs under candidate profiles, each asked once."""

    def __init__(self, info: EngineInfo, ran: list[Ran], check_timeout: float):
        self.info, self.ran, self.check_timeout = info, ran, check_timeout
        self.memo: dict = {}
        self.slow: set[str] = set()
        self.queries: dict = {}  # case id → its oracle R2R, shared by the case's undiagnosed judgements

    def verdict(self, r: Ran, values: dict, t0, diagnosed: bool = False):
        profile = {"t0": t0}
        for d in DIMENSIONS:
            profile.update(d.fragment(values[d.name]))
        case = r.case
        fixed = dict(case.fixed)
        if "r2s" in profile:  # the R2S operator as executed, whatever the case asked
            fixed["r2s"] = profile["r2s"]
        searched = {"report", "tick", "grain", "boundary", "close", "empty", "end_of_stream", "multiplicity",
                    "count_unit", "instants", "t0", "t0_range", "r2s"}
        case = replace(case, fixed=fixed, vary={k: v for k, v in case.vary.items() if k not in searched})
        info = replace(self.info, profile=profile, alignment=values["alignment"])
        deadline = time.monotonic() + self.check_timeout
        if diagnosed or kind(case.window).fixed is not None:
            return judge(case, info, r.stream, r.reports, gracious=False, deadline=deadline, diagnosed=diagnosed)
        # only whether some explanation holds: not the closest one of a FAIL, and every judgement of the case
        # reuses the windows evaluated before (an R2R's answer depends on the window's content alone)
        if case.id not in self.queries:
            self.queries[case.id] = oracle_query(case, r.stream)
        return judge(case, info, r.stream, r.reports, gracious=False, deadline=deadline, diagnosed=False,
                     closest=False, query=self.queries[case.id])

    def explains(self, r: Ran, values: dict, t0="any") -> bool:
        key = (r.case.id, tuple(sorted((k, str(v)) for k, v in values.items())), str(t0))
        if key not in self.memo:
            try:
                self.memo[key] = self.verdict(r, values, t0).verdict == "PASS"
            except JudgeTimeout:
                self.slow.add(r.case.id)
                self.memo[key] = False
            except ValueError:  # a contradictory combination (oracle/semantics.py): it explains nothing
                self.memo[key] = False
        return self.memo[key]

    def explained(self, values: dict, t0="any", cases=None) -> list[str]:
        return [r.case.id for r in (cases or self.ran) if self.explains(r, values, t0)]


def run_engine(adapter, info: EngineInfo, cases: list[Case], timeout: float, data_root, say,
               max_elements: int | None = MAX_ELEMENTS) -> tuple[list[Ran], dict]:
    """Each case run once; the ones the engine does not answer are set aside with the reason (and, with
    ``max_elements``, those whose stream is longer)."""
    ran, not_run = [], {}
    for case in cases:
        lacking = sorted(set(case.capabilities) - set(info.capabilities))
        if lacking:
            not_run[case.id] = f"UNSUPPORTED: engine lacks capability {', '.join(lacking)}"
            continue
        try:
            stream = case.load_stream(data_root)
            request = request_for(case, info, stream)
        except DataMissing as exc:
            not_run[case.id] = f"SKIPPED: {exc}"
            continue
        except Exception as exc:  # noqa: BLE001 - a case the kit cannot send is set aside, with the reason
            not_run[case.id] = f"not sent: {exc}"
            continue
        if max_elements is not None and len(stream.elements) > max_elements:
            not_run[case.id] = (f"left out: {len(stream.elements):,} stream elements, more than {max_elements:,} "
                                "(name it with -k to include it)")
            continue
        say(f"running {case.id}")
        reports, failure = call_engine(adapter, request, timeout)
        if failure:
            not_run[case.id] = f"{failure[0]}: {failure[1]}"
            continue
        ran.append(Ran(case, stream, reports))
    return ran, not_run


def infer(search: Search, say=lambda _: None) -> tuple[dict, dict]:
    """The coordinate search: (chosen values, evidence per dimension from the last pass)."""
    current = _start({**search.info.profile, "alignment": search.info.alignment})
    evidence: dict = {}
    for n in range(PASSES):
        changed = False
        for d in DIMENSIONS:
            cases = [r for r in search.ran if d.relevant(r.case)]
            counts = {}
            for value in d.values:
                counts[value] = search.explained({**current, d.name: value}, cases=cases) if cases else []
            best = max(d.values, key=lambda v: (len(counts[v]), v == current[d.name]))
            if len(counts[best]) > len(counts[current[d.name]]):
                current[d.name], changed = best, True
            evidence[d.name] = {d.show(v): counts[v] for v in d.values}
        say(f"pass {n + 1}: {', '.join(f'{k}={DIMS[k].show(v)}' for k, v in current.items())}")
        if not changed:
            break
    return current, evidence


def t0_candidates(search: Search, values: dict) -> list:
    """Fixed t0s worth asking: 0, the declared one, and the earliest t0 of the case that pins it most
    narrowly (modulo its slide, so it holds for streams that start elsewhere)."""
    out = [0]
    declared = search.info.profile.get("t0")
    if isinstance(declared, int) and not isinstance(declared, bool):
        out.append(declared)
    narrowest = None
    for r in search.ran:
        if not isinstance(r.case.window, WindowSpec) or not search.explains(r, values):
            continue
        try:
            verdict = search.verdict(r, values, "any")
        except (JudgeTimeout, ValueError):
            continue
        for _, (lo, hi) in verdict.explaining:
            if narrowest is None or hi - lo < narrowest[1] - narrowest[0]:
                narrowest = (lo, hi, r.case.window.slide)
    if narrowest is not None:
        out += [narrowest[0], narrowest[0] % narrowest[2]]
    return list(dict.fromkeys(out))


def infer_t0(search: Search, values: dict) -> tuple[object, dict]:
    """Of the t0s that explain the most time-window cases, the most specific: a fixed t0, then ``aligned``,
    then ``any``.  (``aligned`` is not a narrowing of ``any``: its windows may start before the range ``any``
    searches, so it can explain a case ``any`` does not — rsp-js's CSRBench Q5 at t0 = −4000.)"""
    timed = [r for r in search.ran if isinstance(r.case.window, WindowSpec)]
    order = t0_candidates(search, values) + ["aligned", "any"]
    evidence = {str(t0): search.explained(values, t0, cases=timed) for t0 in order}
    most = max(len(cases) for cases in evidence.values())
    if not most:
        return "any", evidence
    return next(t0 for t0 in order if len(evidence[str(t0)]) == most), evidence


def run(spec: str, options: dict, cases_root: Path, pattern: list[str], timeout: float, check_timeout: float,
        data_root, out=sys.stdout) -> Inference:
    started = time.monotonic()
    adapter = adapters.build(spec, options, start_timeout=timeout)
    try:
        info = adapter.info()
        cases = [c for c in load_corpus(cases_root)
                 if (any(p in c.id for p in pattern) if pattern
                     else c.family != "syntax" and "large-stream" not in c.capabilities)]
        say = (lambda line: print(f"  {line}", file=sys.stderr)) if out is sys.stdout else (lambda _: None)
        ran, not_run = run_engine(adapter, info, cases, timeout, data_root, say, None if pattern else MAX_ELEMENTS)
    finally:
        getattr(adapter, "close", lambda: None)()
    search = Search(info, ran, check_timeout)
    chosen, evidence = infer(search, say)
    t0, t0_evidence = infer_t0(search, chosen)
    explained = search.explained(chosen, t0)
    unexplained, patterns = {}, {}
    for r in ran:
        if r.case.id in explained:
            continue
        try:
            verdict = search.verdict(r, chosen, t0, diagnosed=True)
            if verdict.verdict != "UNJUDGED":
                unexplained[r.case.id] = reason(verdict)
                for finding in verdict.findings:
                    patterns.setdefault(finding, []).append(r.case.id)
        except (JudgeTimeout, ValueError) as exc:
            unexplained[r.case.id] = f"not judged within {check_timeout:g} s ({exc})"
    patterns = dict(sorted(patterns.items(), key=lambda kv: (-len(kv[1]), kv[0])))
    return Inference(info.name, info.profile, info.alignment, chosen, t0, t0_evidence, evidence, explained,
                     unexplained, patterns, not_run, sorted(search.slow), len(search.memo),
                     time.monotonic() - started)


def show(result: Inference, out) -> None:
    """The inference as a person reads it: per dimension the value found, the declared one, how many cases
    each value explains and the cases that pin the value down (explained by it, not by the alternative that
    explains the most)."""
    total = len(result.explained) + len(result.unexplained)
    print(f"infer-profile {result.engine}: {total} cases answered, {len(result.not_run)} not run; "
          f"{result.checks} judgements in {result.seconds:.0f} s", file=out)
    declared = _start({**result.declared, "alignment": result.alignment})
    for d in DIMENSIONS:
        ev = result.evidence.get(d.name, {})
        chosen = d.show(result.chosen[d.name])
        mine = set(ev.get(chosen, []))
        others = [set(v) for k, v in ev.items() if k != chosen]
        runner_up = max(others, key=len, default=set())
        pinned = sorted(mine - runner_up)  # what rules out the closest alternative
        told = d.show(declared[d.name])
        counts = ", ".join(f"{v} {len(c)}" for v, c in ev.items())
        mark = "" if told == chosen else f"   (declared: {told})"
        if ev and len({len(c) for c in ev.values()}) == 1 and len(set(map(tuple, ev.values()))) == 1:
            print(f"  {d.name:<14} {chosen:<32} no case tells its values apart{mark}", file=out)
            continue
        print(f"  {d.name:<14} {chosen:<32} explains: {counts}{mark}", file=out)
        if pinned:
            print(f"  {'':<14} pinned by {', '.join(pinned[:6])}{' …' if len(pinned) > 6 else ''}", file=out)
    told = result.declared.get("t0", "any")
    counts = ", ".join(f"{k} {len(v)}" for k, v in result.t0_evidence.items())
    print(f"  {'t0':<14} {str(result.t0):<32} explains: {counts}"
          f"{'' if str(told) == str(result.t0) else f'   (declared: {told})'}", file=out)
    if result.patterns:  # what no profile dimension expresses, in the oracle's words, most cases first
        print("what the cases no profile explains show:", file=out)
        for finding, ids in result.patterns.items():
            print(f"  {FINDINGS.get(finding, finding)}: {len(ids)} case{'s' if len(ids) != 1 else ''} "
                  f"({', '.join(ids[:4])}{' …' if len(ids) > 4 else ''})", file=out)
    if result.unexplained:
        print(f"not explained by the inferred profile ({len(result.unexplained)}):", file=out)
        for cid, why in sorted(result.unexplained.items()):
            print(f"  {cid}: {why[:300]}", file=out)
    if result.slow:
        print(f"judgements past --check-timeout (counted as not explained): {', '.join(result.slow)}", file=out)
    print(f"the profile to declare (with alignment {result.chosen['alignment']}):", file=out)
    print("  " + json.dumps(result.profile()), file=out)


def command(args) -> int:
    """The CLI entry (conformance/cli.py)."""
    logging.getLogger("rdflib").setLevel(logging.ERROR)  # ill-typed literals the cases hold on purpose
    try:
        options = adapters.parse_options(args.engine_option)
        result = run(args.engine, options, Path(args.cases), args.k, args.case_timeout, args.check_timeout,
                     Path(args.data_root) if args.data_root else datapaths.data_root())
    except (adapters.EngineUnavailable, CaseFileError) as exc:
        print(f"error: rspconf infer-profile: {exc}", file=sys.stderr)
        return 2
    show(result, sys.stdout)
    if args.write:
        Path(args.write).write_text(yaml.safe_dump(result.profile(), sort_keys=False), encoding="utf-8")
    if args.json:
        Path(args.json).write_text(json.dumps(result.to_json(), indent=1), encoding="utf-8")
    return 0
