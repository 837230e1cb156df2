"""``rspconf``: the kit's command line (lint the corpus, generate streams, run the Spark engine, check an
adapter, reproduce CSRBench's Table 2, list engines; summarize, diff and combine run reports into a
matrix site, and write EARL).

The conformance run itself is pytest: ``pytest conformance/ --engine NAME``.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import shutil
import sys
from dataclasses import replace
from pathlib import Path

from conformance import schema as schemas
from conformance.corpus import datapaths
from conformance.corpus import lint as corpus_lint
from conformance.corpus.cases import CaseFileError, DataMissing, load_corpus
from conformance.load import experiment as experiments
from conformance.load.experiment import ExperimentError
from conformance.results import diff as diff_mod
from conformance.results import earl as earl_mod
from conformance.results import matrixrun, runs, tables
from conformance.results import summary as summary_mod
from conformance.results.matrixrun import ConfigError
from conformance.results.runs import NotAligned, ReportError
from conformance.run import adapters, adhoc, checkadapter, expectations, infer, signals, sparkrun, sparqlsuite
from conformance.run import export as exporter
from conformance.run import reproduce as table2
from conformance.run.harness import NoTextForDialect, run_case
from conformance.site import pages as site
from conformance.streams import convert
from conformance.streams.generate import GeneratorError, check_params, write
from engines import trace
from engines.dialects.render import Inexpressible
from engines.process import ProtocolError
from engines.rspjs import versions
from oracle.durations import parse_duration

TRACE_HELP = ("write every protocol message between the kit and an engine process (cmd:…, rsp-js), both ways, "
              "with times, to FILE as JSON Lines (docs/protocol.md, Tracing)")


def lint(args) -> int:
    """Check the corpus (conformance/corpus/lint.py)."""
    return corpus_lint.lint(Path(args.cases), args.k, args.verbose, oracle=not args.fast, large=not args.no_large)


def generate(args) -> int:
    """Write a generated stream: arguments checked before anything is written, and the output file
    replaced only once the whole stream is written (a failed run leaves an existing file as it was)."""

    try:
        params = {"interval": parse_duration(args.interval), "duration": parse_duration(args.duration),
                  "seed": args.seed}
    except ValueError as exc:
        print(f"error: rspconf generate: {exc}", file=sys.stderr)
        return 2
    if args.model == "yabench":
        params["stations"] = args.stations
        if args.no_first_at_zero:
            params["first_at_zero"] = False
    else:
        params["sensors"] = args.stations
    try:
        check_params(args.model, **params)
    except GeneratorError as exc:
        print(f"error: rspconf generate {args.model}: {exc}", file=sys.stderr)
        return 2
    if args.output == "-":
        n = write(args.model, args.format, sys.stdout, **params)
    else:
        target = Path(args.output)
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        try:
            with open(tmp, "w", encoding="utf-8") as out:
                n = write(args.model, args.format, out, **params)
            os.replace(tmp, target)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            print(f"error: rspconf generate: cannot write {args.output}: {exc.strerror}", file=sys.stderr)
            return 2
        finally:
            tmp.unlink(missing_ok=True)
    print(f"wrote {n} triples to {args.output}", file=sys.stderr)
    return 0


def check_adapter(args) -> int:
    if args.data_root:
        datapaths.set_data_root(args.data_root)
    if args.engine_trace:
        try:
            trace.start_file(args.engine_trace)
        except ValueError as exc:
            return _usage(str(exc))
    return checkadapter.check_adapter(args.engine, adapters.parse_options(args.engine_option), Path(args.cases),
                                      args.case_timeout, sys.stdout, trace=args.engine_trace)


def load_command(args) -> int:
    """A live load experiment (conformance/load/experiment.py): feed in wall-clock time, judge, write the report."""

    if args.data_root:
        datapaths.set_data_root(args.data_root)
    experiment = experiments.read_experiment(Path(args.experiment))
    if args.repeat is not None:
        experiment = replace(experiment, repeat=args.repeat)
    if args.speed is not None:
        experiment = replace(experiment, speed=args.speed)
    try:
        adapter = _built(args, experiment.timeout)
    except (ValueError, adapters.EngineUnavailable) as exc:
        return _usage(str(exc))
    if not hasattr(adapter, "live"):
        return _usage(f"the engine {args.engine} has no live mode, so it cannot be load-tested (UNSUPPORTED for "
                      "load runs; docs/load.md lists the engines that have one)")
    cases = {c.id: c for c in load_corpus(Path(args.cases))}
    try:
        report = experiments.run_experiment(experiment, adapter, cases)
    finally:
        close = getattr(adapter, "close", None)
        if close is not None:
            close()
    written = experiments.write(report, Path(args.out))  # first: what was measured is never lost
    print(f"wrote {written[0]} and {len(written) - 1} pictures")
    problems = experiments.validate(report)
    if problems:
        print(f"error: {written[0]} does not fit its schema (conformance/schema/load.schema.json): {problems[0]} — "
              "a bug of the kit; please report it with the file", file=sys.stderr)
        return 2
    incomplete = [x["case"] for x in report["loads"] if x["status"] != "complete"]
    if incomplete:
        print(f"not run to the end: {', '.join(incomplete)}", file=sys.stderr)
        return 1
    return 0


def reproduce(args) -> int:
    return table2.main(args)


def engines(args) -> int:
    for name, target in sorted(adapters.available().items()):
        print(f"{name:24} {target}")
    try:
        print(f"{'rsp-js@<version>':24} another pinned rsp-js release: {', '.join(versions())}")
    except OSError:
        pass
    print(f"{'cmd:<command line>':24} an engine process speaking the JSON Lines protocol (docs/protocol.md)")
    print(f"{'replay:<manifest.yaml>':24} recorded outputs (engines/replay/, e.g. csrbench-2013/cqels.yaml)")
    print(f"{'<file.py>:<Class>':24} an in-process adapter (docs/adding-an-engine.md)")
    return 0


def _width() -> int | None:
    return shutil.get_terminal_size().columns if sys.stdout.isatty() else None


def _built(args, start_timeout: float | None = None):
    """The adapter ``--engine`` and ``--engine-option`` name; with ``--engine-trace``, a new trace begun first
    (raises ValueError or EngineUnavailable, each a one-line usage error)."""
    path = getattr(args, "engine_trace", None)
    if path:
        trace.start_file(path)
    return adapters.build(args.engine, adapters.parse_options(args.engine_option), start_timeout, trace=path)


def judge_command(args) -> int:
    """A query and stream of the user's own, judged like a corpus case (conformance/run/adhoc.py)."""
    if args.data_root:
        datapaths.set_data_root(args.data_root)
    try:
        case = adhoc.case_for(Path(args.query), Path(args.stream), args.window, args.r2s, args.stream_iri,
                              args.stream_format)
    except adhoc.AdhocError as exc:
        return _usage(str(exc))
    try:
        adapter = _built(args, args.case_timeout)
    except (ValueError, adapters.EngineUnavailable) as exc:
        return _usage(str(exc))
    try:
        info = adapters.declared_info(adapter, args.engine)
        result = run_case(case, adapter, info, timeout=args.case_timeout, gracious=not args.no_gracious)
    except adapters.EngineUnavailable as exc:
        return _usage(str(exc))
    except (ValueError, ProtocolError) as exc:
        return _usage(f"--engine {args.engine}: {exc}")
    finally:
        if hasattr(adapter, "close"):
            adapter.close()
    print(tables.printable(adhoc.summary(result), keep_lines=True))
    if args.json:
        adhoc.write_json(result, Path(args.json))
    return 0 if result.verdict == "PASS" else 1


