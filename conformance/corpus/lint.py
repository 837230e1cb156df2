"""``rspconf lint``: every problem of every case, then a count (a bad file or case does not stop the others).

Two passes.  The fast one reads no stream and runs no oracle: schema, unique ids, deterministic
collection, and that a query-syntax case's texts mean its window and R2S.  The oracle pass loads each
case's stream, checks its hand-written expectations against the oracle, and evaluates it under the
standard profiles (the first report decisions of each: all can be thousands).  ``large`` False leaves the
large-stream cases out of the oracle pass (minutes each; the kit's tests run them apart, marked slow).
"""

from __future__ import annotations

import logging
import sys
from itertools import islice
from pathlib import Path

from conformance.corpus.cases import Case, CaseFileError, DataMissing, expand, read_family
from conformance.corpus.handwritten import mismatches
from conformance.run.harness import judge, oracle_query
from engines.contract import EngineInfo
from engines.dialects.parse import QuerySyntaxError, parse
from oracle import profiles
from oracle.expected.multiwindow import t0_candidates
from oracle.judge.kinds import kind
from oracle.judge.verdict import candidate_t0s
from oracle.model import CountWindowSpec, MultiWindowSpec
from oracle.r2r.query import R2R
from oracle.s2r.secret import simulate

#: report decisions evaluated per standard profile: enough to prove a case runs under it
LINT_REPORTS = 12
STANDARD_PROFILES = {
    "csparql": {"report": ["window-close", "non-empty-content"], "empty": True, "t0": "any"},
    "sparqlstream": {"report": ["window-close", "non-empty-content"], "empty": False, "t0": "any"},
    "cqels": {"report": ["content-change"], "granularity": "element", "empty": False, "t0": "any"},
    "reference": {"report": ["window-close"], "tick": "time-driven", "end_of_stream": "flush", "t0": 0},
}

#: an engine that evaluates a window only when a later element arrives and drops the windows still open when
#: its stream ends (rsp-js's declared profile, engines/rspjs/driver.js): a case whose every report it would
#: lose that way PASSes such an engine vacuously when it says nothing at all, so it tests nothing there
LATE_ARRIVAL = {"t0": "aligned", "report": ["window-close", "non-empty-content"], "tick": "tuple-driven",
                "grain": "single-held", "empty": False, "boundary": "[o,c)", "close": ">", "end_of_stream": "drop",
                "instants": "any-close"}


def lint(root: Path, k: str | None = None, verbose: bool = False, oracle: bool = True, large: bool = True,
         out=None, err=None) -> int:
    """Lint the case files under ``root``; print each problem to ``err`` and a count to ``out``; 0 when
    there is none.  ``k``: only cases whose id contains it (in the per-case passes)."""
    out, err = out or sys.stdout, err or sys.stderr
    # rdflib logs a traceback for every ill-typed literal it meets (the corpus has some on purpose)
    logging.getLogger("rdflib").setLevel(logging.ERROR)
    files = sorted(Path(root).rglob("*.yaml"))
    if not files:
        print(f"error: {root}: no case files (*.yaml) here; give --cases DIR", file=err)
        return 1
    cases, problems = collect(files)
    chosen = [c for c in cases if not k or k in c.id]
    skipped = checked = 0
    for case in chosen:
        problems += written_texts(case)
        if not oracle or (not large and "large-stream" in case.capabilities):
            continue
        found, status = oracle_pass(case, verbose, out)
        problems += found
        skipped += status == "skipped"
        checked += status == "checked"
    for p in problems:
        print(f"error: {p}", file=err)
    left = "" if oracle and large else (" (fast pass: no oracle)" if not oracle else " (large-stream cases left out)")
    print(f"{len(cases)} cases in {len(files)} files, {checked} checked{left}, {skipped} skipped (missing data), "
          f"{len(problems)} problem{'s' if len(problems) != 1 else ''}", file=out)
    return 1 if problems else 0


def families(files: list[Path]):
    """Each readable family's cases, in file order (a broken file is its error, then skipped)."""
    for path in files:
        try:
            yield path, expand(read_family(path), path)
        except CaseFileError as exc:
            yield path, exc


def collect(files: list[Path]) -> tuple[list[Case], list[str]]:
    """The fast pass over the files: every case once (schema errors and duplicate ids are problems), and
    the same order on a second read."""
    problems: list[str] = []
    cases, seen = [], {}
    loaded = list(families(files))
    for path, family in loaded:
        if isinstance(family, CaseFileError):
            problems.append(str(family))
            continue
        for case in family:
            if case.id in seen:
                problems.append(f"{path}: case id {case.id!r} is already used in {seen[case.id]}; ids are unique")
                continue
            seen[case.id] = str(path)
            cases.append(case)

    def ids(load):
        return [c.id for _, family in load if not isinstance(family, CaseFileError) for c in family]
    if ids(loaded) != ids(families(files)):
        problems.append("collection is not deterministic: two loads gave different case orders")
    return cases, problems


