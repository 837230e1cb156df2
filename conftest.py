"""Root conftest: makes ``pytest conformance/ --engine NAME`` work from a source checkout.

When rspconf is installed (``pip install -e .``) its pytest plugin is loaded through the ``pytest11``
entry point; otherwise this file loads it, so the plugin is never registered twice.  It also sets
the environment Spark needs (the running interpreter for workers, a loopback address).
"""

import os
import sys
from importlib.metadata import entry_points

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")

_installed = any(ep.name == "rspconf" for ep in entry_points(group="pytest11"))
pytest_plugins = [] if _installed else ["conformance.plugin"]
