"""Engine adapters: the one small contract (:mod:`engines.contract`) and the engines the kit ships.

Nothing here may import the oracle's evaluation code (``oracle.secret``, ``oracle.r2r``, …): only the
shared data model ``oracle.model``.  ``tests/test_independence.py`` enforces it.
"""
