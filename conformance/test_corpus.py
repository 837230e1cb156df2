"""The conformance run: one test per case of the corpus (see conformance/plugin.py)."""

from conformance.plugin import VerdictFailed
from conformance.results.tables import printable
from conformance.run.harness import failure_text


def test_case(rspconf_case, rspconf_outcome):
    """PASS iff some admissible explanation (t0 × profile variant) reproduces every report exactly."""
    if rspconf_outcome.verdict == "FAIL":
        raise VerdictFailed["FAIL"](printable(failure_text(rspconf_outcome), keep_lines=True), pytrace=False)
    assert rspconf_outcome.verdict == "PASS"
