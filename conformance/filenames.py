"""File names made from names the kit does not choose (engine names, case ids, matrix config entries):
one name, one file — never two names on one file, never a path outside the folder, never too long."""

from __future__ import annotations

import hashlib
import re

MAX_STEM = 80  # characters kept of the name itself; a file name stays far below the usual 255 bytes


def slug(text: str) -> str:
    """A safe file stem for ``text``: itself when it is short and uses only ``A-Za-z0-9._@+-`` (so
    ``spark@0.1`` stays ``spark@0.1``), else its safe characters shortened, plus a hash of the whole name
    (so ``eng/a`` and ``eng_a`` differ, and ``..`` cannot climb out of a folder)."""
    safe = re.sub(r"[^A-Za-z0-9._@+-]+", "_", text).strip("_.") or "_"
    if safe == text and len(text) <= MAX_STEM:
        return text
    return f"{safe[:MAX_STEM]}-{hashlib.sha256(text.encode('utf-8', 'surrogatepass')).hexdigest()[:10]}"
