"""The corpus: YAML case families, validated against ``schema/case.schema.json``, expanded into cases.

Usable without pytest: ``load_corpus(Path("cases"))`` gives every :class:`Case` with its stable id.
A case family that breaks the schema raises :class:`CaseFileError` naming the file, the line, the YAML
path of the bad field and what was expected.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from rdflib.plugins.sparql import prepareQuery

from conformance.corpus import datapaths
from conformance.corpus.family import CaseFileError, field_line, read_family, schema  # noqa: F401 - the corpus API
from conformance.streams import annotated, messages
from conformance.streams import readers as streams
from conformance.streams.generate import stream as generate_stream
from engines.paths import OutsidePath, confine
from oracle.durations import parse_duration
from oracle.model import CountWindowSpec, MultiWindowSpec, NamedWindow, Stream, ValiditySpec, WindowSpec
from oracle.r2r.algebra import nodes

TEMPLATE = re.compile(r"\{\{([a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)?)\}\}")


class DataMissing(LookupError):
    """Third-party data a case needs is not under the data root; the message says how to get it."""


@dataclass(frozen=True)
class Case:
    """One concrete case (one combination of the family's parameter grid)."""

    id: str
    base_id: str
    family: str
    title: str
    spec: tuple[str, ...]
    level: str
    capabilities: tuple[str, ...]
    smoke: bool
    params: tuple[tuple[str, Any], ...]
    stream_spec: dict
    query: dict  # {"r2r": str (params substituted), "stream_iri": str, "prefixes": {...}}
    window: WindowSpec | CountWindowSpec | ValiditySpec
    r2s: str
    fixed: dict
    vary: dict
    expected: tuple[dict, ...]
    source: str
    prefixes: dict = field(default_factory=dict)
    #: (family data, index of the case in it): what a variant of the case is expanded from
    origin: tuple = field(default=(), compare=False, repr=False)
    variant_of: str | None = None  # the corpus case a recording's variant derives from

    @property
    def r2r(self) -> str:
        return self.query["r2r"]

    def load_stream(self, data_root: Path | None = None) -> Stream:
        root = data_root or datapaths.data_root()
        key = json.dumps(self.stream_spec, sort_keys=True)
        cache_key = (key, str(Path(self.source).parent), str(root) if root else None)
        if cache_key not in _STREAMS:
            if len(_STREAMS) >= 16:
                _STREAMS.pop(next(iter(_STREAMS)))
            _STREAMS[cache_key] = load_stream(self.stream_spec, Path(self.source).parent, root, self.id)
        return _STREAMS[cache_key]


def _lookup(params: dict[str, Any], dotted: str, where: str) -> Any:
    name, _, field = dotted.partition(".")
    if name not in params or (field and not (isinstance(params[name], dict) and field in params[name])):
        raise CaseFileError(f"{where}: template {{{{{dotted}}}}} names no parameter of the case")
    return params[name][field] if field else params[name]


def _show(value: Any) -> str:
    return "/".join(str(v) for v in value.values()) if isinstance(value, dict) else str(value)


def _substitute(value: Any, params: dict[str, Any], where: str) -> Any:
    if isinstance(value, str):
        whole = TEMPLATE.fullmatch(value)
        if whole:
            return _lookup(params, whole.group(1), where)
        return TEMPLATE.sub(lambda m: str(_lookup(params, m.group(1), where)), value)
    if isinstance(value, dict):
        return {k: _substitute(v, params, where) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute(v, params, where) for v in value]
    return value


def _prefix_block(prefixes: dict[str, str]) -> str:
    return "".join(f"PREFIX {p}: <{iri}>\n" for p, iri in sorted(prefixes.items()))


#: the most cases one params grid may make (a grid of a million would eat gigabytes before any output)
MAX_GRID = 1000


def expand(data: dict, path: Path) -> list[Case]:
    """All concrete cases of a validated family, in file order then grid order."""
    out = []
    for index, raw in enumerate(data["cases"]):
        grid = raw.get("params", {})
        names = list(grid)
        size = math.prod(len(grid[n]) for n in names) if names else 1
        if size > MAX_GRID:
            raise CaseFileError(f"{path}: case {raw.get('id')!r}: its params grid makes {size:,} cases; the kit "
                                f"expands at most {MAX_GRID:,} per case: split it, or give fewer values")
        for combo in itertools.product(*(grid[n] for n in names)) if names else [()]:
            out.append(_one(data, index, dict(zip(names, combo)), path))
    return out


def own_capabilities(raw: dict, params: dict) -> tuple[str, ...]:
    """A grid case's capabilities follow its parameter values: a capability that is one of a parameter's
    values (``r2s: [istream, dstream]`` with capabilities ``[istream, dstream]``) is demanded only by the
    combination that takes that value, so an Istream-only engine runs the ``[r2s=istream]`` cases."""
    grid = raw.get("params", {})
    others = {str(v) for name, values in grid.items() for v in values if str(v) != str(params.get(name))}
    chosen = {str(v) for v in params.values()}
    return tuple(c for c in raw["capabilities"] if c not in others or c in chosen)


def _one(data: dict, index: int, params: dict, path: Path) -> Case:
    """The case ``index`` of a family for one combination of its parameters."""
    family = data["family"]
    prefixes = data.get("prefixes", {})
    raw = data["cases"][index]
    base_id = f"{family}.{raw['id']}"
    where = f"{path}: cases[{index}] ({base_id})"
    query = _substitute(raw["query"], params, where)
    try:
        if "windows" in query:
            window = MultiWindowSpec.from_instants(
                tuple(named_window(name, w["stream"], w) for name, w in query["windows"].items()),
                query.get("instants"), bool(query.get("merge_windows", False)))
        else:
            window = one_window(query["window"])
    except ValueError as exc:
        raise CaseFileError(f"{where}: query.{'windows' if 'windows' in query else 'window'}: {exc}") from exc
    suffix = "[" + ",".join(f"{n}={_show(params[n])}" for n in params) + "]" if params else ""
    r2r = _prefix_block(prefixes) + query["r2r"]
    problem = query_problem(r2r)
    if problem:
        text_line, col, message = problem
        within = text_line - len(prefixes)  # the family's PREFIX lines come first
        line, block = field_line(path, ["cases", index, "query", "r2r"])
        # a block scalar (r2r: |) starts on the line after its indicator; a quoted one on the same line
        at = f"{path}:{line + within - (0 if block else 1) if line and within > 0 else line or '?'}"
        raise CaseFileError(f"{at}: field cases[{index}].query.r2r ({base_id}{suffix}): not SPARQL 1.1: {message} "
                            f"(line {max(within, 1)}, column {col} of the query); fix the query — the corpus, not "
                            "an engine, is wrong here")
    merged = isinstance(window, MultiWindowSpec) and window.merged
    if (merged or not isinstance(window, MultiWindowSpec)) and reads_named_graph(r2r):
        line, _ = field_line(path, ["cases", index, "query", "r2r"])
        where_read = ("merged windows have none (query.merge_windows: they are the default graph, with the static "
                      "data)" if merged else "a query over one window has none (the window is its default graph, "
                      "with the static data)")
        raise CaseFileError(f"{path}:{line or '?'}: field cases[{index}].query.r2r ({base_id}{suffix}): GRAPH reads a "
                            f"named graph, and {where_read}, so the pattern could match nothing; read the windows "
                            "without GRAPH, or give named windows (query.windows without merge_windows), each read "
                            "as GRAPH <name>")
    fixed = _substitute(raw.get("semantics", {}).get("fixed", {}), params, where)
    capabilities = own_capabilities(raw, params)
    if fixed.get("boundary", "[o,c)") != "[o,c)" and "closed-windows" not in capabilities:
        raise CaseFileError(f"{where}: field semantics.fixed.boundary: the case fixes {fixed['boundary']} windows, "
                            "which only an engine declaring closed-windows is asked to run; add closed-windows to "
                            "its capabilities")
    return Case(
        id=base_id + suffix, base_id=base_id, family=family, title=raw["title"],
        spec=tuple(raw["spec"]), level=raw["level"], capabilities=capabilities,
        smoke=bool(raw.get("smoke", False)), params=tuple(params.items()),
        stream_spec=_with_prefixes(_substitute(raw["stream"], params, where), prefixes),
        query={"r2r": r2r, "stream_iri": query.get("stream_iri", "http://example.org/stream"),
               "prefixes": prefixes, "text": dict(query.get("text", {}))},
        window=window, r2s=query.get("r2s", "rstream"),
        fixed=fixed,
        vary=_substitute(raw.get("semantics", {}).get("vary", {}), params, where),
        expected=tuple(e for e in raw.get("expected", []) if _params_match(e, params)),
        source=str(path), prefixes=prefixes, origin=(data, index))


def variant(case: Case, params: dict | None = None, window: dict | None = None, r2s: str | None = None) -> Case:
    """The case as a recording was made: other template parameters, another window or R2S operator.

    Parameters the case has are substituted (``{range: 1s, slide: 1s}`` of CSRBench Q1 gives
    ``csrbench.q1[range=1s,slide=1s]``, the id a corpus case with those values would have); a window or
    R2S the case has no parameter for is set directly and named in the id (``[window=5ms/5ms]``)."""
    data, index = case.origin
    known = dict(case.params)
    params = dict(params or {})
    # a window or R2S the case takes as template parameters is stated through them
    timed = bool(window) and "range" in window
    if timed and {"range", "slide"} <= set(known):
        params.update(range=window["range"], slide=window["slide"])
        window = None
    elif timed and isinstance(known.get("window"), dict):
        params["window"] = {"range": window["range"], "slide": window["slide"]}
        window = None
    if r2s and "r2s" in known:
        params["r2s"], r2s = r2s, None
    unknown = sorted(set(params) - set(known))
    if unknown:
        raise CaseFileError(f"{case.id} has no template parameter {', '.join(unknown)}; it has "
                            f"{', '.join(known) or 'none'} (state a window or r2s instead)")
    out = _one(data, index, {**known, **params}, Path(case.source))
    extra = []
    if window:
        spec = recorded_window(out, window)
        if spec != out.window:
            out = replace(out, window=spec)
            extra.append(window_label(window))
    if r2s and r2s != out.r2s:
        out = replace(out, r2s=r2s)
        extra.append(f"r2s={r2s}")
    if extra:
        inner = [out.id[len(out.base_id) + 1:-1]] if out.id != out.base_id else []
        out = replace(out, id=f"{out.base_id}[{','.join(inner + extra)}]")
    return case if out.id == case.id else replace(out, variant_of=case.id)


def one_window(spec: dict):
    """The one window as a case or a manifest writes it: a time window ``{range, slide}``, a count window
    ``{count, slide}``, or the instants of time-annotated data ``{validity, every}``."""
    if "count" in spec:
        return CountWindowSpec(int(spec["count"]), int(spec["slide"]))
    if "validity" in spec:
        return ValiditySpec(parse_duration(spec["every"]) if spec["validity"] == "periodic" else None)
    return WindowSpec(parse_duration(spec["range"]), parse_duration(spec["slide"]))


def named_window(name: str, stream: str, w: dict) -> NamedWindow:
    """One named window as a case or a manifest writes it: ``{range, slide}`` (durations) or ``{count,
    slide}`` (units of its stream)."""
    if "count" in w:
        return NamedWindow(name, stream, None, int(w["slide"]), int(w["count"]))
    return NamedWindow(name, stream, parse_duration(w["range"]), parse_duration(w["slide"]))


def window_label(window: dict) -> str:
    """A recorded window in a variant's id: ``window=5ms/5ms``, ``count=2/2`` or, per named window (by
    the last segment of its IRI), ``wt=20ms/10ms``."""
    if "count" in window:
        return f"count={window['count']}/{window['slide']}"
    if "windows" in window:
        named = [f"{re.split(r'[/#]', name)[-1]}=" + (f"count{w['count']}/{w['slide']}" if "count" in w else _show(w))
                 for name, w in window["windows"].items()]
        instants = window.get("instants")
        if isinstance(instants, dict):
            instants = "closes-of-" + re.split(r"[/#]", instants["closes-of"])[-1]
        return ",".join(named + ([f"instants={instants}"] if instants else []))
    return f"window={_show(window)}"


def recorded_window(case: Case, window: dict):
    """The window a recording states it was made with (a replay manifest's ``window``): a time window
    ``{range, slide}``, a count window ``{count, slide}``, or the case's named windows with other widths
    ``{windows: {name: {range, slide}}, instants}`` (each over the stream the case gives it)."""
    if "windows" in window:
        own = {w.name: w for w in case.window.windows} if isinstance(case.window, MultiWindowSpec) else {}
        stranger = sorted(set(window["windows"]) - set(own))
        if stranger:
            raise CaseFileError(f"{case.id} has no window named {', '.join(stranger)}; its windows are "
                                f"{', '.join(sorted(own)) or 'none (it has one unnamed window)'}")
        given = {name: named_window(name, own[name].stream, w) for name, w in window["windows"].items()}
        return MultiWindowSpec.from_instants(tuple(given.get(name, w) for name, w in own.items()),
                                             window.get("instants", case.window.instants_message()),
                                             case.window.merged)
    return one_window(window)


@functools.lru_cache(maxsize=1024)
def query_problem(r2r: str) -> tuple[int, int, str] | None:
    """(line, column, message) if rdflib cannot parse the R2R query, else None (cached per text)."""
    try:
        prepareQuery(r2r)
    except Exception as exc:  # pyparsing's ParseException and friends
        message = str(getattr(exc, "msg", None) or exc).split("  (at char")[0]
        return getattr(exc, "lineno", 1) or 1, getattr(exc, "col", 1) or 1, message
    return None


_GRAPH_WORD = re.compile(r"\bGRAPH\b", re.IGNORECASE)


@functools.lru_cache(maxsize=1024)
def reads_named_graph(r2r: str) -> bool:
    """Whether a (parsable) R2R query has a GRAPH pattern; a word search first, as a parse costs 6-7 ms."""
    return bool(_GRAPH_WORD.search(r2r)) and any(n.name == "Graph" for n in nodes(prepareQuery(r2r).algebra))


def _with_prefixes(stream: dict, prefixes: dict) -> dict:
    if "elements" in stream or "static" in stream or "annotated" in stream:
        return dict(stream, prefixes={**prefixes, **stream.get("prefixes", {})})
    return stream


def _params_match(expectation: dict, params: dict) -> bool:
    return all(str(params.get(k)) == str(v) for k, v in expectation.get("params", {}).items())


def load_corpus(root: Path) -> list[Case]:
    """Every case under ``root`` (``*.yaml``, sorted by path); ids must be unique."""
    cases: list[Case] = []
    seen: dict[str, str] = {}
    for path in sorted(Path(root).rglob("*.yaml")):
        for case in expand(read_family(path), path):
            if case.id in seen:
                raise CaseFileError(f"{path}: case id {case.id!r} is already used in {seen[case.id]}; ids are unique "
                                    "and never reused")
            seen[case.id] = str(path)
            cases.append(case)
    return cases


#: Streams are immutable: cases sharing a stream spec (all CSRBench queries) read it once per process.
_STREAMS: dict[tuple, Stream] = {}


@functools.lru_cache(maxsize=32)
def _generated(model: str, items: tuple) -> Stream:
    return generate_stream(model, **dict(items))


def _readable(path: Path, base: Path | None, root: Path | None, what: str) -> Path:
    """A file a case names, if it lies in the case's folder or under the data root (else CaseFileError)."""
    try:
        return confine(path, {"the case's folder": base, "the data root": root}, what)
    except OutsidePath as exc:
        raise CaseFileError(str(exc)) from None


def load_stream(spec: dict, base: Path, data_root: Path | None, case_id: str = "") -> Stream:
    """Resolve a case's stream spec to a Stream (generated streams are cached by their parameters)."""
    if "elements" in spec:
        return streams.inline(spec, f"{case_id} (inline stream)")
    if "annotated" in spec:
        if "file" in spec["annotated"]:
            _readable(base / spec["annotated"]["file"], base, data_root or datapaths.data_root(),
                      f"{case_id}: stream.annotated.file")
        return annotated.from_case(spec, base, case_id)
    static = None
    if spec.get("static_file"):
        static = _readable(base / spec["static_file"], base, data_root, f"{case_id}: stream.static_file")
    if "generator" in spec:
        g = dict(spec["generator"])
        model = g.pop("model")
        params = {k: (parse_duration(v) if k in ("interval", "duration") else int(v)) for k, v in g.items()}
        stream = _generated(model, tuple(sorted(params.items())))
        if spec.get("static"):
            extra = streams.inline({"static": spec["static"], "prefixes": spec.get("prefixes", {})}, case_id).static
            stream = Stream(stream.elements, extra)
        return stream
    if "data" in spec:
        root = data_root or datapaths.data_root()
        if root is None:
            raise DataMissing(f"{case_id}: needs third-party data '{spec['data']}' but no data root is set; "
                              f"set {datapaths.ENV} or --data-root to the folder holding it (see README, 'Data')")
        path = _readable(root / spec["data"], None, root, f"{case_id}: stream.data")
        if not path.exists():
            raise DataMissing(f"{case_id}: needs '{spec['data']}' under the data root {root}, which does not have it; "
                              f"point {datapaths.ENV} or --data-root at a copy of that data (see README, 'Data')")
    elif "file" in spec:
        path = _readable(base / spec["file"], base, data_root or datapaths.data_root(), f"{case_id}: stream.file")
        if not path.exists():
            raise CaseFileError(f"{case_id}: stream file {path} does not exist")
    else:
        raise CaseFileError(f"{case_id}: the stream names no source (elements, file, data or generator)")
    fmt = spec.get("format") or streams.guess_format(path)
    if fmt == "messages":  # an RDF Message Log: one message, one element; the case says how messages are timed
        if "time" not in spec:
            raise CaseFileError(f"{case_id}: an RDF Message Log gives its messages no time: add stream.time, "
                                "{property: <IRI of the time in each message>} or {every: 1s, start: 0}")
        time = dict(spec["time"])
        if "every" in time:
            time["every"] = parse_duration(time["every"])
        return messages.read(path, time, static)
    if fmt == "csrbench":
        return streams.csrbench(path, parse_duration(spec.get("interval", 1000)), bool(spec.get("event_graphs", False)), static)
    return streams.READERS[fmt](path, static)


