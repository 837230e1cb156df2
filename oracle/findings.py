"""The failure patterns a diagnosis can name, in words: one place for each finding's text, used by the
diagnosis (:mod:`oracle.judge.explain`) and the whole-output faults of each window kind."""

# Failure patterns, in words; diagnose() counts the windows that show each (a window counts once per pattern).
FINDINGS = {
    "stale": "uses elements after they left the window",
    "ahead": "uses elements before they entered the window",
    "absent-value": "gives no value where the absence of matches does (an empty aggregate is 0, ASK false)",
    "bad-literal": "reports literals that are no value (\"null\", ill-typed)",
    "underived": "reports solutions that no stream element derives",
    "empty": "reports no solutions where the oracle has some",
    "borders": "has window borders unlike the explained ones (gracious mode)",
    "missing-report": "has no report where the oracle has one",
    "extra-report": "reports where the oracle has no report",
    "out-of-order": "reports out of order (the output stream is ordered by report time)",
    "early": "reports a window before it could report (before its close or its content)",
    "multiplicity": "reports the right solutions with other multiplicities (its relations look duplicate-free, or repeat solutions)",
    "distinct": "does not apply DISTINCT (repeats solutions)",
    "filter": "does not apply a FILTER",
    "r2s-rstream": "streams the whole relation (Rstream) where the query asks another R2S operator",
    "r2s-set": "computes Istream/Dstream by set difference (one earlier copy cancels every later one)",
    "shifted": "reports the relation of a neighbouring window (one window late or early)",
    "drift": "has window starts that drift (borders move by a growing amount)",
    "width": "has windows of another width or slide than the case's",
    "clock-drift": "stamps elements by a clock that drifts from the data's (by arrival, not by their time)",
    "count": "has count windows of another size or slide, or counting other units, than the case's",
    "closed-end": "treats facts as valid at their final or expiration time",
    "keeps-old-versions": "keeps old versions of facts that a newer version replaced",
    "one-window": "gives every window the content of the first one (several windows read as one)",
    "every-close": "evaluates whenever a window closes, also where no window's content changed",
    "unmerged": "reads each window as a named graph, not merged into the default graph (C-SPARQL's dataset)",
    "any-close": "evaluates whenever any window closes, not only when the designated window does",
    "shared-count": "counts the elements of every stream in one sequence, not each count window's own stream's",
}
