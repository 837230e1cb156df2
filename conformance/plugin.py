"""The pytest plugin: ``pytest conformance/ --engine NAME`` runs the corpus against one engine.

Each case is one parametrized test whose id is the case id.  The engine runs in the test's setup (so
an engine crash or hang is reported as an ERROR, never as a failure of its semantics); the oracle's
verdict decides the call phase: PASS passes, FAIL fails with the explanation, UNSUPPORTED, SKIPPED and UNJUDGED
skip with a message saying so.  Known deviations from the engine's expectations file are strict xfails.
"""

from __future__ import annotations

import gc
import json
import os
import threading
import time
from pathlib import Path

import pytest

from conformance import schema as schemas
from conformance.corpus import datapaths
from conformance.corpus.cases import CaseFileError, variant
from conformance.load import experiment as experiments
from conformance.results import tables
from conformance.run import expectations, report, signals
from conformance.run.harness import CaseResult, run_case
from conformance.run.session import Session
from engines import trace
from engines.process import kill_all
from oracle.r2r.evaluators import EVALUATORS

KEY = "rspconf"


def pytest_addoption(parser):
    group = parser.getgroup("rspconf", "RDF stream processing conformance")
    group.addoption("--engine", default="reference",
                    help="engine to test: a registered name (reference, spark, rsp-js[@version]; `rspconf engines` lists "
                         "them), 'cmd:<command line>' for an engine process speaking the JSON Lines protocol "
                         "(docs/protocol.md), 'replay:<manifest.yaml>' for recorded outputs, 'study:<command line>' "
                         "for a runner of the 2021 comparative study's interface, or path/to/file.py:Class for an "
                         "in-process adapter (docs/adding-an-engine.md)")
    group.addoption("--engine-option", action="append", default=[], metavar="KEY=VALUE",
                    help="option passed to the engine adapter (repeatable)")
    group.addoption("--data-root", default=None,
                    help=f"folder holding third-party data (default: ${datapaths.ENV}, else ../shared/data)")
    group.addoption("--cases", default=None, help="corpus folder (default: the kit's cases/)")
    group.addoption("--report", default=None, metavar="PATH", help="write the JSON run report here")
    group.addoption("--label", action="append", default=[], metavar="LABEL",
                    help="a label stored in the report's run (e.g. nightly); repeatable")
    group.addoption("--case-timeout", type=float, default=300.0, help="seconds per case: the engine's run and the oracle's judging together (default 300)")
    group.addoption("--smoke", action="store_true", help="run only the smoke subset")
    group.addoption("--capability", action="append", default=[], metavar="NAME",
                    help="run only the cases that need this capability (repeatable: all of them); "
                         "rspconf capabilities lists the names")
    group.addoption("--strict-expectations", action="store_true",
                    help="stop when the engine's expectations file has entries that name no case (else a warning)")
    group.addoption("--no-gracious", action="store_true", help="skip gracious-mode window reconstruction")
    group.addoption("--keep-relations", action="store_true",
                    help="the --report keeps each judged window's whole relation from the engine (field relation), "
                         "not only the missing and extra solutions")
    group.addoption("--oracle-evaluator", choices=list(EVALUATORS), default="auto",
                    help="the oracle's SPARQL evaluator: auto (default: both on small windows, Oxigraph alone "
                         "on large ones unless a declared rule may apply), rdflib, oxigraph, or both (every "
                         "relation evaluated by each; a disagreement is a harness ERROR)")
    group.addoption("--oracle-executor", default="local", metavar="local|threads[:N]|spark|spark:MASTER",
                    help="where the oracle's window evaluations run: local (default, in process, one at a "
                         "time), threads[:N] (in process, every window of every candidate t0 on N threads, "
                         "default one per core), or spark (local[2], or spark:<master URL>): in Spark tasks, "
                         "each with Oxigraph in the Python worker (oracle/r2r/executors.py)")
    group.addoption("--engine-trace", default=None, metavar="FILE",
                    help="write every protocol message between the kit and an engine process (cmd:…, rsp-js), "
                         "both ways, with times, to FILE as JSON Lines (docs/protocol.md, Tracing)")
    group.addoption("--load", default=None, metavar="EXPERIMENT",
                    help="a live load run instead of the corpus: one test per load of the experiment config "
                         "(e.g. docs/examples/load/quick.yaml), fed in wall-clock time (docs/load.md); not with -n")
    group.addoption("--load-out", default="load-report", metavar="DIR",
                    help="where --load writes load.json and its SVG pictures (default load-report)")


