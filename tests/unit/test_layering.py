"""Architecture contracts: who may import whom (docs/architecture.md, "Layers").

The full contract is the import-linter one in pyproject.toml (run here and by ``lint-imports``);
the hand-written checks below keep the most important rules readable in one place.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[2] / "rocetune"


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def imports_under(package: str) -> dict[Path, set[str]]:
    base = PKG / package.replace("rocetune.", "").replace(".", "/")
    return {p: imported_modules(p) for p in sorted(base.rglob("*.py"))}


@pytest.mark.parametrize(
    ("package", "forbidden"),
    [
        ("rocetune.checks", ("rocetune.platforms", "rocetune.cli", "rocetune.api")),
        ("rocetune.model", ("rocetune.",)),
        ("rocetune.platforms", ("rocetune.checks", "rocetune.cli", "rocetune.api")),
        ("rocetune.report", ("rocetune.platforms", "rocetune.cli")),
    ],
)
def test_forbidden_imports(package: str, forbidden: tuple[str, ...]) -> None:
    offenders = []
    for path, mods in imports_under(package).items():
        for mod in mods:
            if package == "rocetune.model" and mod.startswith(
                ("rocetune.model", "rocetune.errors")
            ):
                continue
            if any(mod == f.rstrip(".") or mod.startswith(f) for f in forbidden):
                offenders.append(f"{path.relative_to(PKG.parent)} imports {mod}")
    assert not offenders, "\n".join(offenders)


def test_checks_do_not_load_platforms_at_runtime() -> None:
    code = (
        "import sys, rocetune.checks.registry as r; r.all_rules();"
        "bad=[m for m in sys.modules if m.startswith('rocetune.platforms')];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_importing_the_package_has_no_side_effects() -> None:
    code = "import sys, rocetune; print(sorted(m for m in sys.modules if m.startswith('rocetune')))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "['rocetune']"


def test_import_linter_contracts_hold() -> None:
    """pyproject's [tool.importlinter] layers, with an empty ignore list."""
    root = PKG.parent
    pyproject = (root / "pyproject.toml").read_text(encoding="utf-8")
    assert "ignore_imports = []" in pyproject
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "from importlinter.cli import lint_imports_command; lint_imports_command()",
            "--no-cache",
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=root,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            nxt = next(edges, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycles() -> None:
    """No two modules import each other, directly or through others (type-only imports too)."""
    import grimp

    graph = grimp.build_graph("rocetune", include_external_packages=False, cache_dir=None)
    edges = {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    assert _cycles(edges) == []
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
