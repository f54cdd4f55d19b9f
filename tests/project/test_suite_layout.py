"""How the tests and the benchmarks are laid out: no sys.path edits anywhere (tests/ is a package the benchmarks
import from the repository root), the tests never import the benchmarks, no test module imports another (what two
need is in a helper module), a fixture that two test modules need is in conftest.py, and every test checks
something whichever way its branches go."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Iterator

from tests.helpers import ROOT

TESTS = ROOT / "tests"
#: Calls that check something: pytest's raises/warns/fail, Playwright's expect (and any assert_* or check_*, such as
#: a method's check_preset, which raises on a bad preset).
CHECKS = {"raises", "warns", "fail", "deprecated_call", "expect"}


def _python_files() -> list[Path]:
    folders = [ROOT / name for name in ("app", "tests", "benchmarks", "scripts")]
    return [ROOT / "app.py"] + [p for folder in folders for p in sorted(folder.rglob("*.py"))]


def _name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _always(node: ast.AST) -> Iterator[ast.AST]:
    """`node` and the nodes under it that run whenever it runs: an if's branches and a try's except and else blocks
    are left out (a loop's body is kept: the tests loop over fixed, non-empty lists)."""
    yield node
    if isinstance(node, ast.If):
        yield from ast.walk(node.test)
        return
    children = [*node.body, *node.finalbody] if isinstance(node, (ast.Try, ast.TryStar)) else ast.iter_child_nodes(node)
    for child in children:
        yield from _always(child)


def _checks(fn: ast.FunctionDef, helpers: set[str], nodes=ast.walk) -> bool:
    """Whether `fn` asserts, calls a checking call, or calls a helper that does (among `nodes(fn)`)."""
    for node in nodes(fn):
        if isinstance(node, ast.Assert):
            return True
        if isinstance(node, ast.Call) and (_name(node) in CHECKS | helpers or _name(node).startswith(("assert", "check"))):
            return True
    return False


def _functions() -> dict[Path, list[ast.FunctionDef]]:
    return {p: [n for n in ast.walk(ast.parse(p.read_text(encoding="utf-8"))) if isinstance(n, ast.FunctionDef)]
            for p in sorted(TESTS.rglob("*.py"))}


def test_nothing_edits_sys_path():
    edits = re.compile(r"sys\.path\s*(\.\s*(insert|append|extend)|\[|\+=|=)|site\.addsitedir")
    found = [f"{p.relative_to(ROOT)}:{i}" for p in _python_files()
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if edits.search(line)]
    assert not found, found
    assert "pythonpath" not in (ROOT / "pyproject.toml").read_text(encoding="utf-8")


def _imported(path: Path) -> Iterator[tuple[int, str]]:
    """(line, dotted name) of every import in `path` at any depth, inside functions too; ``from X import a`` gives
    X and X.a, and a relative import is resolved within tests/."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, a.name) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(["tests"] * bool(node.level) + ([node.module] if node.module else []))
            yield node.lineno, base
            yield from ((node.lineno, f"{base}.{a.name}") for a in node.names)


def test_tests_do_not_import_the_benchmarks():
    found = [f"{path.relative_to(TESTS)}:{line} {name}" for path in sorted(TESTS.rglob("*.py"))
             for line, name in _imported(path)
             if name.split(".")[0] == "benchmarks"]
    assert not found, found


def _is_test_module(name: str) -> bool:
    """Whether the dotted `name` is a test module or something in one: tests.floor.test_x(.y), tests.test_x(.y), or
    test_x(.y) itself."""
    parts = name.split(".")
    return any(part.startswith("test_") for part in parts[:1] + (parts[1:] if parts[0] == "tests" else []))


def test_no_test_module_imports_another():
    """A test module imports helper modules (tests/helpers.py, tests/chromium.py, ...) but never a test_*.py, at any
    depth: what two test modules share lives in a helper module (a fixture: conftest.py)."""
    found = [f"{path.relative_to(TESTS)}:{line} {name}" for path in sorted(TESTS.rglob("*.py"))
             for line, name in _imported(path)
             if _is_test_module(name)]
    assert not found, found


def test_a_fixture_two_modules_need_is_in_conftest():
    where: dict[str, list[str]] = {}
    for path, functions in _functions().items():
        for fn in functions:
            if any("fixture" in ast.unparse(d) for d in fn.decorator_list):
                where.setdefault(fn.name, []).append(path.name)
    assert not {name: files for name, files in where.items() if len(files) > 1}


def test_every_test_checks_something():
    """Every test asserts (or calls a check) on a path it always takes: not only inside an if or an except, where it
    would pass without checking anything when the branch is not taken."""
    functions = [fn for fns in _functions().values() for fn in fns]
    helpers: set[str] = set()
    while grown := {fn.name for fn in functions if not fn.name.startswith("test_") and fn.name not in helpers
                    and _checks(fn, helpers)}:
        helpers |= grown
    idle = [f"{path.name}:{fn.lineno} {fn.name}" for path, fns in _functions().items() for fn in fns
            if fn.name.startswith("test_") and not _checks(fn, helpers, _always)]
    assert not idle, idle


def test_tests_mirror_the_code():
    """Each test module lives in the folder of the floor it tests (tests/race/ for app/race, ...) or in
    tests/project/ (the project as a whole); helper modules stay at the top of tests/ (docs/DESIGN.md §9)."""
    floors = {p.name for p in (ROOT / "app").iterdir() if p.is_dir() and not p.name.startswith("_")} | {"project"}
    misplaced = [str(p.relative_to(TESTS)) for p in TESTS.rglob("test_*.py")
                 if "node_modules" not in p.parts and (len(p.relative_to(TESTS).parts) != 2 or p.parent.name not in floors)]
    assert not misplaced, misplaced
    for folder in {p.parent for p in TESTS.rglob("test_*.py") if "node_modules" not in p.parts}:
        assert (folder / "__init__.py").is_file(), folder