def written_texts(case: Case) -> list[str]:
    """A query-syntax case's texts must mean its window and R2S (RSP-QL and C-SPARQL texts are read back)."""
    problems = []
    for dialect, text in (case.query.get("text") or {}).items():
        if dialect == "cqels":
            continue  # no reader for CQELS-QL yet: checked by hand
        try:
            read = parse(text)
        except (QuerySyntaxError, ValueError) as exc:
            problems.append(f"{case.id}: its {dialect} text cannot be read back: {exc}")
            continue
        if read.window != case.window:
            problems.append(f"{case.id}: its {dialect} text has window {read.window}, the case {case.window}")
        if dialect == "rspql" and read.r2s != case.r2s:
            problems.append(f"{case.id}: its {dialect} text asks {read.r2s}, the case {case.r2s}")
    return problems


def oracle_pass(case: Case, verbose: bool, out) -> tuple[list[str], str]:
    """The case's problems under the oracle (its stream and query, its hand-written expectations, the
    standard profiles), and whether it was ``checked``, ``skipped`` (its data is missing) or
    ``unreadable`` (its stream or query cannot be loaded: one problem, nothing else checked)."""
    try:
        stream = case.load_stream()
        query = oracle_query(case, stream)
    except DataMissing as exc:
        print(f"skip {case.id}: {exc}", file=out)
        return [], "skipped"
    except Exception as exc:  # noqa: BLE001 - lint reports every failure and goes on
        return [f"{case.id}: cannot load its stream or query: {exc}"], "unreadable"
    problems = []
    for exp in case.expected:
        try:
            problems += mismatches(case, exp, stream)
        except Exception as exc:  # noqa: BLE001
            problems.append(f"{case.id}: its hand-written expectation cannot be checked: {exc}")
    for name, declared in STANDARD_PROFILES.items():
        try:
            note = runs_under(case, stream, query, declared)
        except Exception as exc:  # noqa: BLE001 - lint reports every failure
            problems.append(f"{case.id}: the oracle cannot evaluate it under the {name} profile: {exc}")
            continue
        if verbose and note:
            print(f"{note.split(':')[0]} {case.id} under {name}:{note.split(':', 1)[1]}", file=out)
    evaluated = query.evaluations  # under the standard profiles: the count "ok" shows
    try:
        problems += silent_passes(case, stream, query)
    except Exception as exc:  # noqa: BLE001 - lint reports every failure
        problems.append(f"{case.id}: the oracle cannot judge an empty output under the late-arrival profile: {exc}")
    if not problems:
        print(f"ok {case.id} ({len(case.expected)} hand-written expectations, {evaluated} distinct "
              "windows)", file=out)
    return problems, "checked"


def runs_under(case: Case, stream, query: R2R, declared: dict) -> str | None:
    """Evaluate the case's first report decisions under a declared profile (raises what the oracle raises);
    a note for verbose output: ``ok: N t0 classes`` or ``n/a: why``."""
    fixed = dict(case.fixed)
    fixed.setdefault("r2s", case.r2s)
    how = kind(case.window)
    if how.fixed is not None:  # no t0 classes: the first admissible profile proves the case runs
        variant = next(profiles.space(declared, fixed, case.vary, window=case.window).variants())
        if isinstance(case.window, MultiWindowSpec):  # one per-window t0 combination proves it runs
            t0s = t0_candidates(stream, case.window, variant, [])[0][0]
            how.fixed.expected(stream, case.window, case.r2r, variant, t0s=t0s)
        else:
            how.fixed.expected(stream, case.window, case.r2r, variant)
        return None
    if isinstance(case.window, CountWindowSpec) and "window-close" not in declared["report"]:
        return "n/a: count windows report on window close only"
    judged, n = how.judged(stream), 0
    for variant in profiles.space(declared, fixed, case.vary, window=case.window, stream=stream).variants():
        (t0, _), *more = candidate_t0s(judged, case.window, variant, [], "order")
        n += 1 + len(more)
        for trigger in islice(simulate(judged, case.window, variant, t0), LINT_REPORTS):
            query.evaluate(trigger.content)
    return f"ok: {n} t0 classes"


def silent_passes(case: Case, stream, query: R2R) -> list[str]:
    """A problem when an engine that reports nothing PASSes the case under LATE_ARRIVAL although it would not
    if it flushed its last windows: the stream ends before any window with an answer closes.  Cases whose
    answer is nothing anyway (a flush changes nothing) are left alone, and so are count windows, which
    close on their own last element, not on a later arrival.  ``query``: the case's oracle R2R, whose window
    evaluations both judgements reuse (harness.oracle_query)."""
    windows = case.window.windows if isinstance(case.window, MultiWindowSpec) else (case.window,)
    if not stream.elements or any(isinstance(w, CountWindowSpec) or getattr(w, "count", None) for w in windows):
        return []

    def silent_under(end_of_stream: str) -> bool:
        info = EngineInfo("silent", "0", "rspql", frozenset(case.capabilities),
                          dict(LATE_ARRIVAL, end_of_stream=end_of_stream))
        return judge(case, info, stream, [], diagnosed=False, closest=False, query=query).verdict == "PASS"
    if silent_under("drop") and not silent_under("flush"):
        last = stream.elements[-1].t
        return [f"{case.id}: an engine that reports nothing PASSes it (vacuously) when it evaluates a window only "
                f"on a later arrival and drops the windows open at the end of the stream (rsp-js does both): no "
                f"window with an answer closes before the last element, t={last}. Add an element after the "
                "close of a window that has an answer (one the query does not match adds no solution)"]
    return []
