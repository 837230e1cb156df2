"""Run one case against one adapter and judge it: the runner's core, independent of pytest.

Verdicts: PASS and FAIL say something about the engine's semantics; ERROR (the engine raised, or the
harness could not run the case), TIMEOUT (no answer in time), UNSUPPORTED (a capability the engine
does not declare, or a construct it refuses) and SKIPPED (the case's data is absent) do not.
"""

from __future__ import annotations

import threading
import time
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from conformance.corpus.about import about
from conformance.corpus.cases import Case, CaseFileError, DataMissing
from conformance.streams.readers import StreamInputError
from engines.contract import WINDOW_SEMANTICS, EngineInfo, RunRequest, Unsupported
from engines.dialects import variants
from engines.dialects.render import Inexpressible, render
from engines.process import EngineProcessError
from oracle import profiles
from oracle.judge.explain import diagnose
from oracle.judge.instants import diagnose_instants
from oracle.judge.kinds import kind
from oracle.judge.verdict import JudgeTimeout, check, over_profiles
from oracle.judge.words import reason
from oracle.model import VERDICTS, Verdict
from oracle.r2r.evaluators import EvaluatorDisagreement
from oracle.r2r.query import R2R, QueryError
from oracle.r2r.terms import show_solution

SHOWN_SOLUTIONS = 20


@dataclass
class CaseResult:
    id: str
    engine: str
    verdict: str
    reason: str
    level: str
    capabilities: list[str]
    explanation: dict | None = None
    windows: list[WindowResult] = field(default_factory=list)
    matched: int | None = None
    mean_precision: float | None = None
    mean_recall: float | None = None
    seconds: float = 0.0
    error: str | None = None
    findings: dict[str, int] | None = None  # failure patterns → windows (oracle/judge/explain.py FINDINGS)
    vacuous: bool = False                   # a PASS that compared no report although the stream has data
    notes: list[str] = field(default_factory=list)
    variant_of: str | None = None           # the corpus case a replay recording's variant derives from
    about: dict | None = None               # the case as run: source, query, window, stream (corpus.cases.about)
    query_text: str | None = None           # the query text the engine received, exactly
    syntax_variant: list[str] | None = None  # the declared deviations that text was written with

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        for window in data["windows"]:
            if window["relation"] is None:  # kept only with --keep-relations
                del window["relation"]
        return data


class EngineTimeout(Exception):
    pass


def call_with_timeout(fn, timeout: float, on_timeout=None):
    """Run ``fn()`` in a daemon thread; raise EngineTimeout after ``timeout`` seconds.

    An in-process adapter that hangs cannot be killed from Python: ``on_timeout`` (the adapter's
    optional ``cancel()``) is asked to stop it, then the thread is abandoned (it is a daemon, so it never
    keeps the process alive) and the run goes on.  Subprocess adapters are killed.  An interrupt while
    waiting (Ctrl-C, or SIGTERM as one) cancels the same way, then goes on up.
    """
    box: dict[str, Any] = {}

    def target():
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - reported to the caller
            box["error"] = exc
            box["trace"] = traceback.format_exc()

    def cancel():
        if on_timeout is not None:
            try:
                on_timeout()
            except Exception:  # noqa: BLE001 - a failing cancel must not hide the timeout or the interrupt
                pass

    thread = threading.Thread(target=target, daemon=True, name="rspconf-engine-call")
    thread.start()
    try:
        thread.join(timeout)
    except KeyboardInterrupt:
        # Ctrl-C or SIGTERM mid-run: stop the engine now.  Asked to stop politely on the way out, a busy
        # engine reads nothing and was killed only at the 5 s stop grace.
        cancel()
        raise
    if thread.is_alive():
        cancel()
        raise EngineTimeout(f"no answer within {timeout:g} s")
    if "error" in box:
        exc = box["error"]
        exc.__rspconf_trace__ = box["trace"]
        raise exc
    return box.get("value")


class NoTextForDialect(LookupError):
    """A query-syntax case has no text in the engine's dialect."""


def request_for(case: Case, info: EngineInfo, stream) -> RunRequest:
    """The engine's request: the case's own text in the engine's dialect (a query-syntax case: the standard
    form, verbatim), else the neutral query rendered into that dialect, in the engine's declared syntax
    variant if it declares one (:func:`variant_of`)."""
    written = case.query.get("text") or {}
    if written:
        if info.dialect not in written:
            raise NoTextForDialect(f"this case tests how {', '.join(sorted(written))} text is read; the engine reads "
                                   f"{info.dialect}")
        text = written[info.dialect]
    else:
        text = variants.apply(render(info.dialect, case.r2r, case.query["stream_iri"], case.window, case.r2s),
                              variant_of(case, info))
    semantics = {name: case.fixed[name] for name in WINDOW_SEMANTICS if name in case.fixed}
    return RunRequest(case.id, stream, case.r2r, text, case.window, case.r2s, case.query["stream_iri"], semantics)