def export_command(args) -> int:
    """One case to take away (conformance/run/export.py)."""
    if args.data_root:
        datapaths.set_data_root(args.data_root)
    cases = {c.id: c for c in load_corpus(Path(args.cases))}
    case = cases.get(args.case_id)
    if case is None:
        near = sorted(i for i in cases if i.startswith(args.case_id.split("[", 1)[0]))[:8]
        return _usage(f"no case {args.case_id!r} in {args.cases}" + (f"; did you mean {', '.join(near)}?" if near
                      else " (pytest conformance/ --collect-only -q lists the ids)"))
    try:
        adapter = _built(args)
    except (ValueError, adapters.EngineUnavailable) as exc:
        return _usage(str(exc))
    try:
        info = adapter.info()
    except (ValueError, ProtocolError) as exc:
        return _usage(f"--engine {args.engine}: {exc}")
    finally:
        if hasattr(adapter, "close"):
            adapter.close()
    try:
        written = exporter.export(case, info, Path(args.output), args.engine)
    except (DataMissing, NoTextForDialect, Inexpressible) as exc:
        return _usage(f"{args.case_id}: {exc}")
    for name, what in written.items():
        print(f"{Path(args.output) / name}: {what}")
    return 0


def expectations_command(args) -> int:
    """An expectations file from a run report: new, or new entries appended to an existing one."""
    run = runs.read(Path(args.from_report))
    if not run.info.get("complete", True):
        return _usage(f"{args.from_report}: the run did not finish ({run.info.get('finished')} of "
                      f"{run.info.get('selected')} cases): an expectations file made from it would miss cases; "
                      "run the corpus to the end first")
    target = Path(args.update) if args.update else None
    try:
        known = expectations.read(target) if target else {}
    except expectations.ExpectationsError as exc:
        return _usage(str(exc))
    text, found = expectations.from_report(run, known)
    if target:
        if text:
            with open(target, "a", encoding="utf-8") as f:
                f.write(f"\n# -- added by rspconf expectations --from-report {args.from_report} "
                        f"({run.info.get('started', '?')}) --\n{text}")
        print(f"{target}: {len(found['added'])} entries added", file=sys.stderr)
    elif args.output:
        Path(args.output).write_text(expectations.header(run) + text, encoding="utf-8")
        print(f"{args.output}: {len(found['added'])} entries", file=sys.stderr)
    else:
        print(expectations.header(run) + text, end="")
    for line in found["stale"]:
        print(f"stale entry (check it, then edit or remove it): {line}", file=sys.stderr)
    return 0


