#!/usr/bin/env python3
"""The shape of ``src/``: lines, modules, the largest module and function, who moves for a computer, import circles.

Counts what a new contributor meets when following a move through the code,
at the working tree or at any commit (``--ref``), so that a reorganisation can
be given before and after:

- lines and modules of ``src/elferraus`` (``.py`` files), the largest of each
  module and function (by lines, decorators and docstring included);
- every call of ``.choose(`` (a computer deciding) and ``.push(`` (a move
  made) outside the engine's own doctests, by place;
- import cycles between modules, counting imports inside functions (the
  strongly connected components of the module graph that grimp builds, the
  graph import-linter checks), and the exemptions the import contracts of
  ``pyproject.toml`` carry (``ignore_imports``, ``skip_descendants``).

    python -m benchmarks.structure                      # the working tree
    python -m benchmarks.structure --ref af73971 --json benchmarks/results/structure-before.json
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
import tarfile
import tempfile
import tomllib
from io import BytesIO
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def checkout(ref: str, into: Path) -> Path:
    """``src/`` and ``pyproject.toml`` of commit ``ref``, unpacked under ``into``."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", ref, "src", "pyproject.toml"], check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def measure(tree: Path) -> dict[str, Any]:
    """The figures of the checkout at ``tree``."""
    package = tree / "src" / "elferraus"
    files = sorted(package.rglob("*.py"))
    lines = {str(path.relative_to(tree)): len(path.read_text(encoding="utf-8").splitlines()) for path in files}
    functions: list[tuple[int, str]] = []
    calls: dict[str, list[str]] = {"choose": [], "push": []}
    for path in files:
        text = path.read_text(encoding="utf-8")
        where = str(path.relative_to(tree))
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                functions.append(((node.end_lineno or node.lineno) - start + 1, f"{where}:{node.lineno} {node.name}"))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in calls:
                calls[node.func.attr].append(f"{where}:{node.lineno}")
    largest_module = max(lines.items(), key=lambda item: item[1])
    largest_function = max(functions)
    contracts = tomllib.loads((tree / "pyproject.toml").read_text(encoding="utf-8"))
    exemptions = [
        {"contract": contract["name"], key: contract[key]}
        for contract in contracts.get("tool", {}).get("importlinter", {}).get("contracts", [])
        for key in ("ignore_imports", "skip_descendants")
        if contract.get(key)
    ]
    return {
        "lines": sum(lines.values()),
        "modules": len(files),
        "modules_over_600_lines": sorted(name for name, count in lines.items() if count > 600),
        "largest_module": {"path": largest_module[0], "lines": largest_module[1]},
        "largest_function": {"where": largest_function[1], "lines": largest_function[0]},
        "calls": {name: {"count": len(places), "places": places} for name, places in calls.items()},
        "import_cycles": import_cycles(tree / "src"),
        "contract_exemptions": exemptions,
    }


def import_cycles(source: Path) -> list[list[str]]:
    """The groups of modules that import each other in a circle (imports inside functions counted)."""
    import grimp

    sys.path.insert(0, str(source))
    try:
        graph = grimp.build_graph("elferraus", cache_dir=None)
    finally:
        sys.path.remove(str(source))
        for name in [name for name in sys.modules if name == "elferraus" or name.startswith("elferraus.")]:
            del sys.modules[name]
    # Tarjan's strongly connected components over the module graph.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in graph.find_modules_directly_imported_by(module):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    sys.setrecursionlimit(10_000)
    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return sorted(groups)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ref", default=None, help="a commit to measure instead of the working tree")
    parser.add_argument("--json", metavar="FILE", default=None, help="write the figures as JSON")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        tree = ROOT if args.ref is None else checkout(args.ref, Path(scratch))
        figures = {"ref": args.ref or "working tree", **measure(tree)}
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    calls = figures["calls"]
    print(f"{figures['lines']:,} lines in {figures['modules']} modules of src/elferraus ({figures['ref']})")
    print(f"largest module: {figures['largest_module']['path']} ({figures['largest_module']['lines']} lines)")
    print(f"largest function: {figures['largest_function']['where']} ({figures['largest_function']['lines']} lines)")
    print(f"modules over 600 lines: {', '.join(figures['modules_over_600_lines']) or 'none'}")
    print(f"calls of .choose(: {calls['choose']['count']}, of .push(: {calls['push']['count']}")
    print(f"import cycles: {len(figures['import_cycles'])}")
    for group in figures["import_cycles"]:
        print(f"  {' <-> '.join(group)}")
    print(f"contract exemptions: {len(figures['contract_exemptions'])}")
    for exemption in figures["contract_exemptions"]:
        print(f"  {exemption}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
