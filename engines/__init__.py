"""Engine adapters: the one small contract (:mod:`engines.contract`) and the engines the kit ships.

Nothing here may import the oracle's evaluation code (``oracle.s2r.secret``, ``oracle.r2r.query``, …): only the
shared data model ``oracle.model``.  ``tests/test_independence.py`` enforces it.
"""