def summary(args) -> int:

    gathered = runs.gather(args.reports)
    if not gathered:
        return _usage(f"no run report in {', '.join(args.reports)}")
    print(summary_mod.render(gathered, args.format, args.show, _width() if args.format == "terminal" else None), end="")
    if args.fail_on == "fail":
        why = summary_mod.failing(gathered)
        for line in why:
            print(f"fail-on fail: {line}", file=sys.stderr)
        return 1 if why else 0
    if args.fail_on == "regression":
        if not args.base:
            return _usage("--fail-on regression needs --base BASE (the report or matrix.json to compare with)")
        if len(args.reports) != 1:
            return _usage("--fail-on regression compares one report (or matrix) with --base; give one")
        d = diff_mod.compare(Path(args.base), Path(args.reports[0]))
        return 1 if diff_mod.regressed(d) else 0
    return 0


def diff(args) -> int:
    d = diff_mod.compare(Path(args.base), Path(args.head))
    if d["engines_differ"] and args.fail_on_regression and not args.across_engines:
        one, other = d["engines_differ"]
        return _usage(f"--fail-on-regression: {args.base} is a run of {one}, {args.head} of {other}; a regression is "
                      "a change between two runs of one engine (add --across-engines to compare two engines so)")
    print(diff_mod.render(d, args.format, args.show, _width() if args.format == "terminal" else None), end="")
    return 1 if args.fail_on_regression and diff_mod.regressed(d) else 0


def earl(args) -> int:
    gathered = runs.gather(args.reports)
    if not gathered:
        return _usage(f"no run report in {', '.join(args.reports)}")
    try:
        fmt = earl_mod.write(gathered, Path(args.output))
    except ValueError as exc:
        return _usage(str(exc))
    except OSError as exc:
        return _usage(f"-o {args.output}: cannot write there ({exc.strerror}); give a path in a folder you can write")
    print(f"wrote {args.output} ({fmt}): {sum(len(r.cases) for r in gathered)} assertions for {len(gathered)} run(s)")
    return 0


def matrix_run(args) -> int:
    return matrixrun.run(Path(args.config), Path(args.out), args.date)


def matrix_combine(args) -> int:
    gathered = runs.gather(args.reports)
    chosen, ids, notes = runs.align(gathered, args.align, args.keep_latest, args.allow_incomplete)
    doc = runs.matrix(chosen, ids, notes)
    runs.validate_matrix(doc)
    history = runs.gather(args.history) if args.history else []
    seen = {str(r.path.resolve()) for r in history}
    history += [r for r in chosen if str(r.path.resolve()) not in seen]

    written = site.build(doc, chosen, history, Path(args.output), experiments.read_reports(args.loads))
    for note in notes:
        print(f"note: {note}")
    print(f"wrote {args.output}: matrix of {len(chosen)} runs × {len(ids)} cases, {written['cases']} case pages, "
          f"{written['engines']} engine pages, {written['diffs']} engine diffs; open {Path(args.output) / 'index.html'}")
    return 0


