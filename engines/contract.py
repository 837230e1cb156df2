"""The adapter contract: ``info()`` and ``run(request)``; the harness owns timeouts.

An adapter is any object with

- ``info() -> EngineInfo``: name, version, query dialect, capabilities, the declared profile (the
  semantics it claims, in the YAML/JSON form of ``oracle/profiles.py``), what it can say about
  each report (``alignment``: ``window`` if it declares window borders, ``time`` if its report times
  are application times, ``order`` otherwise) and an optional expectations file;
- ``run(request: RunRequest) -> list[ObservedReport]``: every report it produced, in order;
- optionally ``close()``, and ``cancel()``: called (from another thread) when a run passed its timeout,
  so an in-process engine can stop its work instead of running on in an abandoned thread;
- optionally, for engines whose outputs were made elsewhere (replay): ``variants(case)`` — what the
  outputs for a case were made with, ``[{"params": …, "window": …, "r2s": …}]``; the kit then judges a
  variant of the case with its own id and tells the adapter with ``bind_variant(case_id, variant_id,
  made_with)`` — and ``notes_for(case_id)``, lines shown next to the verdict (a recorder's dropped
  reports; a process engine's stray output before the case, :mod:`engines.command`).  It is asked after
  the run.

- optionally, for load runs (``rspconf load``, :mod:`conformance.load.live`): ``live(request, emit)`` — a
  session with ``push(t, elements)`` (elements due now in wall-clock time; none is a heartbeat: time
  has reached t; must not block), ``end()`` (end of stream: flush, then return) and optionally ``pid``
  and ``cancel()``; the engine calls ``emit(report)`` from any thread as soon as it makes a report.

A raised exception is an ERROR of the harness run, not a FAIL of the engine; a raised
:class:`Unsupported` is UNSUPPORTED.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from oracle.model import ObservedReport, Stream, WindowSpec

DIALECTS = ("sparql", "csparql", "cqels", "rspql")
#: the profile parameters a case may fix that a query cannot express, handed to the engine with the request
WINDOW_SEMANTICS = ("boundary", "close")


class Unsupported(Exception):
    """The engine cannot run this request (a construct, an option); the message names it."""


class LiveUnsupported(Unsupported):
    """The engine has no live mode, or the case is not one a live run can feed (``rspconf load``)."""


@dataclass(frozen=True)
class EngineInfo:
    name: str
    version: str
    dialect: str
    capabilities: frozenset[str]
    profile: dict
    alignment: str = "order"
    expectations: Path | None = None
    extra: dict = field(default_factory=dict)
    #: declared deviations from the dialect's standard syntax (engines/dialects/variants.py): the kit renders
    #: every case this way, judges the standard form in the syntax family, and shows them beside the verdicts
    syntax: tuple[str, ...] = ()
    #: what the engine says of itself, each an http(s) address: ``homepage``, ``source`` (its repository) and
    #: ``issues`` (its tracker); shown on its page and in EARL as DOAP
    about: dict = field(default_factory=dict)


@dataclass(frozen=True)
class RunRequest:
    """One case as an engine sees it: the stream, the query (neutral and rendered), the window, R2S."""

    case_id: str
    stream: Stream
    r2r: str
    query_text: str
    window: WindowSpec
    r2s: str
    stream_iri: str
    #: what the case fixes that no query text can say (WINDOW_SEMANTICS): YABench's closed windows are
    #: {"boundary": "[o,c]", "close": ">"}; empty when the engine's own conventions apply
    semantics: dict = field(default_factory=dict)


class Adapter(Protocol):
    """What every adapter has (the harness calls nothing else without checking for it first)."""

    def info(self) -> EngineInfo: ...

    def run(self, request: RunRequest) -> list[ObservedReport]: ...


class Closable(Protocol):
    """Optional: release the engine (a process, a Spark session) at the end of a run."""

    def close(self) -> None: ...


class Cancellable(Protocol):
    """Optional: stop a run that passed its timeout (called from another thread)."""

    def cancel(self) -> None: ...


class Recorded(Protocol):
    """Optional, for outputs made elsewhere (replay): which variants of a case were recorded, which one
    is judged now, and the notes shown beside its verdict."""

    def variants(self, case) -> list[dict]: ...

    def bind_variant(self, case_id: str, variant_id: str, made_with: dict) -> None: ...

    def notes_for(self, case_id: str) -> list[str]: ...


class LiveSession(Protocol):
    """What :meth:`Live.live` returns: elements pushed as they are due, then the end of the stream."""

    def push(self, t: int, elements: list) -> None: ...

    def end(self) -> None: ...


class Live(Protocol):
    """Optional, for load runs: a live session that calls ``emit(report)`` as soon as it makes a report."""

    def live(self, request: RunRequest, emit) -> LiveSession: ...


#: every method the kit may call on an adapter, by the protocol that names it
METHODS = {"info": Adapter, "run": Adapter, "close": Closable, "cancel": Cancellable, "variants": Recorded,
           "bind_variant": Recorded, "notes_for": Recorded, "live": Live}
