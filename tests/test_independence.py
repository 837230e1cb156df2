"""The oracle shares no evaluation code with the engines: engines/ may import only oracle.model (and the
kit's schemas, :mod:`conformance.schema`, which are data)."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    return names


def test_engines_import_nothing_of_the_oracle_but_its_data_model():
    offenders = {}
    for path in (ROOT / "engines").rglob("*.py"):
        bad = {m for m in imports(path) if (m == "oracle" or m.startswith("oracle.")) and m != "oracle.model"}
        # the schemas are data the engines share with the kit (the protocol, the manifest); nothing else
        bad |= {m for m in imports(path) if m.startswith("conformance") and m != "conformance.schema"}
        if bad:
            offenders[str(path.relative_to(ROOT))] = sorted(bad)
    assert offenders == {}


def test_oracle_imports_no_engine():
    offenders = [str(p) for p in (ROOT / "oracle").rglob("*.py") if any(m.startswith("engines") for m in imports(p))]
    assert offenders == []
