"""``rspconf check-adapter ENGINE``: exercise a new adapter on the smoke subset and say precisely what
it got wrong — start-up and declared info, each smoke case (protocol or harness trouble is an ERROR;
a wrong answer is a FAIL, which is about semantics, not the adapter), a query that is not SPARQL (it
must be refused, not answered, crashed on or hung on), and a clean stop.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

from conformance import schema as schemas
from conformance.corpus.cases import load_corpus
from conformance.run import adapters
from conformance.run.harness import EngineTimeout, call_with_timeout, failure_text, request_for, run_case
from engines.command import CommandEngine
from engines.contract import DIALECTS, Unsupported
from engines.dialects import variants
from oracle import profiles
from oracle.compare import ALIGNMENTS


class Checklist:
    def __init__(self, out):
        self.out, self.problems = out, 0

    def ok(self, what: str) -> None:
        print(f"  ok    {what}", file=self.out)

    def bad(self, what: str, detail: str = "", tail: str = "") -> None:
        """A problem: what, the kit's words for it in full, then the end of the engine's stderr, labelled."""
        self.problems += 1
        print(f"  FAIL  {what}", file=self.out)
        for line in detail.strip().splitlines():
            print(f"          {line}", file=self.out)
        lines = [line for line in tail.strip().splitlines() if line.strip()][-10:]
        if lines:
            print("          --- the engine's stderr (end) ---", file=self.out)
            for line in lines:
                print(f"          | {line}", file=self.out)

    def note(self, what: str) -> None:
        print(f"  note  {what}", file=self.out)


def check_adapter(spec: str, options: dict, cases_root: Path, timeout: float, out, trace: str | None = None) -> int:
    c = Checklist(out)
    print(f"checking adapter {spec}", file=out)
    try:
        adapter = adapters.build(spec, options, trace=trace)
        info = adapter.info()
    except Exception as exc:  # noqa: BLE001 - everything here is a finding to print
        c.bad("start and info()", f"{type(exc).__name__}: {exc}", getattr(exc, "stderr_tail", "") or "")
        return 1
    if not _check_info(c, info):
        print("the smoke cases are judged against the declared profile: fix it, then check again", file=out)
        if hasattr(adapter, "close"):
            adapter.close()
        return 1
    cases = [case for case in load_corpus(cases_root) if case.smoke]
    print(f"smoke subset: {len(cases)} cases", file=out)
    request = None
    for case in cases:
        result = run_case(case, adapter, info, timeout=timeout, gracious=False)
        line = f"{case.id}: {result.verdict} in {result.seconds:.1f} s — {result.reason}"
        if result.verdict in ("ERROR", "TIMEOUT"):
            trace, _, tail = (result.error or "").partition("--- engine stderr (tail) ---")
            c.bad(line, trace, tail)
        elif result.verdict == "FAIL":
            c.note(line + "  (the answer differs from the declared semantics, not a protocol problem; "
                   f"`pytest conformance/ --engine ... -k {case.id.split('[')[0]}` shows every window)")
            for text in failure_text(result, limit=2).splitlines()[1:7]:  # the first wrong windows, briefly
                print(f"          {text}", file=c.out)
        elif result.vacuous:  # nothing was compared: not a finding, and not a sign the adapter works either
            c.note(line + "  (the engine reported nothing here, which its declared profile allows; a case where "
                   "it must report shows whether its answers reach the kit)")
        else:
            c.ok(line)
        if isinstance(adapter, CommandEngine):  # stray output between answers is a protocol problem too
            for note in adapter.notes_for(case.id):
                c.bad(f"{case.id}: {note}")
        if request is None and result.verdict not in ("SKIPPED", "UNSUPPORTED"):
            request = request_for(case, info, case.load_stream())
    if request is not None:
        _check_bad_query(c, adapter, request, timeout)
    else:
        c.note("no smoke case ran (all skipped or unsupported): the bad-query check was not made")
    if hasattr(adapter, "close"):
        _check_stop(c, adapter)
    print(("adapter OK" if not c.problems else f"{c.problems} problem(s) found"), file=out)
    return 1 if c.problems else 0


def _check_info(c: Checklist, info) -> bool:
    """The engine's description: a known dialect and alignment, a valid profile, known syntax deviations.
    False when the profile is not valid (nothing can be judged against it)."""
    c.ok(f"started: {info.name} {info.version}, dialect {info.dialect}, alignment {info.alignment}")
    if info.dialect not in DIALECTS:
        c.bad(f"dialect {info.dialect!r}", f"use one of {', '.join(DIALECTS)}")
    try:
        profiles.space(info.profile)
        c.ok(f"declared profile is valid: {info.profile}")
    except ValueError as exc:
        c.bad("declared profile", str(exc))
        valid = False
    else:
        valid = True
    if info.alignment not in ALIGNMENTS:
        c.bad(f"alignment {info.alignment!r}", f"use {', '.join(ALIGNMENTS)}")
    unknown = schemas.unknown_capabilities(info.capabilities)
    if unknown:
        c.bad("declared capabilities", f"not in the registry: {', '.join(unknown)} (rspconf capabilities lists "
              "the names; a case needing a name the engine misspells is UNSUPPORTED for it)")
    else:
        c.ok(f"declared capabilities are all in the registry ({len(info.capabilities)})")
    if info.syntax:
        try:
            variants.check(info.dialect, info.syntax)
            c.ok(f"declared syntax variant: {', '.join(info.syntax)} (every case is rendered so; the syntax family "
                 "keeps the standard form)")
        except variants.UnknownDeviation as exc:
            c.bad("declared syntax", str(exc))
    return valid


def _check_bad_query(c: Checklist, adapter, request, timeout: float) -> None:
    """A query that is not SPARQL must be refused or be an error, at once."""
    bogus = replace(request, r2r="THIS IS NOT SPARQL {", query_text="THIS IS NOT SPARQL {",
                    case_id="check-adapter.not-sparql")
    try:
        reports = call_with_timeout(lambda: adapter.run(bogus), timeout, getattr(adapter, "cancel", None))
        c.bad("a query that is not SPARQL", f"was answered with {len(reports)} reports; refuse it "
              "(raise Unsupported or an error / answer 'unsupported' or 'error')")
    except Unsupported as exc:
        c.ok(f"a query that is not SPARQL is refused: {exc}")
    except EngineTimeout:
        c.bad("a query that is not SPARQL", f"no answer within {timeout:g} s: refuse bad queries at once")
    except Exception as exc:  # noqa: BLE001
        tail = getattr(exc, "stderr_tail", "")
        if "exit code" in str(exc) or "not JSON" in str(exc):
            c.bad("a query that is not SPARQL", str(exc), tail)
        else:
            c.ok(f"a query that is not SPARQL is an error: {str(exc)[:160]}")


def _check_stop(c: Checklist, adapter) -> None:
    """The engine stops when asked, with exit code 0, within the stop grace."""
    started = time.monotonic()
    process = adapter.process if isinstance(adapter, CommandEngine) else None  # an engine process of ours
    stray = process.leftover() if process is not None else None
    if stray is not None:
        c.bad("after the last answer", f"the engine printed {stray} (stdout is for protocol messages only)")
    adapter.close()
    if process is not None and process.proc.returncode not in (0, None):
        c.bad("stop", f"the engine exited with code {process.proc.returncode} on stop")
    elif process is not None and process.proc.returncode is None:
        c.bad("stop", "the engine did not exit within 5 s of the stop message and was killed")
    else:
        c.ok(f"stopped cleanly in {time.monotonic() - started:.1f} s")
