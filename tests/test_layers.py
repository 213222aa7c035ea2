"""The architecture, checked: the import graph of the package (read with ast) has no cycles, no
module imports another module's private names, the core never imports an edge, and Z3 stays in
its homes (STYLE.md "Module boundaries", DESIGN.md "Layout")."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "shflx"

# Edges: the command line, the drivers (compile pipelines, cache, coverage runs), the front end
# (clang), code generation (llvmlite, ld.lld), GPU runtimes, files, the ptxas wrapper, and the compile server.
EDGE_PREFIXES = ("shflx.cli", "shflx.__main__", "shflx.driver", "shflx.frontend", "shflx.codegen",
                 "shflx.runtime", "shflx.files", "shflx.nvidia.ptxas", "shflx.server",
                 "shflx.command", "shflx.daemon")
# What only an edge may import: processes, SQLite, temporary files, LLVM, ELF readers, GPU runtimes.
EDGE_LIBRARIES = ("subprocess", "sqlite3", "tempfile", "shutil", "concurrent", "multiprocessing",
                  "llvmlite", "elftools", "hip", "cuda", "cupy")
Z3_HOMES = ("shflx.lanefn", "shflx.verify.smt", "shflx.nvidia.symbolic")


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


MODULES = _modules()


def _imports(name: str) -> list[tuple[str, str | None, int]]:
    """(imported module, imported name or None, line) for every import in module `name`."""
    path = MODULES[name]
    is_package = path.name == "__init__.py"
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(a.name, None, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")[: len(name.split(".")) - node.level + (1 if is_package else 0)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                out.append((sub, None, node.lineno) if sub in MODULES else (module, alias.name, node.lineno))
    return out


def _owner(module: str) -> str | None:
    """The shflx module an import resolves to (a name inside a module resolves to the module)."""
    while module and module not in MODULES:
        module = module.rpartition(".")[0]
    return module or None


def _is_edge(module: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in EDGE_PREFIXES)


GRAPH = {name: {o for m, _, _ in _imports(name) if m.startswith("shflx") and (o := _owner(m)) and o != name}
         for name in MODULES}


def test_the_package_is_found():
    assert {"shflx.cli", "shflx.driver.amd", "shflx.match", "shflx.ir.sites", "shflx.lanefn"} <= set(MODULES)


@pytest.mark.parametrize("name", sorted(n for n in MODULES if not _is_edge(n)))
def test_the_core_imports_no_edge(name):
    bad = [f"line {line}: {m}" for m, _, line in _imports(name)
           if (m.startswith("shflx") and _is_edge(_owner(m) or m))
           or m.split(".")[0] in EDGE_LIBRARIES]
    assert not bad, f"{name} is core but imports edges: {bad}"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_private_names_cross_modules(name):
    bad = [f"line {line}: {m}.{n}" for m, n, line in _imports(name)
           if m.startswith("shflx") and n and n.startswith("_") and not n.startswith("__") and _owner(m) != name]
    assert not bad, f"{name} imports private names of other modules: {bad}"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_z3_stays_in_its_homes(name):
    if name in Z3_HOMES:
        return
    assert not [m for m, _, _ in _imports(name) if m.split(".")[0] == "z3"], f"{name} imports z3"


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


def _package(module: str) -> str:
    """The unit of the package graph: a subpackage (shflx.ir) or a top-level module (shflx.pattern)."""
    return ".".join(module.split(".")[:2])


def _package_graph() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for name, deps in GRAPH.items():
        out.setdefault(_package(name), set()).update(_package(d) for d in deps if _package(d) != _package(name))
    return out


def test_the_import_graph_has_no_cycles():
    assert not (cycles := _cycles(GRAPH)), f"import cycles: {cycles}"


def test_the_package_graph_has_no_cycles():
    """Packages show the flow only if their imports point one way (ir/ -> nvidia/ -> chains/)."""
    assert not (cycles := _cycles(_package_graph())), f"package import cycles: {cycles}"


def test_the_checks_catch_what_they_look_for():
    """The checks themselves can fail: a synthetic cycle and a synthetic edge import are found."""
    saved = dict(GRAPH)
    try:
        GRAPH["shflx.lanes"] = GRAPH["shflx.lanes"] | {"shflx.pattern"}   # pattern imports lanes
        with pytest.raises(AssertionError, match="import cycles"):
            test_the_import_graph_has_no_cycles()
    finally:
        GRAPH.clear()
        GRAPH.update(saved)
    try:                                             # chains.shape <- nvidia.sites, ir.chains
        GRAPH["shflx.chains.shape"] = GRAPH["shflx.chains.shape"] | {"shflx.ir.text"}
        test_the_import_graph_has_no_cycles()       # no module cycle ...
        with pytest.raises(AssertionError, match="package import cycles"):
            test_the_package_graph_has_no_cycles()  # ... but ir/ <-> chains/
    finally:
        GRAPH.clear()
        GRAPH.update(saved)
    assert _is_edge("shflx.driver.cache") and _is_edge("shflx.frontend.clang") and not _is_edge("shflx.match")
