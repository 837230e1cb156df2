"""The pytest plugin: ``pytest conformance/ --engine NAME`` runs the corpus against one engine.

Each case is one parametrized test whose id is the case id.  The engine runs in the test's setup (so
an engine crash or hang is reported as an ERROR, never as a failure of its semantics); the oracle's
verdict decides the call phase: PASS passes, FAIL fails with the explanation, UNSUPPORTED and SKIPPED
skip with a message saying so.  Known deviations from the engine's expectations file are strict xfails.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance import adapters, datapaths, expectations, report
from conformance.cases import CaseFileError, load_corpus, variant
from conformance.harness import run_case

KEY = "rspconf"


def pytest_addoption(parser):
    group = parser.getgroup("rspconf", "RDF stream processing conformance")
    group.addoption("--engine", default="reference",
                    help="engine to test: a registered name (see `rspconf engines`) or path/to/file.py:Class")
    group.addoption("--engine-option", action="append", default=[], metavar="KEY=VALUE",
                    help="option passed to the engine adapter (repeatable)")
    group.addoption("--data-root", default=None,
                    help=f"folder holding third-party data (default: ${datapaths.ENV}, else ../shared/data)")
    group.addoption("--cases", default=None, help="corpus folder (default: the kit's cases/)")
    group.addoption("--report", default=None, metavar="PATH", help="write the JSON run report here")
    group.addoption("--case-timeout", type=float, default=300.0, help="seconds per engine call (default 300)")
    group.addoption("--smoke", action="store_true", help="run only the smoke subset")
    group.addoption("--no-gracious", action="store_true", help="skip gracious-mode window reconstruction")


class Session:
    """Per-process state: the adapter (built lazily), its info, the corpus and collected results."""

    def __init__(self, config):
        self.config = config
        self.adapter = None
        self.info = None
        self.options = adapters.parse_options(config.getoption("engine_option"))
        self.results: dict[str, dict] = {}
        self._known: dict | None = None

    def known(self) -> dict:
        """The engine's expectations file, read once per process."""
        if self._known is None:
            _, info = self.engine()
            try:
                self._known = expectations.load(info.expectations)
            except expectations.ExpectationsError as exc:
                raise pytest.UsageError(str(exc)) from None
        return self._known

    def engine(self):
        if self.adapter is None:
            try:
                self.adapter = adapters.load(self.config.getoption("--engine"), self.options)
                self.info = self.adapter.info()
            except adapters.EngineUnavailable as exc:
                raise pytest.UsageError(str(exc)) from None
            except Exception as exc:  # noqa: BLE001 - an engine that cannot start is a usage problem
                tail = getattr(exc, "stderr_tail", "")
                raise pytest.UsageError(f"--engine {self.config.getoption('--engine')}: cannot start it: {exc}"
                                        + (f"\n--- engine stderr (tail) ---\n{tail}" if tail else "")) from None
        return self.adapter, self.info


def pytest_configure(config):
    config.addinivalue_line("markers", "rspconf_case: a conformance case")
    if config.getoption("data_root", None):
        datapaths.set_data_root(config.getoption("data_root"))
    config._rspconf = Session(config)
    _ACTIVE.append(config._rspconf)


def _corpus_root(config) -> Path:
    given = config.getoption("--cases")
    return Path(given) if given else datapaths.PROJECT / "cases"


def pytest_generate_tests(metafunc):
    if "rspconf_case" not in metafunc.fixturenames:
        return
    config = metafunc.config
    session: Session = config._rspconf
    try:
        cases = load_corpus(_corpus_root(config))
    except CaseFileError as exc:
        raise pytest.UsageError(f"invalid case file: {exc}") from None
    if config.getoption("--smoke"):
        cases = [c for c in cases if c.smoke]
    known = session.known()
    cases = with_variants(cases, session.engine()[0])
    params = []
    for case in cases:
        marks = []
        entry = expectations.lookup(known, case)
        if entry:
            marks.append(pytest.mark.xfail(strict=True, reason=f"known {entry['verdict']}: {entry['reason']}"))
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
    result = run_case(rspconf_case, adapter, info, timeout=config.getoption("case_timeout"),
                      gracious=not config.getoption("no_gracious"))
    data = result.to_json()
    known = expectations.lookup(session.known(), rspconf_case)
    data["expected_verdict"] = known["verdict"] if known else None
    data["expectation_reason"] = known["reason"] if known else None
    request.node.user_properties.append((KEY, json.dumps(data)))
    if result.verdict in ("ERROR", "TIMEOUT"):
        pytest.fail(f"{result.verdict}: {result.reason}" + (f"\n{result.error}" if result.error else ""),
                    pytrace=False)
    if result.verdict in ("UNSUPPORTED", "SKIPPED"):
        pytest.skip(f"{result.verdict}: {result.reason}")
    return result


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
    state = getattr(config, "_rspconf", None)
    if state is not None and state.adapter is not None and hasattr(state.adapter, "close"):
        state.adapter.close()  # e.g. stop a subprocess engine
    if _ACTIVE and _ACTIVE[-1] is state:
        _ACTIVE.pop()


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    cases = list(config._rspconf.results.values())
    if not cases or hasattr(config, "workerinput"):
        return
    terminalreporter.section(f"rspconf conformance summary — engine {config.getoption('--engine')}")
    for line in report.summary_lines(cases, terminalreporter._tw.fullwidth):
        terminalreporter.write_line(line)


def pytest_sessionfinish(session, exitstatus):
    config = session.config
    path = config.getoption("--report", None)
    if not path or hasattr(config, "workerinput"):
        return
    state: Session = config._rspconf
    cases = list(state.results.values())
    if not cases:
        return
    _, info = state.engine()
    report.write(Path(path), report.document(report.run_info(info, state.options), cases))
