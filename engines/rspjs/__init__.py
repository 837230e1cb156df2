"""rsp-js 1.3.5 (npm) through its protocol-1 driver (``--engine rsp-js``).

The engine runs in Node (``driver.js``, dependencies pinned by ``package-lock.json``; install with
``engines/rspjs/install``).  Its declared profile was read off rsp-js's source and checked by
experiment: see README.md here.  Known deviations from it are in ``expectations.yaml``.
"""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

from engines.command import CommandEngine

HERE = Path(__file__).resolve().parent


PINNED = "1.3.5"


def versions() -> list[str]:
    """The rsp-js releases the kit ships a lockfile for (``--engine rsp-js@<version>``)."""
    return sorted([PINNED] + [p.name for p in (HERE / "versions").iterdir() if (p / "package-lock.json").exists()],
                  key=lambda v: tuple(int(x) for x in v.split(".")))


class RspJsEngine(CommandEngine):
    """``version`` (``--engine rsp-js@1.1.2``): another release, installed from its own pinned lockfile in
    ``versions/<version>/``; its expectations file there, if any, else the pinned release's."""

    def __init__(self, node: str = "node", version: str = PINNED, **options):
        if shutil.which(node) is None:
            raise ValueError(f"rsp-js needs Node.js: {node!r} is not on PATH (install Node 20)")
        if version not in versions():
            raise ValueError(f"rsp-js {version}: no pinned lockfile for it; the kit has {', '.join(versions())}")
        home = HERE if version == PINNED else HERE / "versions" / version
        if not (home / "node_modules" / "rsp-js").is_dir():
            raise ValueError(f"rsp-js {version} is not installed: run  npm ci --prefix {home}")
        expectations = home / "expectations.yaml"
        options.setdefault("expectations", str(expectations if expectations.exists() else HERE / "expectations.yaml"))
        super().__init__(f"{shlex.quote(node)} {shlex.quote(str(HERE / 'driver.js'))} --modules "
                         f"{shlex.quote(str(home / 'node_modules'))}", **options)
