"""Where third-party data lives: a configurable root, never this repository.

Order: the pytest option ``--data-root`` (set through :func:`set_data_root`), the environment variable
``RSPCONF_DATA``, then ``../shared/data`` beside the project (or the working directory) when it exists.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV = "RSPCONF_DATA"
PROJECT = Path(__file__).resolve().parents[2]
_override: Path | None = None


def set_data_root(path: str | Path | None) -> None:
    global _override
    _override = Path(path).resolve() if path else None


def data_root() -> Path | None:
    if _override is not None:
        return _override
    if os.environ.get(ENV):
        return Path(os.environ[ENV]).resolve()
    for base in (PROJECT, Path.cwd()):
        default = base.parent / "shared" / "data"
        if default.is_dir():
            return default
    return None

