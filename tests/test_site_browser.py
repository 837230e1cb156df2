"""The site as a person sees it: opened in a real headless Chromium (Debian's ``chromium`` package).

Few and fast: the matrix, a case page and the diff page load with no console error; the rows and cells
are there; a filter given in the URL shows only the matching cases; screenshots go to the test's temp
folder.  Without Chromium the tests are skipped with the install command — except under CI, where a
missing browser fails them.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conformance.results import runs
from conformance.run import report
from conformance.site import pages as site
from tests import reportmaker as rm

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
INSTALL = "apt-get update && apt-get install -y chromium"

if CHROMIUM is None:
    if os.environ.get("CI"):
        pytest.fail(f"the browser tests need Debian's chromium: {INSTALL}", pytrace=False)
    pytest.skip(f"Debian's chromium is not installed ({INSTALL})", allow_module_level=True)


def browse(url: str, tmp: Path, screenshot: str | None = None) -> tuple[str, list[str]]:
    """The DOM after the page's scripts ran, and the console messages Chromium logged."""
    args = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0",
            f"--user-data-dir={tmp / 'profile'}", "--window-size=1280,900"]
    dom = subprocess.run(args + ["--dump-dom", url], capture_output=True, text=True, timeout=90)
    console = [line for line in dom.stderr.splitlines() if ":CONSOLE" in line]
    if screenshot:
        subprocess.run(args + [f"--screenshot={tmp / screenshot}", url], capture_output=True, timeout=90)
        assert (tmp / screenshot).stat().st_size > 1000
    return dom.stdout, console


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("site")
    old = rm.write(tmp / "night-before" / "a.json", "alpha", "1.0", [rm.case("fam1.x", "PASS"), rm.case("fam1.y", "PASS"),
                                                       rm.case("fam2.z", "UNSUPPORTED", level="should")],
                   started="2026-11-23T01:00:00+00:00")
    a = rm.write(tmp / "a.json", "alpha", "1.0", [rm.case("fam1.x", "PASS"), rm.case("fam1.y", "FAIL", recall=0.5),
                                                  rm.case("fam2.z", "UNSUPPORTED", level="should")])
    in_variant = dict(rm.case("fam1.x", "PASS"), syntax_variant=["on-stream", "window-ms"])
    b = rm.write(tmp / "b.json", "beta", "2.0", [in_variant, rm.case("fam1.y", "FAIL", expected="FAIL"),
                                                 rm.case("fam2.z", "ERROR", level="should")])
    doc = json.loads(b.read_text())  # beta declares the syntax its parser reads
    doc["run"]["engine"].update(dialect="rspql", syntax=["on-stream", "window-ms"])
    report.write(b, doc)
    chosen, ids, notes = runs.align(runs.gather([a, b]))
    site.build(runs.matrix(chosen, ids, notes), chosen, runs.gather([old, a, b]), tmp / "site")
    return tmp


def visible_rows(dom: str) -> list[str]:
    rows = re.findall(r'<tr ([^>]*data-family[^>]*)>\s*<th scope="row"><a [^>]*>([^<]+)</a>', dom)
    return [case_id for attrs, case_id in rows if "hidden" not in attrs]


def test_console_errors_are_seen(tmp_path):
    """The check below is not vacuous: a page that logs an error shows it."""
    page = tmp_path / "bad.html"
    page.write_text('<html><body><script>console.error("seen-error")</script></body></html>')
    _, console = browse(page.as_uri(), tmp_path)
    assert any("seen-error" in line for line in console)


def test_matrix_page_loads_with_every_row_and_cell(built, tmp_path):
    dom, console = browse((built / "site" / "index.html").as_uri(), tmp_path, "matrix.png")
    assert console == []
    assert visible_rows(dom) == ["fam1.x", "fam1.y", "fam2.z"]
    assert len(re.findall(r'<td class="v-', dom)) == 6  # 3 cases × 2 runs
    assert "3 of 3 cases shown" in dom
    assert 'FAIL*</a>' in dom  # beta's known deviation
    assert 'PASS<span class="variant">~</span></a>' in dom  # beta's verdict in its declared syntax variant
    assert "in the declared syntax variant: on-stream, window-ms" in dom


