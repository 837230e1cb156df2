"""``rspconf spark run``: one continuous query on the Spark engine over a stream file, its reports printed
as JSON Lines.  Every mistake in the arguments is one line naming the file or option, said before Spark
starts; a line Spark cannot read is found again with the kit's own reader, which names the line."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from conformance.corpus.cases import query_problem
from conformance.streams import readers as streams
from engines.contract import RunRequest, Unsupported
from engines.dialects.parse import QuerySyntaxError
from engines.dialects.parse import parse as parse_continuous
from engines.jsonl import report_line
from engines.spark import SparkEngine
from engines.spark.session import session
from oracle.durations import parse_duration
from oracle.model import WindowSpec


class Refused(Exception):
    """An argument the run cannot use: the message is the one line to print (exit code 2)."""


def run(args) -> int:
    """The command: check the arguments, run the engine, print each report as a JSON line."""
    try:
        path, fmt, text, query, window, r2s = arguments(args)
        logging.getLogger("SQLQueryContextLogger").setLevel(logging.CRITICAL)  # PySpark logs the JVM's stack
        engine = SparkEngine(mode=args.mode, master=args.master, t0=args.t0)
        session(args.master).sparkContext.setLogLevel("OFF")  # errors are said once, below, with file and line
        if fmt in ("yabench", "nquads") and args.mode == "replay":
            reports = spark_reads(engine, path, fmt, query, window, r2s, args.skip_bad_lines)
        else:
            try:
                stream = streams.csrbench(path) if fmt == "csrbench" else streams.READERS[fmt](path)
            except streams.StreamInputError as exc:
                raise Refused(str(exc)) from None
            reports = engine.run(RunRequest("cli", stream, query, text, window, r2s, args.stream_iri))
        for report in reports:
            print(report_line(report))
    except Refused as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except Unsupported as exc:
        print(f"error: unsupported: {exc}", file=sys.stderr)
        return 2
    return 0


def arguments(args) -> tuple:
    """(stream path, format, query text, its R2R, window, R2S) from the command line, or :class:`Refused`."""
    path = Path(args.stream)
    fmt = args.format or streams.guess_format(path)
    if not Path(args.query).is_file():
        raise Refused(f"--query {args.query}: no such file; give the file holding the query")
    if not path.exists():
        raise Refused(f"--stream {args.stream}: no such file or folder; give an N-Quads, TriG or YABench file, or "
                      "a CSRBench folder")
    text = Path(args.query).read_text(encoding="utf-8")
    try:
        continuous = parse_continuous(text)  # RSP-QL or C-SPARQL text carries its own window and R2S
    except QuerySyntaxError as exc:
        raise Refused(f"{args.query}: {exc}") from None
    problem = query_problem(continuous.r2r)
    if problem:
        line, col, message = problem
        raise Refused(f"{args.query}: not SPARQL 1.1: {message} (line {line}, column {col} of the query)")
    if args.range and args.slide:
        try:
            window = WindowSpec(parse_duration(args.range), parse_duration(args.slide))
        except ValueError as exc:
            raise Refused(f"--range/--slide: {exc}") from None
    elif continuous.window is not None:
        window = continuous.window
    else:
        raise Refused("give --range and --slide, or a C-SPARQL/RSP-QL query with a window")
    return path, fmt, text, continuous.r2r, window, args.r2s or continuous.r2s


def spark_reads(engine: SparkEngine, path: Path, fmt: str, query: str, window, r2s: str, skip_bad: bool):
    """Replay a file Spark parses itself; lines it would drop are refused (or, with ``skip_bad``, left out
    with a warning), and a time stamp it cannot read is named by the kit's reader."""
    bad = engine.rejected_lines(str(path))
    if bad:
        first = first_bad_line(path, fmt)
        lines, are = ("lines", "are") if bad != 1 else ("line", "is")
        if not skip_bad:
            raise Refused(f"{path}: {bad} {lines} {are} not {fmt} statements; first: {first}. Fix them, or pass "
                          "--skip-bad-lines to leave them out")
        print(f"warning: {path}: left out {bad} {lines} that {are} not {fmt} statements; first: {first}",
              file=sys.stderr)
    try:
        return engine.run_file(str(path), fmt, query, window, r2s)  # parsed by Spark
    except Exception as exc:  # Spark names neither the file nor the line it could not read
        if "CAST_INVALID_INPUT" not in str(exc):
            raise
        raise Refused(unreadable_stream(path, fmt, exc)) from None


def first_bad_line(path: Path, fmt: str) -> str:
    """The first line the kit's own reader rejects, as 'file:line: why' (or the file, for a folder)."""
    try:
        streams.READERS[fmt](path)
    except streams.StreamInputError as bad:
        return str(bad)
    except (OSError, ValueError):
        pass
    return str(path)


def unreadable_stream(path: Path, fmt: str, exc: Exception) -> str:
    """Spark failed to read a time stamp in ``path``: the line, found with the kit's own reader (which names
    the file and the line), else Spark's own first line."""
    try:
        streams.READERS[fmt](path)
    except streams.StreamInputError as bad:
        return str(bad)
    except OSError:  # a folder of files, say: Spark reads folders, the kit's readers read one file
        pass
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return f"{path}: Spark could not read a time stamp ({first})"
