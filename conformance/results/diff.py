"""``rspconf diff BASE HEAD``: what changed between two runs of one engine, or between two matrices.

Per case (per engine and case for matrices): added, removed, unchanged, or changed — and a change is
*improved* or *regressed* when it moves between verdict groups (PASS above UNSUPPORTED/UNJUDGED/SKIPPED above
FAIL/ERROR/TIMEOUT) or, within one verdict, when the mean precision + recall moves.  A change inside
the bad group (FAIL → ERROR) or of the windows matched alone is *changed*: it is shown, not scored.
"""

from __future__ import annotations

import json
from pathlib import Path

from conformance.results import runs as runs_mod
from conformance.results import tables
from oracle.model import Verdict

ORDER = ["regressed", "changed", "improved", "added", "removed", "unchanged"]
EPS = 1e-9


def side(path: Path) -> tuple[str, dict[tuple[str, str], dict]]:
    """A report or a matrix as {(engine, case id): cell}, with a label for it."""
    path = Path(path)
    doc = runs_mod.load_json(path, "a run report or a matrix.json")
    if isinstance(doc, dict) and doc.get("kind") == "matrix":
        runs_mod.validate_matrix(doc, str(path))
        names = [r["engine"] for r in doc["runs"]]
        column = {r["key"]: (r["engine"] if names.count(r["engine"]) == 1 else r["key"]) for r in doc["runs"]}
        cells = {(column[key], case_id): c for key, row in doc["cells"].items() for case_id, c in row.items() if c}
        return f"matrix of {len(doc['runs'])} runs ({doc['as_of']})", cells
    return run_side(runs_mod.from_doc(path, doc))


def run_side(run: runs_mod.Run) -> tuple[str, dict[tuple[str, str], dict]]:
    """A run already read, as :func:`side` gives it."""
    return f"{run.key} ({run.started})", {(run.engine, i): runs_mod.cell(c) for i, c in run.cases.items()}


def _score(cell: dict) -> float | None:
    p, r = cell.get("mean_precision"), cell.get("mean_recall")
    return None if p is None or r is None else p + r


def classify(base: dict | None, head: dict | None) -> str:
    if base is None:
        return "added"
    if head is None:
        return "removed"
    gb, gh = Verdict(base["verdict"]).standing, Verdict(head["verdict"]).standing
    if gh != gb:
        return "improved" if gh > gb else "regressed"
    if base["verdict"] != head["verdict"]:
        return "changed"
    sb, sh = _score(base), _score(head)
    if sb is not None and sh is not None and abs(sh - sb) > EPS:
        return "improved" if sh > sb else "regressed"
    if base.get("matched") != head.get("matched") or base.get("windows") != head.get("windows"):
        return "changed"
    return "unchanged"


def _delta(base, head, field):
    if not base or not head or base.get(field) is None or head.get(field) is None:
        return None
    return head[field] - base[field]


def compare(base_path: Path, head_path: Path) -> dict:
    """The diff document (the JSON output) of two report or matrix files."""
    return compare_sides(side(base_path), side(head_path))


def compare_sides(base_side, head_side) -> dict:
    """The diff document: labels, counts per class, and one entry per changed key."""
    (base_label, base), (head_label, head) = base_side, head_side
    base_engines = {e for e, _ in base}
    head_engines = {e for e, _ in head}
    across = None
    if base_engines.isdisjoint(head_engines) and len(base_engines) == len(head_engines) == 1:
        # two runs of differently named engines: compare them case by case (an adapter renamed, say), and say so
        across = [next(iter(base_engines)), next(iter(head_engines))]
        base = {("", i): c for (_, i), c in base.items()}
        head = {("", i): c for (_, i), c in head.items()}
    entries = []
    for key in sorted(set(base) | set(head)):
        b, h = base.get(key), head.get(key)
        entries.append({"engine": key[0], "case": key[1], "change": classify(b, h),
                        "base": b and b["verdict"], "head": h and h["verdict"],
                        "base_matched": b and b.get("matched"), "head_matched": h and h.get("matched"),
                        "delta_precision": _delta(b, h, "mean_precision"), "delta_recall": _delta(b, h, "mean_recall"),
                        "reason": (h or b)["reason"]})
    entries.sort(key=lambda e: (ORDER.index(e["change"]), e["engine"], e["case"]))
    counts = {k: sum(1 for e in entries if e["change"] == k) for k in ORDER}
    return {"base": base_label, "head": head_label, "counts": counts, "entries": entries, "engines_differ": across}


def _signed(x) -> str:
    return "" if x is None or abs(x) < EPS else f"{x:+.2f}"


def render(diff: dict, fmt: str = "terminal", show: str = "changes", width: int | None = None) -> str:
    if fmt == "json":
        return json.dumps(diff, indent=2, sort_keys=True) + "\n"
    counts = ", ".join(f"{n} {k}" for k, n in diff["counts"].items() if n)
    head = f"diff {diff['base']} → {diff['head']}: {counts or 'nothing to compare'}"
    shown = [e for e in diff["entries"] if show == "all" or e["change"] != "unchanged"]
    lines = [f"### {head}" if fmt == "markdown" else head]
    if diff.get("engines_differ"):
        one, other = diff["engines_differ"]
        lines.append(f"note: these are runs of two different engines ({one} and {other}): a change here compares "
                     "one engine with another, not two versions of one")
    if shown:
        multi = len({e["engine"] for e in diff["entries"]}) > 1  # a matrix diff: say which engine
        headers = (["engine"] if multi else []) + ["case", "change", "base", "head", "ΔP", "ΔR", "reason (head)"]
        rows = [([e["engine"]] if multi else []) + [e["case"], e["change"], e["base"] or "-", e["head"] or "-",
                _signed(e["delta_precision"]), _signed(e["delta_recall"]), e["reason"]] for e in shown]
        lines.append(tables.render(headers, rows, fmt, width))
    return "\n".join(lines) + "\n"


def regressed(diff: dict) -> bool:
    return diff["counts"]["regressed"] > 0