def standard_forms(case: Case, info: EngineInfo) -> list[str]:
    """The engine's declared deviations whose standard form a query-syntax case's own text has (the rule
    of each would rewrite it), in words: what a FAIL or ERROR on that text is to be read beside."""
    texts = case.query.get("text")
    text = texts.get(info.dialect) if isinstance(texts, dict) else None
    if not text or info.dialect == "sparql":
        return []
    def lines(t):  # indentation is no deviation
        return [line.strip() for line in t.split("\n")]
    vocabulary = variants.VOCABULARY
    found = [vocabulary[n] for n in info.syntax if n in vocabulary and lines(vocabulary[n].rule(text)) != lines(text)]
    return [f"{d.name}: it reads {d.reads}" for d in found]


def variant_of(case: Case, info: EngineInfo) -> tuple[str, ...]:
    """The declared deviations a case's query is written with for this engine: none for a query-syntax
    case (its standard text is what it tests) or a plain SPARQL engine, else the engine's declaration."""
    if case.query.get("text") or info.dialect == "sparql":
        return ()
    return tuple(info.syntax)


@dataclass
class WindowResult:
    """One window of a judged case as the report keeps it: its borders, the instants, the measures, and
    the first solutions missing or extra (SHOWN_SOLUTIONS of each) with the oracle's diagnostics."""
    index: int
    status: str
    open: int | None
    close: int | None
    expected_tau: int | None
    actual_tau: int | None
    actual_window: list[int] | None
    precision: float | None
    recall: float | None
    expected_size: int
    actual_size: int
    missing: list[str]
    extra: list[str]
    diagnostics: list[str]
    gracious: dict | None  # gracious mode's reconstruction of this window (oracle/judge/gracious.py)
    timing: str | None     # why the report's place or time in the output is wrong
    relation: Any = None   # --keep-relations: the engine's whole relation (see kept_relation)

    @classmethod
    def of(cls, i: int, w, keep_relation: bool = False) -> "WindowResult":
        """From the oracle's window comparison (oracle.compare); ``keep_relation``: with the engine's whole
        relation for the window, not only what is missing or extra."""
        e, a = w.expected, w.actual
        observed = list(a.window) if a is not None and a.window else None
        return cls(
            index=i, status=w.status,
            open=e.opening if e is not None else (observed[0] if observed else None),
            close=e.closing if e is not None else (observed[1] if observed else None),
            expected_tau=e.tau if e is not None else None,
            actual_tau=a.tau if a is not None else None,
            actual_window=observed, precision=w.precision, recall=w.recall,
            expected_size=w.expected_size, actual_size=w.actual_size,
            missing=[show_solution(r) for r in w.missing[:SHOWN_SOLUTIONS]],
            extra=[show_solution(r) for r in w.extra[:SHOWN_SOLUTIONS]],
            diagnostics=list(w.diagnostics), gracious=w.gracious, timing=w.timing,
            relation=kept_relation(a.solutions) if keep_relation and a is not None else None)


def kept_relation(solutions) -> Any:
    """An engine's relation as the report keeps it, exactly: SELECT solutions as ``{var: N-Triples term}``
    (blank node labels as the engine gave them), CONSTRUCT triples as N-Triples lines, ASK as a boolean."""
    if isinstance(solutions, bool):
        return solutions
    out = []
    for row in solutions:
        if isinstance(row, tuple):
            out.append(" ".join(term.n3() for term in row) + " .")
        else:
            out.append({var: term.n3() for var, term in sorted(row.items()) if term is not None})
    return out


def declared_r2s(info: EngineInfo) -> str | None:
    """An engine that implements a single R2S operator declares it in its profile (CQELS: Istream);
    it is then judged under that operator, and the verdict says so.  Otherwise the case's R2S holds."""
    value = info.profile.get("r2s")
    return value if isinstance(value, str) else None