def test_the_engine_page_lists_the_declared_syntax_variant(built, tmp_path):
    dom, console = browse((built / "site" / "engines" / "beta@2.0.html").as_uri(), tmp_path, "engine.png")
    assert console == [] and "Declared syntax variant" in dom
    assert "<code>on-stream</code>" in dom and "<code>window-ms</code>" in dom and "syntax.rspql-multiline" in dom


def test_a_filter_in_the_url_shows_only_matching_cases(built, tmp_path):
    base = (built / "site" / "index.html").as_uri()
    dom, console = browse(base + "?verdict=FAIL", tmp_path, "filtered.png")
    assert console == [] and visible_rows(dom) == ["fam1.y"] and "1 of 3 cases shown" in dom
    dom, _ = browse(base + "?family=fam1&level=must", tmp_path)
    assert visible_rows(dom) == ["fam1.x", "fam1.y"]
    dom, _ = browse(base + "?verdict=ERROR&level=should", tmp_path)
    assert visible_rows(dom) == ["fam2.z"]


def test_case_and_diff_pages_load(built, tmp_path):
    dom, console = browse((built / "site" / "cases" / "fam1.y.html").as_uri(), tmp_path, "case.png")
    assert console == [] and dom.count('<section class="run"') == 2 and dom.count("<svg") == 4  # 2 plots × 2 runs
    dom, console = browse((built / "site" / "diff.html").as_uri(), tmp_path, "diff.png")
    assert console == [] and '<tr class="c-regressed"><td>fam1.y</td>' in dom


@pytest.mark.long
def test_a_matrix_of_the_real_engines_shows_rsp_js_declared_variant(tmp_path):
    """Issue 32's matrix, small: reference, Spark, rsp-js 1.3.5 and 1.1.2 run for real on the smoke subset by
    `rspconf matrix run`, combined, and opened: rsp-js's verdicts reached in its declared syntax carry the ~
    marker and name the deviations, the standard-form syntax case does not, and the other engines have none."""
    import sys

    if shutil.which("node") is None or not (Path(__file__).parent.parent / "engines/rspjs/node_modules").is_dir():
        pytest.skip("rsp-js is not installed (engines/rspjs/install)")
    pytest.importorskip("pyspark")
    config = tmp_path / "matrix.yaml"
    config.write_text("timeout: 600\npytest_args: ['--smoke', '-k', 'not csrbench']\nengines:\n"
                      "  - {name: reference, engine: reference}\n  - {name: spark, engine: spark}\n"
                      "  - {name: rsp-js, engine: rsp-js}\n  - {name: rsp-js-1.1.2, engine: rsp-js@1.1.2}\n")
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run([sys.executable, "-m", "conformance.cli", "matrix", "run", str(config), "--out",
                           str(tmp_path / "runs")], cwd=root, capture_output=True, text=True, timeout=900, env=env)
    assert done.returncode in (0, 1), done.stdout + done.stderr
    (night,) = [p for p in (tmp_path / "runs").iterdir() if p.is_dir()]
    built = subprocess.run([sys.executable, "-m", "conformance.cli", "matrix", "combine", str(night), "-o",
                            str(tmp_path / "site")], cwd=root, capture_output=True, text=True, timeout=300, env=env)
    assert built.returncode == 0, built.stdout + built.stderr
    dom, console = browse((tmp_path / "site" / "index.html").as_uri(), tmp_path, "real-matrix.png")
    assert console == []
    columns = re.findall(r'<th><a href="engines/[^"]*">([^<]+)</a><br><small>([^<]+)</small></th>', dom)
    assert [name for name, _ in columns] == ["reference", "spark", "rsp-js", "rsp-js"], columns
    assert [version for name, version in columns if name == "rsp-js"] == ["1.3.5", "1.1.2"]
    rows = dict(re.findall(r'<th scope="row"><a [^>]*>([^<]+)</a></th>(.*?)</tr>', dom, re.DOTALL))
    marked = lambda row: len(re.findall(r'<span class="variant">~</span>', row))  # noqa: E731
    assert marked(rows["edges.border"]) == 2  # the two rsp-js releases; reference and Spark read plain SPARQL
    assert marked(rows["syntax.rspql-multiline"]) == 0  # the standard form, judged as it is
    assert "in the declared syntax variant: window-ms, on-stream, window-line" in dom
    page, _ = browse((tmp_path / "site" / "engines" / "rsp-js@1.3.5.html").as_uri(), tmp_path)
    assert "Declared syntax variant" in page and "<code>window-ms</code>" in page
