"""The architecture holds: engine packages never import gradio, functions stay small, design citations
resolve, and every knob has one bound that presets, the CLI, the page and the API all apply."""

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
ENGINE = ("core", "race", "render", "engine", "planner", "bench", "deploy", "replay")


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


@pytest.mark.parametrize("package", ENGINE)
def test_engine_packages_never_import_gradio_or_the_ui(package):
    for path in _modules(APP / package):
        assert "gradio" not in _imports(path), path
        assert "..ui" not in path.read_text(encoding="utf-8"), path


#: The floors of app/ (docs/DESIGN.md §8): a package imports only from its own floor's package and the floors
#: below, never from above, and the packages of one floor do not import each other, so no cycle can come back.
FLOORS = {"core": 0, "race": 1, "engine": 2, "planner": 3, "bench": 3, "replay": 3, "deploy": 3, "render": 4, "ui": 5,
          "cli": 5}
#: Imports between packages of one floor, each with its reason. (None so far.)
SIDEWAYS: dict[tuple[str, str], str] = {}


def _app_imports(path: Path) -> set[str]:
    """The app packages `path` imports from (absolute ``app.X`` and relative imports, resolved)."""
    package = path.relative_to(APP).parts[:-1]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name.split(".") for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [(node.module or "").split(".")]
        elif isinstance(node, ast.ImportFrom):
            names = [["app", *package[:len(package) - node.level + 1], *(node.module or "").split(".")]]
        else:
            continue
        out |= {n[1] for n in names if len(n) > 1 and n[0] == "app" and n[1]}
    return out


def test_imports_go_down_the_floors_only():
    assert {p.name for p in APP.iterdir() if p.is_dir() and (p / "__init__.py").exists()} <= set(FLOORS)
    wrong = []
    for package, floor in FLOORS.items():
        for path in _modules(APP / package):
            for other in _app_imports(path) & set(FLOORS) - {package}:
                if FLOORS[other] > floor or (FLOORS[other] == floor and (package, other) not in SIDEWAYS):
                    wrong.append(f"{path.relative_to(ROOT)} imports app.{other}")
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