def judge(case: Case, info: EngineInfo, stream, reports, gracious: bool = True, deadline: float | None = None,
          evaluator: str = "auto", executor=None, diagnosed: bool = True, closest: bool = True,
          query: R2R | None = None):
    """The oracle's verdict on an engine's reports for a case, diagnosed when it fails.  ``deadline``
    (a monotonic instant) bounds the judging: past it the check raises JudgeTimeout, and the diagnosis
    of a FAIL is bounded by work (the same reason on any machine) and stops only at that deadline, saying so.
    ``diagnosed=False``: only whether some explanation holds (``rspconf infer-profile`` asks it many times);
    ``closest=False`` also skips finding the closest explanation of a FAIL of a single window kind (its ``best`` is
    None then; oracle/judge/verdict.py's check).  ``query``: the case's :func:`oracle_query`, to reuse its
    evaluations, which it keeps by window content whatever the profile (infer-profile judges a case under many
    profiles); its count of evaluator disagreements is then over every judgement it served."""
    fixed = dict(case.fixed)
    fixed.setdefault("r2s", declared_r2s(info) or case.r2s)
    how = kind(case.window)  # oracle/judge/kinds.py: what judging this kind of window takes
    if how.fixed is not None:  # no t0 classes: each admissible profile checked
        space = profiles.space(info.profile, fixed, case.vary, window=case.window)
        verdict = over_profiles(how.fixed, stream, case.window, case.r2r, space, reports, info.alignment, evaluator)
        if verdict.verdict == "FAIL" and diagnosed:
            diagnose_instants(verdict, R2R(case.r2r, stream, evaluator, executor).distinct)
        return verdict
    gracious = gracious and how.gracious
    query = oracle_query(case, stream, evaluator, executor) if query is None else query
    stream = query.stream
    space = profiles.space(info.profile, fixed, case.vary, window=case.window, stream=stream)
    verdict = check(stream, case.window, query, space, reports, how=info.alignment, deadline=deadline, closest=closest)
    for rule, windows in sorted(query.disagreements.items()):
        verdict.notes.append(f"rdflib and Oxigraph differ in {windows} window{'s' if windows != 1 else ''} by the "
                             f"declared rule {rule} (oracle/README.md); rdflib's answer stands")
    if verdict.verdict == "FAIL" and diagnosed:
        diagnose(verdict, query, gracious=gracious, deadline=deadline)
    return verdict


def oracle_query(case: Case, stream, evaluator: str = "auto", executor=None) -> R2R:
    """The oracle's R2R for a case of a single window kind, over the stream as its kind judges it."""
    return R2R(case.r2r, kind(case.window).judged(stream), evaluator, executor)


def run_case(case: Case, adapter, info: EngineInfo, timeout: float = 120.0, data_root: Path | None = None,
             gracious: bool = True, progress=None, evaluator: str = "auto", executor=None,
             keep_relations: bool = False) -> CaseResult:
    """Run one case and judge it; ``progress(step)`` (optional) hears each step as it begins;
    ``keep_relations``: each judged window keeps the engine's whole relation (``--keep-relations``)."""
    started = time.monotonic()
    say = progress or (lambda step: None)
    result = CaseResult(case.id, info.name, "ERROR", "", case.level, list(case.capabilities),
                        variant_of=getattr(case, "variant_of", None))
    recorded = list(getattr(adapter, "notes_for", lambda _: [])(case.id))
    result.about = about(case)

    def done(verdict: str, why: str, error: str | None = None) -> CaseResult:
        forms = standard_forms(case, info) if verdict in ("FAIL", "ERROR") else []
        if forms:  # the standard text of a deviation the engine declared: said first, beside the verdict
            what = "syntax deviations" if len(forms) > 1 else "a syntax deviation"
            why = f"[this text has the standard form of {what} the engine declares — {'; '.join(forms)}] {why}"
        result.verdict, result.reason, result.error = verdict, why, error
        result.notes = recorded + [n for n in result.notes if n not in recorded]
        if recorded and Verdict(verdict).judged:
            result.reason = f"[{'; '.join(recorded)}] {why}"
        result.seconds = round(time.monotonic() - started, 3)
        return result

    lacking = sorted(set(case.capabilities) - set(info.capabilities))
    if lacking:
        return done("UNSUPPORTED", f"engine lacks capability {', '.join(lacking)}")
    say(f"{case.id}: loading the stream")
    try:
        stream = case.load_stream(data_root)
    except DataMissing as exc:
        return done("SKIPPED", str(exc))
    except (StreamInputError, CaseFileError, ValueError) as exc:
        return done("ERROR", f"harness: cannot load the case's stream: {exc}", str(exc))
    result.about = about(case, stream)
    try:
        request = request_for(case, info, stream)
    except (NoTextForDialect, Inexpressible) as exc:
        return done("UNSUPPORTED", str(exc))
    except ValueError as exc:
        return done("ERROR", f"harness: cannot render the query for dialect {info.dialect}: {exc}", str(exc))
    result.query_text = request.query_text
    result.syntax_variant = list(variant_of(case, info)) or None
    say(f"{case.id}: engine running")
    reports, failure = call_engine(adapter, request, max(0.1, timeout - (time.monotonic() - started)))
    recorded += [n for n in getattr(adapter, "notes_for", lambda _: [])(case.id) if n not in recorded]
    if failure:
        return done(*failure)
    if not isinstance(reports, list):
        return done("ERROR", f"engine returned {type(reports).__name__}, not a list of reports")
    say(f"{case.id}: oracle judging")
    try:
        verdict = judge(case, info, stream, reports, gracious, deadline=started + timeout, evaluator=evaluator,
                        executor=executor)
    except JudgeTimeout as exc:
        return done("TIMEOUT", f"oracle (not the engine): {exc} of {timeout:g} s; raise --case-timeout")
    except EvaluatorDisagreement as exc:  # said in full by its message: a traceback would add nothing
        return done("ERROR", f"harness: the oracle cannot evaluate this case: {exc}")
    except (QueryError, ValueError) as exc:
        return done("ERROR", f"harness: the oracle cannot evaluate this case: {exc}", traceback.format_exc())
    record(result, verdict, keep_relations)
    why = reason(verdict)
    own = declared_r2s(info)
    if own and own != case.r2s:
        why = f"[judged under the engine's declared R2S {own}; the case asks {case.r2s}] {why}"
    return done(verdict.verdict, why)