def pytest_configure(config):
    config.addinivalue_line("markers", "rspconf_case: a conformance case")
    signals.sigterm_as_interrupt()  # a SIGTERM'd run stops its engines and reports itself incomplete, as Ctrl-C
    unknown = schemas.unknown_capabilities(config.getoption("capability", None) or [])
    if unknown:
        raise pytest.UsageError(f"--capability: not in the registry: {', '.join(unknown)} (rspconf capabilities "
                                "lists the names)")
    report_path = config.getoption("--report", None)
    if report_path and not hasattr(config, "workerinput"):
        # a run that finishes nothing (a usage error below, say) must not leave an older report for CI to read
        problem = report.replaceable(Path(report_path))
        if problem:
            raise pytest.UsageError(f"--report {report_path}: {problem}")
        Path(report_path).unlink(missing_ok=True)
    trace_path = config.getoption("engine_trace", None)
    if trace_path and not hasattr(config, "workerinput"):
        try:
            trace.start_file(trace_path)
        except ValueError as exc:
            raise pytest.UsageError(str(exc)) from None
    given = config.getoption("data_root", None)
    if given:
        if not Path(given).is_dir():
            raise pytest.UsageError(f"--data-root {given}: no such folder. Give the folder that holds the "
                                    "third-party data (e.g. ../shared/data, with csrbench/ in it), or leave the "
                                    f"option out to use ${datapaths.ENV} or ../shared/data")
        datapaths.set_data_root(given)
    config._rspconf = Session(config)
    _ACTIVE.append(config._rspconf)
    if config.getoption("load", None):
        try:
            config._rspconf.experiment = experiments.read_experiment(Path(config.getoption("load")))
        except experiments.ExperimentError as exc:
            raise pytest.UsageError(str(exc)) from None
        if getattr(config.option, "numprocesses", None):
            raise pytest.UsageError("--load runs are timed in wall-clock time: run them without -n (one load at a time)")
    if any("conformance" in Path(str(a).split("::")[0]).parts for a in config.args):
        # the corpus is read and the engine built (cheaply: Spark starts its session on first use) before
        # collection, so a bad case file or --engine is one clean usage error (exit 4), not a collection
        # error under pytest's internals
        config._rspconf.corpus()
        config._rspconf.engine()
        try:
            config._rspconf.executor()
        except ValueError as exc:  # ExecutorError: an unknown --oracle-executor
            raise pytest.UsageError(str(exc)) from None
        if getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput"):
            config._rspconf.release()  # the -n controller runs no case: it keeps the engine's info, not its process
    if hasattr(config, "workerinput"):
        _watch_parent()


def _watch_parent(every: float = 0.5) -> None:
    """An xdist worker whose controller was killed (SIGKILL: no clean-up of its own) is reparented;
    it then kills its engine processes (their process groups) and exits at once instead of finishing
    its case first — so no engine process or Spark JVM outlives the run for long."""

    parent = os.getppid()

    def watch():
        while True:
            time.sleep(every)
            if os.getppid() != parent:
                try:
                    kill_all()
                finally:
                    os._exit(3)

    threading.Thread(target=watch, daemon=True, name="rspconf-parent-watch").start()


def pytest_collection_finish(session):
    """How many cases this run selected (in a plain run; with -n the workers say it, below)."""
    state = getattr(session.config, "_rspconf", None)
    if state is not None and not hasattr(session.config, "workerinput"):
        state.selected = sum(1 for item in session.items if "rspconf_case" in getattr(item, "fixturenames", ()))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids):
    state = _ACTIVE[-1] if _ACTIVE else None
    if state is not None:
        state.selected = sum(1 for i in ids if "::test_case[" in i)


def pytest_keyboard_interrupt(excinfo):
    if _ACTIVE:
        said = str(excinfo.value).strip()  # xdist stops for --maxfail with an Interrupted that says why
        _ACTIVE[-1].interrupted = f"interrupted: {said}" if said else "interrupted (Ctrl-C)"


#: one failure type per bad verdict, so an expectation's xfail is met by its own verdict only
VerdictFailed = {v: type(f"{v.capitalize()}Verdict", (pytest.fail.Exception,), {"__module__": __name__})
                 for v in ("FAIL", "ERROR", "TIMEOUT")}


