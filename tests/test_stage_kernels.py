"""Kernel stages compiled without a CPython wrapper (``KERNEL_STAGE_JIT``) are never called from
Python: such a call would crash the interpreter instead of raising. A static scan of the package,
the tests and the benches."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _jit_kind(fn) -> str | None:
    for deco in fn.decorator_list:
        if isinstance(deco, ast.Call) and getattr(deco.func, "id", None) == "njit":
            names = [kw.value.id for kw in deco.keywords if kw.arg is None and isinstance(kw.value, ast.Name)]
            return names[0] if names else "njit"
    return None


def _trees():
    return {path: ast.parse(path.read_text()) for folder in ("netsim_fast", "tests", "bench")
            for path in (ROOT / folder).rglob("*.py")}


def _python_calls(tree, names: set[str]):
    """(line, name) of calls to ``names`` made outside compiled functions: ``f(...)`` or
    ``module.f(...)``."""
    found = []

    def visit(node, compiled: bool):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef):
                visit(child, compiled or _jit_kind(child) is not None)
                continue
            if isinstance(child, ast.Call) and not compiled:
                f = child.func
                if isinstance(f, ast.Name) and f.id in names:
                    found.append((child.lineno, f.id))
                elif isinstance(f, ast.Attribute) and f.attr in names and isinstance(f.value, ast.Name) \
                        and f.value.id in MODULES:
                    found.append((child.lineno, f.attr))
            visit(child, compiled)

    visit(tree, False)
    return found


MODULES = {"kernel", "eject", "traverse", "source", "router", "terminal", "invariants"}


def test_stage_kernels_are_called_only_from_compiled_code():
    trees = _trees()
    stages = {node.name for tree in trees.values() for node in ast.walk(tree)
              if isinstance(node, ast.FunctionDef) and _jit_kind(node) == "KERNEL_STAGE_JIT"}
    assert {"router_stages", "eject_lanes", "read_inputs", "inject"} <= stages  # the scan sees them
    calls = [f"{path.relative_to(ROOT)}:{line} {name}" for path, tree in trees.items()
             for line, name in _python_calls(tree, stages)]
    assert calls == []


def test_the_scan_finds_a_python_call():
    tree = ast.parse("from netsim_fast.flit.eject import eject_lanes\n\ndef f(s):\n    return eject_lanes(s)\n")
    assert _python_calls(tree, {"eject_lanes"}) == [(4, "eject_lanes")]
