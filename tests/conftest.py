"""Every process a test starts runs this checkout's kit: ``sys.executable -m conformance.cli`` or ``-m pytest``
from any folder imports ``conformance``, ``oracle`` and ``engines`` from here first, never from another
copy of the kit that happens to be installed (PYTHONPATH is read before site-packages and the editable
install's finder)."""

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                                                          if p and Path(p).resolve() != ROOT])

pytest_plugins = ["pytester"]
