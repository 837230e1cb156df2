"""Per-engine expectations (web-platform-tests style): known deviations live beside the adapter.

An expectations file maps case ids to the verdict the engine is known to get, with a reason and a
link to the evidence::

    csrbench.q4:
      verdict: FAIL
      reason: reports "null" averages for windows with no match
      link: docs/csrbench-table2.md#q4

An entry names a case by its full id, by its id without the parameter list (then it holds for every
parameter combination), or by a glob pattern (``"*"``, ``"edges.*"``) for a deviation that touches many
cases at once, e.g. a parser that reads none of the corpus's queries; the most specific entry wins (full
id, then base id, then the first matching pattern in file order).  The runner applies each as a strict
xfail: a fixed engine shows up as an unexpected pass.
"""

from __future__ import annotations

import json
import textwrap
from fnmatch import fnmatchcase
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlsplit

import yaml

ALLOWED = {"FAIL", "ERROR", "TIMEOUT"}


class ExpectationsError(ValueError):
    pass


def read(path: Path | None) -> dict[str, dict]:
    """The entries of the file an engine declares (None: it declares none).  A declared file that is not
    there is an error: a typo in its path must not switch every expectation off."""
    if path is None:
        return {}
    if not Path(path).is_file():
        raise ExpectationsError(f"{path}: the engine's expectations file is not there; give the right path "
                                "(--engine-option expectations=PATH for a cmd: engine) or declare none")
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict):
        raise ExpectationsError(f"{path}: expected a mapping of case id → {{verdict, reason, link}}")
    for case_id, entry in data.items():
        if not isinstance(entry, dict) or entry.get("verdict") not in ALLOWED or not entry.get("reason"):
            raise ExpectationsError(f"{path}: entry {case_id!r} needs 'verdict' (one of {sorted(ALLOWED)}) "
                                    "and a 'reason'")
        if entry.get("link") is not None and safe_link(entry["link"]) is None:
            raise ExpectationsError(f"{path}: entry {case_id!r} has link {str(entry['link'])[:80]!r}: give an "
                                    "http(s) address or a relative path (the link is published on the site)")
    return data


def safe_link(link) -> str | None:
    """``link`` if it may be published as an ``href``: an http(s) address or a relative path; else None
    (``javascript:``, ``data:`` and any other scheme, a protocol-relative ``//host``, control characters)."""
    if not isinstance(link, str) or not link or any(ord(ch) < 32 or ord(ch) == 127 for ch in link):
        return None
    scheme = urlsplit(link.strip()).scheme.lower()
    if scheme in ("http", "https") or (not scheme and not link.strip().startswith("//")):
        return link
    return None


def unmatched(known: dict[str, dict], cases) -> list[str]:
    """The entries that name no case (by full id, base id or pattern): a typo, or a case since removed."""
    ids = {c.id for c in cases} | {c.base_id for c in cases}
    return [key for key in known
            if key not in ids and not ("*" in key and any(fnmatchcase(c.id, key) for c in cases))]


def lookup(known: dict[str, dict], case) -> dict | None:
    """The entry for a case: by its full id, else by its id without the parameter list, else by the first
    glob pattern that matches its full id."""
    hit = known.get(case.id) or known.get(case.base_id)
    if hit:
        return hit
    return next((entry for key, entry in known.items() if "*" in key and fnmatchcase(case.id, key)), None)


# -- made from a run report (`rspconf expectations --from-report`) ----------------------------------------------

def _entry_text(case: dict) -> str:
    """One entry as YAML text: the verdict the run gave, and the kit's reason as the evidence to start from (a
    folded block, so the text needs no escaping; the id quoted, since ids hold brackets and commas)."""
    reason = " ".join(str(case.get("reason") or case.get("error") or "").split())
    if len(reason) > 400:
        reason = reason[:399] + "…"
    lines = textwrap.wrap(f"as the kit saw it: {reason or '(no reason given)'}", 100, break_on_hyphens=False)
    return (f"{json.dumps(case['id'], ensure_ascii=False)}:\n  verdict: {case['verdict']}\n  reason: >-\n"
            + "".join(f"    {line}\n" for line in lines))


def from_report(run, known: dict[str, dict] | None = None) -> tuple[str, dict[str, list[str]]]:
    """Entries for the run's FAIL, ERROR and TIMEOUT cases that ``known`` (an existing file's entries) does not
    already expect with that verdict, as YAML text; and what the run says of ``known``: ``stale`` entries
    (by full or base id) whose case now passes or gets another verdict — listed, never deleted, since an entry's
    reason is someone's evidence."""
    known = known or {}
    texts, found = [], {"added": [], "stale": []}
    for case in run.doc["cases"]:
        named = SimpleNamespace(id=case["id"], base_id=case["id"].split("[", 1)[0])  # what lookup() reads
        entry = lookup(known, named)
        if case["verdict"] in ALLOWED:
            if entry is not None and entry["verdict"] == case["verdict"]:
                continue
            if entry is not None:
                found["stale"].append(f"{case['id']}: expected {entry['verdict']}, the run gave {case['verdict']}")
                if named.id in known or named.base_id in known:
                    continue  # its own entry is there: a second one would be a duplicate key
            texts.append(_entry_text(case))
            found["added"].append(case["id"])
        elif entry is not None and case["verdict"] not in ("UNSUPPORTED", "SKIPPED", "UNJUDGED"):
            found["stale"].append(f"{case['id']}: expected {entry['verdict']}, the run gave {case['verdict']}")
    return "".join(texts), found


def header(run) -> str:
    info = run.info
    return (f"# Known deviations of {info['engine']['name']} {info['engine']['version']} (expectations file: "
            "docs/adding-an-engine.md).\n"
            f"# Made by `rspconf expectations --from-report` from the run of {info.get('started', '?')} on corpus "
            f"{str(info.get('corpus_commit') or '?')[:12]}.\n"
            "# Each entry is the verdict that run gave and the kit's reason for it: replace each reason with the\n"
            "# cause once you know it, and add a link to the evidence (an http(s) address or a relative path).\n")
