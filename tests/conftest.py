"""Every process a test starts runs this checkout's kit: ``sys.executable -m conformance.cli`` or ``-m pytest``
from any folder imports ``conformance``, ``oracle`` and ``engines`` from here first, never from another
copy of the kit that happens to be installed (PYTHONPATH is read before site-packages and the editable
install's finder).  Tests marked ``long`` run first (below)."""

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                                                          if p and Path(p).resolve() != ROOT])

pytest_plugins = ["pytester"]


def pytest_collection_modifyitems(items):
    """The tests marked ``long`` (each some 30-110 s of a worker) first, the rest in their order: under
    ``-n 2`` a long test collected last (the W3C suite's, 60-70 s) ran while the other worker had nothing
    left to do.  Every worker sorts the same items the same way, as pytest-xdist requires."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)
