"""One pytest run's state in one process (:class:`Session`): the engine's adapter, built on first use and
checked (its declared syntax, its capabilities against the registry), its expectations, the corpus and
the results collected; the plugin's hooks (:mod:`conformance.plugin`) read and fill it."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.corpus import datapaths
from conformance.corpus.cases import CaseFileError, load_corpus
from conformance.run import adapters, expectations
from conformance.run.progress import Progress
from oracle.r2r.executors import make


class Session:
    """Per-process state: the adapter (built lazily), its info, the corpus and collected results."""

    def __init__(self, config):
        self.config = config
        self.adapter = None
        self.info = None
        self.options = adapters.parse_options(config.getoption("engine_option"))
        self.results: dict[str, dict] = {}
        self._known: dict | None = None
        self._corpus: list | None = None
        self._progress = None
        self.released = False
        self.selected: int | None = None      # cases the run selected
        self.interrupted: str | None = None   # why it ended early, if it did
        self.experiment = None                # --load: the experiment; its loads' results below
        self.loads: list[dict] = []
        self.warnings: list[str] = []         # said once in the terminal summary

    def executor(self):
        """The oracle's executor (``--oracle-executor``), made once per process so a Spark session is reused."""
        if not hasattr(self, "_executor"):
            self._executor = make(self.config.getoption("oracle_executor"))
        return self._executor

    def progress(self):
        """A progress display for this process's cases (None in an xdist worker: its output goes nowhere)."""
        if hasattr(self.config, "workerinput"):
            return None
        if self._progress is None:
            tw = self.config.get_terminal_writer()
            tty = None
            if tw.hasmarkup:
                try:  # the status line goes to the terminal itself: pytest captures a test's stdout and stderr
                    tty = open("/dev/tty", "w", encoding="utf-8")
                except OSError:
                    tty = None

            def write(text: str) -> None:
                if tty is not None:
                    tty.write(text)
                    tty.flush()
                else:
                    tw.write(text, flush=True)

            self._progress = Progress(write, terminal=tty is not None, verbose=self.config.getoption("verbose") > 0,
                                      width=max(20, tw.fullwidth // 2))
        return self._progress

    def release(self) -> None:
        """Close the adapter but keep its info (what an xdist controller needs for the report)."""
        if self.adapter is not None and hasattr(self.adapter, "close"):
            self.adapter.close()
        self.adapter = None
        self.released = True

    def corpus(self) -> list:
        """The cases, read once per process; a broken case file is a usage error naming file and line."""
        if self._corpus is None:
            try:
                self._corpus = load_corpus(corpus_root(self.config))
            except CaseFileError as exc:
                raise pytest.UsageError(f"invalid case file: {exc}") from None
        return self._corpus

    def known(self) -> dict:
        """The engine's expectations file, read once per process."""
        if self._known is None:
            _, info = self.engine()
            try:
                self._known = expectations.read(info.expectations)
            except expectations.ExpectationsError as exc:
                raise pytest.UsageError(str(exc)) from None
        return self._known

    def engine(self):
        if self.adapter is None and self.released:
            return None, self.info
        if self.adapter is None:
            try:
                self.adapter = adapters.build(self.config.getoption("--engine"), self.options,
                                             start_timeout=self.config.getoption("case_timeout"),
                                             trace=self.config.getoption("engine_trace", None))
                self.info = adapters.declared_info(self.adapter, self.config.getoption("--engine"))
            except adapters.EngineUnavailable as exc:
                raise pytest.UsageError(str(exc)) from None
            except Exception as exc:  # noqa: BLE001 - an engine that cannot start is a usage problem
                tail = getattr(exc, "stderr_tail", "")
                raise pytest.UsageError(f"--engine {self.config.getoption('--engine')}: cannot start it: {exc}"
                                        + (f"\n--- engine stderr (tail) ---\n{tail}" if tail else "")) from None
        return self.adapter, self.info


def corpus_root(config) -> Path:
    given = config.getoption("--cases")
    return Path(given) if given else datapaths.PROJECT / "cases"
