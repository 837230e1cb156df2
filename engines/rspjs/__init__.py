"""rsp-js 1.3.5 (npm) through its protocol-1 driver (``--engine rsp-js``).

The engine runs in Node (``driver.js``, dependencies pinned by ``package-lock.json``; install with
``npm ci --prefix engines/rspjs``).  Its declared profile was read off rsp-js's source and checked by
experiment: see README.md here.  Known deviations from it are in ``expectations.yaml``.
"""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

from engines.command import CommandEngine

HERE = Path(__file__).resolve().parent


class RspJsEngine(CommandEngine):
    def __init__(self, node: str = "node", **options):
        if shutil.which(node) is None:
            raise ValueError(f"rsp-js needs Node.js: {node!r} is not on PATH (install Node 20)")
        if not (HERE / "node_modules" / "rsp-js").is_dir():
            raise ValueError(f"rsp-js is not installed: run  npm ci --prefix {HERE}")
        options.setdefault("expectations", str(HERE / "expectations.yaml"))
        super().__init__(f"{shlex.quote(node)} {shlex.quote(str(HERE / 'driver.js'))}", **options)
