"""The oracle shares no evaluation code with the engines: engines/ may import only oracle.model (and the
kit's schemas, :mod:`conformance.schema`, which are data)."""

import ast
import gc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def parse(text: str) -> ast.AST:
    """``ast.parse``, robust to a CPython 3.11 fault: the AST constructor's recursion counter is shared
    (CPython gh-106905), so a finalizer or another thread building a tree at the same moment makes it raise
    "SystemError: AST constructor recursion depth mismatch" (seen once in CI, in a worker where earlier tests
    had left threads and sockets behind).  The collector is held off, and a tree is built again once."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        try:
            return ast.parse(text)
        except SystemError:
            return ast.parse(text)
    finally:
        if enabled:
            gc.enable()


def imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(parse(path.read_text())):
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


def test_a_process_a_test_starts_imports_this_checkout(tmp_path):
    """From a folder outside the project (where ``import conformance`` would otherwise find whatever copy
    is installed), the CLI and the kit's modules come from this checkout (tests/conftest.py)."""
    import subprocess
    import sys

    code = "import conformance, oracle, engines; print(conformance.__file__, oracle.__file__, engines.__file__)"
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert all(Path(f).resolve().is_relative_to(ROOT) for f in out.stdout.split())
    help_text = subprocess.run([sys.executable, "-m", "conformance.cli", "--help"], cwd=tmp_path,
                               capture_output=True, text=True, timeout=60)
    assert help_text.returncode == 0 and "usage: rspconf" in help_text.stdout


PACKAGES = ("oracle", "conformance", "engines")


def module_of(path: Path) -> str:
    name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    return name[: -len(".__init__")] if name.endswith(".__init__") else name


def import_graph() -> dict[str, set[str]]:
    """Module → the project modules it imports, at its top or inside a function (``from a import b``
    counts as an import of ``a.b`` when that is a module)."""
    paths = {module_of(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py") if "node_modules" not in p.parts}
    graph = {m: set() for m in paths}
    for m, path in paths.items():
        package = m if path.name == "__init__.py" else m.rpartition(".")[0]
        for node in ast.walk(parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(parts + ([base] if base else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in paths else base for a in node.names]
            else:
                continue
            for t in targets:
                while t and t not in paths:
                    t = t.rpartition(".")[0]
                if t and t != m:
                    graph[m].add(t)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_circle_between_modules():
    assert circles(import_graph()) == []


def test_the_circle_finder_finds_a_circle():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_imports_inside_functions_only_defer_an_optional_dependency_and_say_so():
    """The rule: an import inside a function defers pyspark or jinja2 (optional extras), with a comment
    saying so; anything else is imported at the top of its module."""
    unsaid = []
    for pkg in PACKAGES:
        for path in (ROOT / pkg).rglob("*.py"):
            if "node_modules" in path.parts:
                continue
            text = path.read_text(encoding="utf-8")
            lines = text.splitlines()
            for fn in ast.walk(parse(text)):
                if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                for node in ast.walk(fn):
                    if isinstance(node, (ast.Import, ast.ImportFrom)) and "deferred" not in lines[node.lineno - 1]:
                        unsaid.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert unsaid == []


def test_the_kit_calls_on_an_adapter_only_what_the_contract_names():
    """engines/contract.py names every method the kit looks for on an adapter (with hasattr/getattr)."""
    import re

    from engines.contract import METHODS

    looked_for = set()
    for path in (ROOT / "conformance").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        looked_for |= set(re.findall(r"(?:hasattr|getattr)\((?:self\.|state\.)?adapter, \"(\w+)\"", text))
    assert looked_for and looked_for <= set(METHODS), looked_for - set(METHODS)


def test_the_built_in_engine_table_is_the_entry_points_of_pyproject():
    from importlib.metadata import entry_points

    from conformance.run import adapters

    registered = {ep.name: ep.value for ep in entry_points(group="rspconf.engines")}
    assert adapters.builtin() == registered and len(registered) >= 20