def _usage(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def parser() -> argparse.ArgumentParser:
    """The command line: one subcommand per job, each with its handler as ``func``."""
    top = argparse.ArgumentParser(prog="rspconf", description=__doc__)
    sub = top.add_subparsers(dest="command", required=True)
    corpus_commands(sub)
    engine_commands(sub)
    study_commands(sub)
    results_commands(sub)
    return top


def corpus_commands(sub) -> None:
    """lint, generate."""
    p = sub.add_parser("lint", help="check the corpus (schema, ids, expectations, oracle evaluation)")
    p.add_argument("--cases", default=str(datapaths.PROJECT / "cases"))
    p.add_argument("-k", default=None, help="only cases whose id contains this")
    p.add_argument("-v", "--verbose", action="store_true")
    p.add_argument("--fast", action="store_true", help="the fast pass only: schema, ids, collection, query-syntax "
                   "texts (no stream is read, no oracle runs)")
    p.add_argument("--no-large", action="store_true", help="leave the large-stream cases out of the oracle pass "
                   "(minutes each)")
    p.set_defaults(func=lint)

    p = sub.add_parser("generate", help="write a deterministic generated stream")
    p.add_argument("model", choices=["yabench", "waves"])
    p.add_argument("--stations", "--sensors", type=int, default=10, help="stations (yabench) or sensors (waves)")
    p.add_argument("--interval", default="1s")
    p.add_argument("--duration", default="30s")
    p.add_argument("--seed", type=int, default=1430236906)
    p.add_argument("--format", choices=["nquads", "trig", "yabench"], default="nquads")
    p.add_argument("--output", default="-")
    p.add_argument("--no-first-at-zero", action="store_true",
                   help="do not stamp the very first observation 0 (YABench 1.1 does)")
    p.set_defaults(func=generate)


def engine_commands(sub) -> None:
    """spark run, check-adapter, load, engines."""
    p = sub.add_parser("spark", help="the Spark engine as a plain tool")
    spark_sub = p.add_subparsers(dest="spark_command", required=True)
    p = spark_sub.add_parser("run", help="run a query over a stream file, print reports as JSON Lines")
    p.add_argument("--query", required=True,
                   help="file with the R2R SPARQL query, or a C-SPARQL / RSP-QL query (its window and R2S apply)")
    p.add_argument("--stream", required=True, help="N-Quads, TriG, YABench lines, or a CSRBench directory")
    p.add_argument("--format", choices=["nquads", "trig", "yabench", "csrbench"], default=None)
    p.add_argument("--range", default=None, help="window range (default: the query's)")
    p.add_argument("--slide", default=None, help="window slide (default: the query's)")
    p.add_argument("--r2s", choices=["rstream", "istream", "dstream"], default=None, help="default: the query's, else rstream")
    p.add_argument("--t0", type=int, default=0)
    p.add_argument("--mode", choices=["replay", "streaming"], default="replay")
    p.add_argument("--master", default="local[2]", help="Spark master (default local[2])")
    p.add_argument("--stream-iri", default="http://example.org/stream")
    p.add_argument("--skip-bad-lines", action="store_true",
                   help="leave out stream lines that are not statements (with a warning), instead of stopping")
    p.set_defaults(func=sparkrun.run)

    p = sub.add_parser("check-adapter", help="exercise an adapter on the smoke subset; say what it gets wrong")
    p.add_argument("engine", help="as --engine: a name, path.py:Class, 'cmd:command line' or replay:manifest.yaml")
    p.add_argument("--engine-option", action="append", default=[], help="key=value, as for pytest")
    p.add_argument("--cases", default=str(datapaths.PROJECT / "cases"))
    p.add_argument("--case-timeout", "--timeout", dest="case_timeout", type=float, default=300.0,
                   help="seconds per case, as pytest's --case-timeout (default 300)")
    p.add_argument("--data-root", default=None)
    p.add_argument("--engine-trace", metavar="FILE", help=TRACE_HELP)
    p.set_defaults(func=check_adapter)

    p = sub.add_parser("infer-profile", help="which semantics explain what an engine does: each profile dimension "
                                             "searched over the corpus, with the cases that pin it down")
    p.add_argument("engine", help="as --engine: a name, path.py:Class, 'cmd:command line', 'study:…' or replay:…")
    p.add_argument("--engine-option", action="append", default=[], help="key=value, as for pytest")
    p.add_argument("-k", action="append", default=[],
                   help="only cases whose id contains this (repeatable); default: the corpus without the syntax "
                        "family and the large-stream loads")
    p.add_argument("--cases", default=str(datapaths.PROJECT / "cases"))
    p.add_argument("--case-timeout", type=float, default=300.0, help="seconds per engine run (default 300)")
    p.add_argument("--check-timeout", type=float, default=20.0,
                   help="seconds per judgement under one candidate profile (default 20; past it: not explained)")
    p.add_argument("--write", help="write the inferred profile as YAML (what the engine can declare)")
    p.add_argument("--json", help="write the whole inference as JSON")
    p.add_argument("--data-root", default=None)
    p.set_defaults(func=infer.command)

    p = sub.add_parser("load", help="a live load experiment: feed in wall-clock time, judge per window, measure "
                                    "delay, CPU and memory (docs/load.md)")
    p.add_argument("--engine", required=True, help="an engine with a live mode (reference, testing-late, ...)")
    p.add_argument("--engine-option", action="append", default=[], help="key=value, as for pytest")
    p.add_argument("--experiment", default=str(datapaths.PROJECT / "docs" / "examples" / "load" / "quick.yaml"),
                   help="the experiment config (default: docs/examples/load/quick.yaml)")
    p.add_argument("--repeat", type=int, default=None, help="repetitions per load (overrides the config)")
    p.add_argument("--speed", type=float, default=None, help="application time per wall-clock time (overrides)")
    p.add_argument("--out", default="load-report", help="folder for load.json and the SVG pictures")
    p.add_argument("--engine-trace", metavar="FILE", help=TRACE_HELP)
    p.add_argument("--cases", default=str(datapaths.PROJECT / "cases"))
    p.add_argument("--data-root", default=None)
    p.set_defaults(func=load_command)

    p = sub.add_parser("engines", help="list the engines --engine accepts")
    p.set_defaults(func=engines)

    p = sub.add_parser("capabilities", help="the capability registry: each name, what it means, the cases that "
                                            "need it")
    p.add_argument("--cases", default=str(datapaths.PROJECT / "cases"))
    p.add_argument("--json", action="store_true", help="print the registry with case counts as JSON")
    p.set_defaults(func=capabilities)


def study_commands(sub) -> None:
    """convert, reproduce, sparql-suite: the data and the published results the kit works from."""
    p = sub.add_parser("convert", help="a stream file into an RDF Message Log or the kit's N-Quads form")
    p.add_argument("input", help="N-Quads, TriG, YABench lines, a CSRBench folder, or an RDF Message Log")
    p.add_argument("--format", choices=["nquads", "trig", "yabench", "csrbench", "messages"], default=None,
                   help="the input's format (default: from its name; an RDF Message Log needs --format messages)")
    p.add_argument("--to", choices=list(convert.OUTPUTS), required=True)
    p.add_argument("--time-property", default=None, help="messages in: the IRI whose value times each message")
    p.add_argument("--every", default=None, help="messages in: a fixed interval between messages (e.g. 1s)")
    p.add_argument("--start", type=int, default=0, help="messages in, with --every: the first message's time (ms)")
    p.add_argument("-o", "--output", default="-")
    p.set_defaults(func=convert.main)

    p = sub.add_parser("reproduce", help="reproduce a published result: csrbench-table2")
    p.add_argument("what", choices=["csrbench-table2"])
    p.add_argument("--data-root", default=None, help="the folder holding csrbench/ (default: as for pytest)")
    p.add_argument("--json", action="store_true", help="print the cells as JSON")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("-v", "--verbose", action="store_true", help="a progress line per cell judged, also when not a terminal")
    p.set_defaults(func=reproduce)

    p = sub.add_parser("sparql-suite", help="the W3C SPARQL query-evaluation tests through the oracle's R2R and "
                                            "the Spark engine: PASS / FAIL / UNSUPPORTED / ERROR per folder and in total")
    p.add_argument("--evaluator", action="append", choices=list(sparqlsuite.TARGETS), default=None,
                   help="rdflib, oxigraph or spark (the Spark engine; repeatable; default rdflib and oxigraph)")
    p.add_argument("--folder", action="append", default=None, help="e.g. sparql11/exists (repeatable; default all)")
    p.add_argument("--json", default=None, help="write every test's outcome and the counts here")
    p.add_argument("--data-root", default=None, help="the folder holding w3c-sparql/ (default: as for pytest)")
    p.set_defaults(func=sparqlsuite.main)


def results_commands(sub) -> None:
    """summary, diff, earl, matrix run, matrix combine."""
    p = sub.add_parser("judge", help="a query and stream of your own against an engine, judged by the oracle as a "
                                     "corpus case is (verdict, P/R per window, the reason)")
    p.add_argument("--query", required=True, help="the R2R query, plain SPARQL 1.1 (a file)")
    p.add_argument("--stream", required=True, help="the stream: N-Quads/TriG (each element a named graph with "
                                                  "its time), the CSRBench format, … (a file)")
    p.add_argument("--window", required=True, help="RANGE/SLIDE, e.g. 5s/1s; RANGE alone is tumbling")
    p.add_argument("--r2s", default="rstream", choices=["rstream", "istream", "dstream"])
    p.add_argument("--engine", default="reference", help="as pytest's --engine (default reference)")
    p.add_argument("--engine-option", action="append", default=[], help="key=value, as for pytest")
    p.add_argument("--stream-iri", default="http://example.org/stream")
    p.add_argument("--stream-format", default=None, help="the stream file's format when its name does not say it")
    p.add_argument("--case-timeout", type=float, default=300.0, help="seconds for the engine and the judging")
    p.add_argument("--no-gracious", action="store_true", help="skip gracious-mode window reconstruction")
    p.add_argument("--json", help="write the judged case as JSON (a run report's case entry)")
    p.add_argument("--engine-trace", metavar="FILE", help=TRACE_HELP)
    p.add_argument("--data-root", default=None)
    p.set_defaults(func=judge_command)

    p = sub.add_parser("export", help="one case to take away: the messages as sent, the stream, the expected "
                                      "outputs of every admissible explanation, and how to replay it")
    p.add_argument("case_id", help="a case id, parameters included (e.g. 'csrbench.q1[range=10s,slide=10s]')")
    p.add_argument("-o", "--output", required=True, help="the folder to write")
    p.add_argument("--engine", default="reference", help="the engine it is for: its dialect, syntax and profile "
                                                        "(as --engine; default reference)")
    p.add_argument("--engine-option", action="append", default=[], help="key=value, as for pytest")
    p.add_argument("--cases", default=str(datapaths.PROJECT / "cases"))
    p.add_argument("--data-root", default=None)
    p.set_defaults(func=export_command)

    p = sub.add_parser("expectations", help="an engine's expectations file from a run report: every FAIL, ERROR "
                                            "and TIMEOUT as an entry to edit (docs/adding-an-engine.md)")
    p.add_argument("--from-report", required=True, metavar="REPORT", help="a run report (pytest --report)")
    out = p.add_mutually_exclusive_group()
    out.add_argument("-o", "--output", help="write a new file here (default: print it)")
    out.add_argument("--update", metavar="FILE", help="append the entries FILE lacks to FILE; list its stale "
                                                      "entries (the run gave another verdict) without removing them")
    p.set_defaults(func=expectations_command)

    p = sub.add_parser("summary", help="run reports as a table, worst first (terminal, markdown, json)")
    p.add_argument("reports", nargs="+", help="report files, or folders holding them")
    p.add_argument("--format", choices=["terminal", "markdown", "json"], default="terminal")
    p.add_argument("--show", choices=["all", "failures"], default="all")
    p.add_argument("--fail-on", choices=["fail", "regression"], default=None,
                   help="exit 1 on an unexpected FAIL/ERROR/TIMEOUT or an incomplete run (fail), or on a "
                        "regression against --base (regression)")
    p.add_argument("--base", default=None, help="the report or matrix.json to compare with (--fail-on regression)")
    p.set_defaults(func=summary)

    p = sub.add_parser("diff", help="what changed between two runs (or two matrices): regressions first")
    p.add_argument("base", help="run report or matrix.json")
    p.add_argument("head", help="run report or matrix.json")
    p.add_argument("--format", choices=["terminal", "markdown", "json"], default="terminal")
    p.add_argument("--show", choices=["changes", "all"], default="changes")
    p.add_argument("--fail-on-regression", action="store_true", help="exit 1 when a case regressed")
    p.add_argument("--across-engines", action="store_true",
                   help="with --fail-on-regression: allow BASE and HEAD to be runs of two different engines")
    p.set_defaults(func=diff)

    p = sub.add_parser("earl", help="a W3C EARL implementation report (Turtle or JSON-LD) from run reports")
    p.add_argument("reports", nargs="+", help="report files, or folders holding them")
    p.add_argument("-o", "--output", required=True, help="earl.ttl (Turtle) or earl.jsonld (JSON-LD)")
    p.set_defaults(func=earl)

    p = sub.add_parser("matrix", help="run engines one after another, and combine runs into a static site")
    matrix_sub = p.add_subparsers(dest="matrix_command", required=True)
    p = matrix_sub.add_parser("run", help="run every engine of a config with --report (docs/matrix.md)")
    p.add_argument("config", help="the matrix config (e.g. docs/examples/matrix.yaml)")
    p.add_argument("--out", default="runs", help="history folder; reports go to OUT/<date>/<name>.json")
    p.add_argument("--date", default=None, help="the folder name under OUT (default: today)")
    p.set_defaults(func=matrix_run)
    p = matrix_sub.add_parser("combine", help="combine aligned runs into matrix.json and a static site")
    p.add_argument("reports", nargs="+", help="the runs of this matrix: report files or folders (e.g. runs/2026-11-24)")
    p.add_argument("-o", "--output", required=True, help="the site folder")
    p.add_argument("--align", choices=["exact", "intersect", "union"], default="exact",
                   help="exact (default): same corpus commit and cases; intersect: the shared cases; union: all")
    p.add_argument("--keep-latest", action="store_true", help="two runs of one engine and version: keep the latest")
    p.add_argument("--allow-incomplete", action="store_true", help="show an incomplete run (marked) instead of refusing")
    p.add_argument("--history", nargs="*", default=[], help="stored runs for the trends and diffs (e.g. runs/)")
    p.add_argument("--loads", nargs="*", default=[],
                   help="load reports (rspconf load: load.json, or folders holding them) to show on the case and "
                        "engine pages")
    p.set_defaults(func=matrix_combine)


def capabilities(args) -> int:
    """The registry with, per name, how many cases of the corpus need it (pytest --capability NAME runs them)."""
    try:
        cases = load_corpus(Path(args.cases))
    except CaseFileError as exc:
        return _usage(str(exc))
    rows = [{"name": name, "cases": sum(name in c.capabilities for c in cases), "means": means}
            for name, means in schemas.capabilities().items()]
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    width = max(len(r["name"]) for r in rows)
    for r in rows:
        print(f"{r['name']:<{width}} {r['cases']:>4}  {r['means']}")
    print(f"{len(rows)} capabilities; {len(cases)} cases in {args.cases} (pytest conformance/ --capability NAME "
          "runs the cases that need one)")
    return 0


def main(argv: list[str] | None = None, leave_at_once: bool = False) -> int:
    """The command line; ``leave_at_once`` (the console script) ends the process right after an interrupt's
    message (:func:`_leave`)."""
    args = parser().parse_args(argv)
    signals.sigterm_as_interrupt()
    try:
        return args.func(args)
    except (ReportError, NotAligned, ConfigError, ExperimentError) as exc:
        return _usage(str(exc))
    except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM: the command's own cleanup ran on the way out
        print(f"rspconf {args.command}: {str(exc) or 'interrupted (Ctrl-C)'}; stopped before the end, so "
              "whatever it was writing is incomplete", file=sys.stderr)
        if leave_at_once:
            _leave(130)
        return 130


def _leave(code: int) -> None:
    """Out of the process now, its exit handlers run (engine processes stopped, temporary folders removed) but
    its heap not freed object by object: after a SIGTERM to infer-profile holding 0.8 GB of judged windows,
    that took 5.5 s, while the traceback still held every frame.  Called inside the ``except``, before the
    frames go."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nothing more can reach it
            pass
    atexit._run_exitfuncs()  # noqa: SLF001 - what normal exit runs first; os._exit skips it
    os._exit(code)


def entry() -> None:
    """The ``rspconf`` console script and ``python -m conformance.cli``."""
    raise SystemExit(main(leave_at_once=True))


if __name__ == "__main__":
    entry()
