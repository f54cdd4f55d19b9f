"""The architecture holds: the floors below the UI never import gradio, imports (at any depth, inside functions too)
go down the floors and make no circle, functions stay small, design citations resolve, and every knob has one bound
that presets, the CLI, the page and the API all apply."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import gradio as gr
import pytest

from app.cli import build_parser
from app.core.errors import ArenaError
from app.core.knobs import FLAG, KNOB_LIST, KNOB_TABLE, KNOBS, REQUEST, Origin
from app.core.presets import get_preset
from app.core.requests import apply_overrides
from tests.helpers import ROOT, by_elem_id, english

APP = ROOT / "app"
#: The packages below the UI (every floor but ui and cli), which never import gradio.
BELOW_UI = ("core", "race", "render", "engine", "planner", "bench", "deploy", "replay")


def _modules(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py"))


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.add(node.module.split(".")[0])
    return out


@pytest.mark.parametrize("package", BELOW_UI)
def test_packages_below_the_ui_never_import_gradio_or_the_ui(package):
    for path in _modules(APP / package):
        assert "gradio" not in _imports(path), path
        assert "..ui" not in path.read_text(encoding="utf-8"), path


#: The floors of app/ (docs/DESIGN.md §8): a package imports only from its own floor's package and the floors
#: below, never from above, and the packages of one floor do not import each other, so no cycle can come back.
FLOORS = {"core": 0, "race": 1, "engine": 2, "planner": 3, "bench": 3, "replay": 3, "deploy": 3, "render": 4, "ui": 5,
          "cli": 5}
#: Imports between packages of one floor, each with its reason. (None so far.)
SIDEWAYS: dict[tuple[str, str], str] = {}


def _module(path: Path) -> str:
    """The dotted module name of a file under app/ (a package's ``__init__.py`` is the package)."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module(p): p for p in _modules(APP)}


def _app_module(name: str) -> str | None:
    """The app module that `name` (``app.x.y`` or ``app.x.y.some_name``) is or is defined in; None outside app."""
    parts = name.split(".")
    while parts and ".".join(parts) not in MODULES:
        parts.pop()
    return ".".join(parts) or None


def _module_imports(path: Path) -> dict[str, int]:
    """The app modules `path` imports, each with the line of its first import: every import statement at any depth
    (inside functions too, where a circle hides), relative ones resolved; ``from package import name`` counts as
    the submodule when `name` is one, else as the package."""
    module = _module(path)
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    out: dict[str, int] = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = [*package[:len(package) - node.level + 1]] if node.level else []
            base = ".".join([*base, *([node.module] if node.module else [])])
            names = [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        for target in filter(None, map(_app_module, names)):
            if target != module:
                out.setdefault(target, node.lineno)
    return out


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of `graph` with more than one node (Tarjan's algorithm), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in graph.get(node, ()):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = stack[stack.index(node):]
            del stack[stack.index(node):]
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


IMPORTS = {module: _module_imports(path) for module, path in MODULES.items()}


def test_the_import_reader_sees_imports_inside_functions():
    """app/cli/race.py imports the engine race inside run(), the CLI's package imports its sub-commands with
    ``from . import``, and the circle finder finds a circle of three and none in a chain."""
    assert "app.cli.engine_race" in IMPORTS["app.cli.race"] and "app.cli.race" in IMPORTS["app.cli"]
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle_between_modules():
    """No module imports (at any depth) a module that imports it back, directly or around a longer circle: a circle
    is broken by moving the shared piece to the lower module or passing it in, not by importing inside a function."""
    circles = _circles({module: set(imports) for module, imports in IMPORTS.items()})
    edges = [f"{MODULES[a].relative_to(ROOT)}:{IMPORTS[a][b]} imports {b}" for c in circles for a in c
             for b in c if b in IMPORTS[a]]
    assert not circles, edges


def test_imports_go_down_the_floors_only():
    """Every import at any depth: a package imports its own floor's package and the floors below, never above."""
    assert {p.name for p in APP.iterdir() if p.is_dir() and (p / "__init__.py").exists()} <= set(FLOORS)
    wrong = []
    for module, imports in IMPORTS.items():
        package = module.split(".")[1] if module.count(".") else None
        if package not in FLOORS:  # app/__init__.py, app/__main__.py: the entry, above every floor
            continue
        for other in {m.split(".")[1] for m in imports if m.count(".")} & set(FLOORS) - {package}:
            if FLOORS[other] > FLOORS[package] or (FLOORS[other] == FLOORS[package] and (package, other) not in SIDEWAYS):
                wrong.append(f"{MODULES[module].relative_to(ROOT)} imports app.{other}")
    assert not wrong, wrong


def test_the_planner_asks_the_method_classes_not_method_ids():
    """No planner module compares a method id or a kind's name: the method classes' attributes decide (kinds.py)."""
    ids = "|".join(re.escape(m) for m in ("drafter", "ensemble", "prompt-lookup", "layerskip", "glm-mtp",
                                          "gemma-drafter", "uad", "lookup", "early-exit"))
    compared = re.compile(rf"""(==|!=|\bin)\s*[(\[{{]?\s*["']({ids})["']""")
    found = [f"{p.relative_to(ROOT)}: {m.group(0)}" for p in _modules(APP / "planner")
             for m in compared.finditer(p.read_text(encoding="utf-8"))]
    assert not found, found


def test_no_function_in_app_is_longer_than_60_lines():
    long = []
    for path in _modules(APP):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno >= 60:
                long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert not long, long


def test_design_citations_point_at_sections_that_exist():
    design = (ROOT / "docs" / "DESIGN.md").read_text(encoding="utf-8")
    sections = set(re.findall(r"^## (\d+)\. ", design, flags=re.M))
    files = _modules(APP) + _modules(ROOT / "tests") + _modules(ROOT / "benchmarks") + [ROOT / "README.md"]
    cited = {(str(p.relative_to(ROOT)), n) for p in files
             for n in re.findall(r"DESIGN\.md §(\d+)", p.read_text(encoding="utf-8"))}
    assert cited, "no citations found"
    assert not {c for c in cited if c[1] not in sections}, sorted(c for c in cited if c[1] not in sections)
    for p in files:
        text = p.read_text(encoding="utf-8")
        assert not re.search("DESIGN section [0-9]|the " + "seed article|seeds/[0-9]", text), p


# ----- one bound per knob ---------------------------------------------------------------------------
def _outside(k) -> list:
    """Values just outside the knob's bounds (or not among its choices)."""
    if k.kind == "choice":
        return ["bogus"]
    values = []
    if k.low is not None:
        values.append(k.low if k.low_open else k.low - (1 if k.kind == "int" else 0.01))
    if k.high is not None:
        values.append(k.high if k.high_open else k.high + (1 if k.kind == "int" else 0.01))
    return values


def _inside(k):
    if k.kind == "choice":
        return k.choices[0]
    if k.kind == "int":
        return int(k.low)
    return (k.low + k.high) / 2


@pytest.mark.parametrize("knob", [k for k in KNOB_LIST if k.name != "seed"], ids=lambda k: k.name)
def test_presets_cli_and_requests_share_each_bound(knob):
    preset = get_preset("offline-prompt-lookup")
    parser = build_parser()
    base = ["race", "--preset", "offline-prompt-lookup", "--prompt", "x"]
    assert apply_overrides(preset, {knob.name: _inside(knob)}).__getattribute__(knob.name) == _inside(knob)
    assert getattr(parser.parse_args(base + [knob.flag, str(_inside(knob))]), knob.name) == _inside(knob)
    for bad in _outside(knob):
        for origin, where in ((REQUEST, "request"), (Origin("preset", "x.yaml"), "x.yaml: field")):
            with pytest.raises(ArenaError, match=re.escape(knob.bounds_text())) as err:
                preset.with_overrides({knob.name: bad}, origin)
            assert str(err.value).startswith(where)
        with pytest.raises(ArenaError, match=re.escape(knob.bounds_text())):
            parser.parse_args(base + [knob.flag, str(bad)])
    assert FLAG.blame(knob.name, "x").args[0].startswith(knob.flag)


def test_page_controls_and_api_take_the_table(built):
    for name in KNOBS:
        k, control = KNOB_TABLE[name], by_elem_id(built, f"knob-{name}")
        assert english(control.label) == k.label and k.bounds_text() in english(control.info)
        if isinstance(control, gr.Number):
            assert control.minimum == (None if k.low_open else k.low)
            assert control.maximum == (None if k.high_open else k.high)
        else:
            assert set(k.choices) <= {c[1] for c in control.choices}
    params = built.demo.get_api_info()["named_endpoints"]["/race"]["parameters"]
    assert [p["parameter_name"] for p in params][-len(KNOBS):] == list(KNOBS)