def call_engine(adapter, request, seconds: float) -> tuple[list | None, tuple | None]:
    """The engine's reports, or the (verdict, reason, detail) its failure to answer gives."""
    try:
        return call_with_timeout(lambda: adapter.run(request), seconds, getattr(adapter, "cancel", None)), None
    except EngineTimeout as exc:
        return None, ("TIMEOUT", f"engine: {exc}")
    except Unsupported as exc:
        return None, ("UNSUPPORTED", f"engine refused: {exc}")
    except Exception as exc:  # noqa: BLE001 - any engine failure is an ERROR, never a FAIL
        tail = getattr(exc, "stderr_tail", None)
        # an engine process's trouble is said in the kit's words, with the engine's own stderr: the kit's
        # Python frames would say nothing about the engine; an in-process adapter's trace is its own
        trace = "" if isinstance(exc, EngineProcessError) else (getattr(exc, "__rspconf_trace__", None)
                                                                or traceback.format_exc())
        detail = trace + ("\n--- engine stderr (tail) ---\n" + tail if tail else "")
        return None, ("ERROR", f"engine raised {type(exc).__name__}: {exc}", detail.strip()[-8000:] or None)


def record(result: CaseResult, verdict, keep_relations: bool = False) -> None:
    """The oracle's verdict into the case's result: the best explanation, every window, the means, the
    findings and notes (the one place a verdict becomes report data)."""
    best = verdict.best
    result.explanation = {
        "t0": best.t0, "t0_class": list(best.t0_class), "profile": best.profile.describe(),
        "alignment": verdict.alignment, "candidates": verdict.candidates,
        "explaining": [{"profile": p, "t0_class": list(c)} for p, c in verdict.explaining[:20]],
    }
    result.windows = [WindowResult.of(i, w, keep_relations) for i, w in enumerate(best.windows)]
    result.matched = best.matched
    result.mean_precision = round(best.mean("precision"), 6)
    result.mean_recall = round(best.mean("recall"), 6)
    result.findings = dict(verdict.findings) or None
    result.vacuous = verdict.vacuous
    result.notes = list(verdict.notes)


def failure_text(result: CaseResult, limit: int = 6) -> str:
    """A person-readable account of a FAIL: the reason, then the first wrong windows with diagnostics."""
    lines = [f"{result.id}: FAIL — {result.reason}"]
    shown = 0
    for w in result.windows:
        if w.status == "MATCH":
            continue
        shown += 1
        if shown > limit:
            lines.append(f"… {sum(x.status != 'MATCH' for x in result.windows) - limit} more wrong windows")
            break
        span = f"[{w.open}, {w.close})" if w.open is not None else "?"
        p = "-" if w.precision is None else f"{w.precision:.2f}"
        r = "-" if w.recall is None else f"{w.recall:.2f}"
        lines.append(f"  window {w.index} {span}: {w.status} precision {p} recall {r} "
                     f"(expected {w.expected_size}, actual {w.actual_size})")
        lines += [f"    {d}" for d in w.diagnostics]
    return "\n".join(lines)


__all__ = ["CaseResult", "VERDICTS", "call_with_timeout", "failure_text", "judge", "run_case"]