def pytest_generate_tests(metafunc):
    if "rspconf_case" not in metafunc.fixturenames:
        return
    config = metafunc.config
    session: Session = config._rspconf
    cases = session.corpus()
    if config.getoption("--smoke"):
        cases = [c for c in cases if c.smoke]
    wanted = config.getoption("capability")  # names checked in pytest_configure
    if wanted:
        cases = [c for c in cases if set(wanted) <= set(c.capabilities)]
    known = session.known()
    stale = expectations.unmatched(known, session.corpus())
    if stale:
        where = session.engine()[1].expectations
        said = (f"{where}: {len(stale)} entr{'ies' if len(stale) != 1 else 'y'} name no case of the corpus "
                f"({', '.join(stale[:5])}{', …' if len(stale) > 5 else ''}): a typo, or a case since removed")
        if config.getoption("strict_expectations"):
            raise pytest.UsageError(said)
        session.warnings.append(said)
    if session.experiment is not None:  # --load: the experiment's loads, in its order
        by_id = {c.id: c for c in cases}
        unknown = [i for i in session.experiment.loads if i not in by_id]
        if unknown:
            raise pytest.UsageError(f"--load {config.getoption('load')}: no case {unknown[0]!r} in the corpus "
                                    "(rspconf lint lists the ids)")
        metafunc.parametrize("rspconf_case", [pytest.param(by_id[i], id=i) for i in session.experiment.loads])
        return
    cases = with_variants(cases, session.engine()[0])
    params = []
    for case in cases:
        marks = []
        entry = expectations.lookup(known, case)
        if entry:  # only the listed verdict satisfies it: an expected FAIL met by an ERROR is a failure
            marks.append(pytest.mark.xfail(strict=True, raises=VerdictFailed[entry["verdict"]],
                                           reason=f"known {entry['verdict']}: {entry['reason']}"))
        params.append(pytest.param(case, id=case.id, marks=marks))
    metafunc.parametrize("rspconf_case", params)


def with_variants(cases, adapter) -> list:
    """The cases plus the variants the adapter has outputs for (a replay manifest's recordings made with
    other parameters), each right after the case it varies; a variant whose id is a corpus case is that case."""
    if not hasattr(adapter, "variants"):
        return cases
    ids = {c.id for c in cases}
    out = []
    for case in cases:
        out.append(case)
        for made_with in adapter.variants(case):
            try:
                v = variant(case, made_with.get("params"), made_with.get("window"), made_with.get("r2s"))
            except (CaseFileError, ValueError) as exc:
                raise pytest.UsageError(f"--engine {adapter.info().name}: a recording of {case.id}: {exc}") from None
            if v.id == case.id:
                continue
            adapter.bind_variant(case.id, v.id, made_with)
            if v.id not in ids:
                ids.add(v.id)
                out.append(v)
    return out


@pytest.fixture
def rspconf_outcome(request, rspconf_case):
    """Run the case against the engine and judge it (setup phase: engine trouble is an ERROR)."""
    config = request.config
    session: Session = config._rspconf
    adapter, info = session.engine()
    if session.experiment is not None:
        result = live_outcome(session, rspconf_case, adapter, info)
    else:
        progress = session.progress()
        try:
            result = run_case(rspconf_case, adapter, info, timeout=config.getoption("case_timeout"),
                              gracious=not config.getoption("no_gracious"), progress=progress.step if progress else None,
                              evaluator=config.getoption("oracle_evaluator"), executor=session.executor(),
                              keep_relations=config.getoption("keep_relations"))
        finally:
            if progress is not None:
                progress.done()
    data = result.to_json()
    known = expectations.lookup(session.known(), rspconf_case)
    data["expected_verdict"] = known["verdict"] if known else None
    data["expectation_reason"] = known["reason"] if known else None
    data["expectation_link"] = known.get("link") if known else None
    request.node.user_properties.append((KEY, json.dumps(data)))
    if result.verdict in ("ERROR", "TIMEOUT"):
        raise VerdictFailed[result.verdict](tables.printable(f"{result.verdict}: {result.reason}"
                                                             + (f"\n{result.error}" if result.error else ""),
                                                             keep_lines=True), pytrace=False)
    if result.verdict in ("UNSUPPORTED", "SKIPPED", "UNJUDGED"):
        pytest.skip(f"{result.verdict}: {result.reason}")
    return result


