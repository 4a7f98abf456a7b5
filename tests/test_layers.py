"""The package's folders are layers, data flowing one way: no module imports from a layer above its own."""
import ast
import os

from .conftest import ROOT

PACKAGE = os.path.join(ROOT, "wrapper")
# rank of each top-level part of the package: a module may import only from its own rank or below
RANKS = {"errors": 0, "core": 0, "model": 1, "measure": 2, "derive": 3, "sources": 4, "method": 5, "present": 6,
         "validate": 7, "api": 7, "cli": 8, "__init__": 9}


def _modules():
    for folder, _dirs, files in os.walk(PACKAGE):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                parts = os.path.relpath(path, PACKAGE)[:-3].split(os.sep)
                yield path, parts


def _imported(path: str, parts: list) -> set:
    """Top-level parts of wrapper that the module at ``parts`` imports (relative or absolute, anywhere in it)."""
    package = parts[:-1]
    out = set()
    for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                target = base + (node.module.split(".") if node.module else [])
            elif (node.module or "").startswith("wrapper"):
                target = node.module.split(".")[1:]
            else:
                continue
            if target:
                out.add(target[0])
            else:  # from . import x, y (at the package's top)
                out.update(alias.name for alias in node.names if alias.name in RANKS)
        elif isinstance(node, ast.Import):
            out.update(a.name.split(".")[1] for a in node.names if a.name.startswith("wrapper."))
    return out


def test_every_module_belongs_to_a_layer():
    assert sorted({parts[0] for _path, parts in _modules()} - set(RANKS)) == []


def test_no_layer_imports_a_higher_one():
    wrong = []
    for path, parts in _modules():
        own = RANKS[parts[0]]
        for target in _imported(path, parts):
            if target in RANKS and RANKS[target] > own:
                wrong.append(f"{'/'.join(parts)}.py imports {target}")
    assert wrong == []


def test_the_top_level_holds_few_modules():
    top = [name for name in os.listdir(PACKAGE) if name.endswith(".py")]
    assert len(top) <= 10, top


def _phase_literals(path: str) -> list:
    """Line numbers of tuple/list/set literals naming at least three of the phases (by name or record key)."""
    names = {"load", "ttft", "decode", "total", "load_s", "ttft_s", "decode_s", "total_s"}
    out = []
    for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            found = {e.value for e in node.elts if isinstance(e, ast.Constant) and e.value in names}
            found |= {e.elts[1].value for e in node.elts if isinstance(e, ast.Tuple) and len(e.elts) > 1
                      and isinstance(e.elts[1], ast.Constant) and e.elts[1].value in names}
            if len({n.removesuffix("_s") for n in found}) >= 3:
                out.append(node.lineno)
    return out


def test_the_phases_are_declared_in_one_module():
    holders = {"/".join(parts): lines for path, parts in _modules() if (lines := _phase_literals(path))}
    assert holders == {}  # model/phases.py declares them as Phase rows, read by everything else


MAX_FUNCTION_LINES = 60


def test_no_function_is_longer_than_sixty_lines():
    long = []
    for path, parts in _modules():
        for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long.append(f"{'/'.join(parts)}.py {node.name}: {lines} lines")
    assert long == []
