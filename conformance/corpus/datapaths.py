"""Where third-party data lives: a configurable root, never this repository.

Order: the pytest option ``--data-root`` (set through :func:`set_data_root`), the environment variable
``RSPCONF_DATA``, then ``../shared/data`` beside the project (or the working directory) when it exists.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV = "RSPCONF_DATA"
ALLOW_ENV = "RSPCONF_ALLOW_ANY_PATH"  # set to 1 to let cases and manifests read files anywhere
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


class OutsidePath(ValueError):
    """A case or manifest names a file outside the folders it may read from."""


def confine(path: Path, roots: dict[str, Path | None], what: str) -> Path:
    """``path`` if it lies (symbolic links followed) under one of ``roots`` ({description: folder}), else
    :class:`OutsidePath` saying where it may be: a case file is data, and data must not make the kit read
    ``/etc/passwd`` or ``/proc/self/environ``.  ``RSPCONF_ALLOW_ANY_PATH=1`` lifts the rule."""
    if os.environ.get(ALLOW_ENV) == "1":
        return path
    real = path.resolve()
    places = {name: root for name, root in roots.items() if root is not None}
    if any(real.is_relative_to(root.resolve()) for root in places.values()):
        return path
    where = " or ".join(f"{name} ({root})" for name, root in places.items())
    raise OutsidePath(f"{what} {path} lies outside {where}; move the file there, or set {ALLOW_ENV}=1 to "
                      "allow any path")
