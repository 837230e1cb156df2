"""Files named by data (a case's stream file, a replay manifest's recordings) are read only from the
places that data may name: the rule is here, one place for the corpus and the engines that read
recordings alike."""

from __future__ import annotations

import os
from pathlib import Path

ALLOW_ENV = "RSPCONF_ALLOW_ANY_PATH"  # set to 1 to let cases and manifests read files anywhere


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