def live_outcome(session: Session, case, adapter, info) -> CaseResult:
    """``--load``: the case is one load of the experiment, fed live ``repeat`` times (conformance/load/experiment.py);
    its verdict is FAIL if any repetition failed, and the load's figures go to the load report."""

    started = time.monotonic()
    entry = experiments.run_load(case, adapter, info, session.experiment, say=lambda line: None)
    session.loads.append(entry)
    verdict, why = experiments.verdict_of(entry)
    verdict = {"complete": "PASS"}.get(verdict, verdict)
    # the windows, with their delays, are in the load report (--load-out), not in the run report
    return CaseResult(case.id, info.name, verdict, why, case.level, list(case.capabilities),
                      seconds=round(time.monotonic() - started, 3),
                      notes=[f"#{r['repetition']}: {experiments.describe(r)}" for r in entry["runs"]])


_ACTIVE: list[Session] = []


def pytest_runtest_logreport(report):
    """Collect case results (on the xdist controller they arrive from the workers)."""
    if not _ACTIVE:
        return
    for key, value in getattr(report, "user_properties", ()):
        if key == KEY:
            data = json.loads(value)
            _ACTIVE[-1].results[data["id"]] = data


def pytest_unconfigure(config):
    # pytest's unraisable-exception cleanup runs gc.collect() several times after the run; with a large
    # load's millions of terms still alive each pass took some 10 s (55 s after a 10,000-station case).
    # Frozen objects are left out of those passes; the process is ending, nothing is lost.
    gc.freeze()
    state = getattr(config, "_rspconf", None)
    if state is not None and state.adapter is not None and hasattr(state.adapter, "close"):
        state.adapter.close()  # e.g. stop a subprocess engine
    if _ACTIVE and _ACTIVE[-1] is state:
        _ACTIVE.pop()


def _ended_early(session, exitstatus) -> str | None:
    state: Session = session.config._rspconf
    if state.interrupted:
        return state.interrupted
    if exitstatus == pytest.ExitCode.INTERRUPTED:
        return f"interrupted: {session.shouldstop or session.shouldfail or 'stopped'}"
    if session.shouldfail or session.shouldstop:
        return f"stopped early: {session.shouldfail or session.shouldstop}"
    return None


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if hasattr(config, "workerinput"):
        return
    state: Session = config._rspconf
    cases = list(state.results.values())
    run = report.completeness({}, state.selected, len(cases), _ended_early(terminalreporter._session, exitstatus)
                              if getattr(terminalreporter, "_session", None) else state.interrupted)
    if cases:
        terminalreporter.section(f"rspconf conformance summary — engine {config.getoption('--engine')}")
        wide = terminalreporter._tw.fullwidth if terminalreporter.isatty() else None
        for line in report.summary_lines(cases, wide):
            terminalreporter.write_line(line)
    for said in dict.fromkeys(state.warnings):
        terminalreporter.write_line(f"WARNING: {said}", yellow=True, bold=True)
    missing = [c for c in cases if c["verdict"] == "SKIPPED"]
    if missing:
        root = datapaths.data_root()
        terminalreporter.write_line(
            f"DATA MISSING: {len(missing)} case(s) SKIPPED because their third-party data is not under the data "
            f"root ({root or 'none set'}): give --data-root or ${datapaths.ENV} (README, 'Data')",
            yellow=True, bold=True)
    ran = not config.getoption("collectonly", False)  # --collect-only runs nothing: nothing is incomplete
    line = report.incomplete_line(run) if ran and (cases or state.selected) else None
    if line:
        terminalreporter.write_line(line, red=True, bold=True)
    if state.experiment is not None:
        for case in cases:
            for note in case.get("notes", []):
                terminalreporter.write_line(f"{case['id']}: {note}")
        terminalreporter.write_line(f"load report: {Path(config.getoption('load_out')) / 'load.json'} (and its SVG "
                                    "pictures; docs/load.md)")


def pytest_sessionfinish(session, exitstatus):
    config = session.config
    state = getattr(config, "_rspconf", None)
    if state is not None and state.experiment is not None and state.loads and not hasattr(config, "workerinput"):
        doc = experiments.report_doc(state.experiment, state.info, state.loads, experiments.now())
        experiments.write(doc, Path(config.getoption("load_out")))
    path = config.getoption("--report", None)
    if not path or hasattr(config, "workerinput"):
        return
    state: Session = config._rspconf
    cases = list(state.results.values())
    if state.info is None and state.adapter is None:
        try:
            state.engine()
        except pytest.UsageError:
            return  # no engine, no report: the stale one was removed at start
    run = report.completeness(report.run_info(state.info, state.options, config.getoption("--label")),
                              state.selected, len(cases),
                              _ended_early(session, exitstatus))
    report.write(Path(path), report.document(run, cases))
