"""The Planner tab in Korean and Indonesian (docs/DESIGN.md §4.10): every sentence the planner writes in English
(app/planner's advice, notes, verdicts, labels and progress lines, the theorem's verdict, the page's calculator note)
has its translation in each language's messages-planner.json with the same placeholders, and a plan drawn in Korean
or Indonesian holds no English sentence."""

from __future__ import annotations

import ast
import re

import pytest

from app.core.words import files, placeholders, speaking, table
from app.planner.memory import PairMemory
from app.planner.plan import PlanOptions, plan_from_numbers
from app.planner.types import MeasuredPoint
from app.render import plan as render
from app.ui.planner.handlers import calculator
from tests.helpers import ROOT

LANGS = ("ko", "id")
#: Where the planner's English sentences are written: file -> the functions and classes whose strings the page shows
#: (None: every string of the file outside docstrings and raised errors).
SOURCES = {"app/planner/advice.py": None,
           "app/planner/plan.py": {"_recommend", "_best_of", "_notes", "projection_note", "_memory_and_advice", "_check",
                                   "_measure"},
           "app/planner/kinds.py": {"DraftKind", "ModelDrafts", "TranslatedDrafts", "EarlyExitDrafts", "LookupDrafts"},
           "app/planner/check.py": {"race_prompts"},
           "app/planner/cost.py": None,
           "app/planner/engine_plan.py": {"measure_engine", "race_prompts_on", "plan_on_engine", "_verdict_text",
                                          "_notes"},
           "app/core/theory.py": {"verdict"},
           "app/ui/planner/handlers.py": {"calculator"}}
HANGUL = re.compile("[\uac00-\ud7a3]")
#: English words no Korean or Indonesian sentence of the planner holds (tests/ui/test_languages_browser.py's idea).
ENGLISH = {"the", "and", "of", "to", "is", "are", "with", "this", "that", "for", "from", "on", "when", "its", "than",
           "which", "what", "be", "by", "or", "an", "as", "at", "not", "only", "draft", "drafter", "target", "plain",
           "measured", "predicted", "faster", "slower", "rounds", "round"}


def _shape(text: str) -> str:
    """A template with its placeholders blanked: ``{}`` for each."""
    return re.sub(r"\{\w+(?::[^{}]*)?\}", "{}", text)


def _strings(node: ast.AST) -> list[str]:
    """The sentence-like strings under `node` (f-strings as templates with ``{}``), leaving out docstrings, dict keys
    and the messages of raised errors (those are messages.json's)."""
    skip: set[int] = set()
    for sub in ast.walk(node):
        if isinstance(sub, (ast.FunctionDef, ast.ClassDef, ast.Module)) and ast.get_docstring(sub) is not None:
            skip.add(id(sub.body[0].value))
        if isinstance(sub, ast.Raise):
            skip.update(id(x) for x in ast.walk(sub))
        if isinstance(sub, ast.Dict):
            skip.update(id(x) for k in sub.keys if k is not None for x in ast.walk(k))
        if isinstance(sub, ast.JoinedStr):
            skip.update(id(x) for x in sub.values)
    out = []
    for sub in ast.walk(node):
        if id(sub) in skip:
            continue
        if isinstance(sub, ast.JoinedStr):
            text = "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in sub.values)
        elif isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            text = sub.value
        else:
            continue
        if len(re.findall(r"[A-Za-z]+", text)) >= 3 and " " in text:
            out.append(text)
    return out


def harvested() -> set[str]:
    """The shapes of every English sentence the planner's sources write for the page."""
    out = set()
    for path, names in SOURCES.items():
        tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
        nodes = [tree] if names is None else [n for n in ast.walk(tree)
                                               if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name in names]
        assert names is None or nodes, path
        for node in nodes:
            out.update(_shape(s) for s in _strings(node))
    return out


#: Pieces the planner joins into a sentence of the catalog, and names (a GPU's): not sentences.
PIECES = {"{}, {}x", "{} {}x", "; {}", "H100 SXM 80GB"}


@pytest.mark.parametrize("lang", LANGS)
def test_every_sentence_of_the_planner_has_its_translation(lang):
    shapes = {_shape(k) for k in table(lang)["messages"]}  # messages-planner.json, and messages.json's shared lines
    wanted = harvested()
    assert len(wanted) > 30, sorted(wanted)
    # a sentence the planner builds in two steps ("{size}: ...", "... predicts {s}x." + " Keep gamma below ...")
    # is in the catalog as its parts
    missing = sorted(s for s in wanted - PIECES
                     if s not in shapes and s.strip() not in shapes and not any(s.strip() in c for c in shapes))
    assert not missing, missing


@pytest.mark.parametrize("lang", LANGS)
def test_a_translation_keeps_its_placeholders(lang):
    for english, theirs in files(lang)["messages-planner.json"].items():
        assert placeholders(english) == placeholders(theirs), (lang, english)
        assert not re.search(r"\{\w+:", theirs), (lang, english)  # the values come as text: no format spec


def _english(text: str) -> bool:
    words = re.findall(r"[A-Za-z]+", text.lower())
    return sum(w in ENGLISH for w in words) >= 2 and len(words) >= 3


def _texts(html: str) -> list[str]:
    """The visible texts and tooltips of `html`, less the line naming the models (their ids are no words)."""
    html = re.sub(r'<div class="plan-who">.*?</div>', "", html)
    pieces = re.split(r"<[^>]+>", html) + re.findall(r'(?:title|aria-label)="([^"]*)"', html)
    return [p.strip() for p in pieces if p.strip()]


def _plans() -> list:
    """A calculator plan with the page's note, and one dressed as a measured plan: check races, measured points,
    advice, notes, the projection."""
    calc = calculator(0.8, 0.05, PlanOptions())
    slow = plan_from_numbers(0.3, 0.4)  # alpha below c: the 'turn it off' verdict and advice
    return [calc, slow]


@pytest.mark.parametrize("lang", LANGS)
def test_a_plan_drawn_in_the_language_holds_no_english_sentence(lang):
    for plan in _plans():
        plan.measured_points = [MeasuredPoint(8, 2.5, "measured, constant gamma 8"),
                                MeasuredPoint(20, 1.9, "measured, dynamic default (confidence 0.4, at most 20)")]
        with speaking(lang):
            html = "".join(f(plan) for f in (render.headline_html, render.plot_html, render.table_html,
                                              render.check_html, render.memory_html, render.cost_html,
                                              render.advice_html)) + render.intro_html()
        texts = _texts(html)
        left = [x for x in texts if _english(x)]
        assert not left, (lang, left[:10])
        if lang == "ko":
            assert HANGUL.search(html)


def test_a_measured_plan_is_drawn_in_korean(tiny):
    """A real measurement (tiny models): its advice, notes, check races and verdict in Korean, none left English."""
    from app.core.requests import Limits
    from app.planner.plan import plan_for_preset
    from tests.helpers import make_preset

    preset = make_preset("drafter", tiny["llama_target"], tiny["llama_drafter"], max_new_tokens=8)
    plan = plan_for_preset(preset, ["Hello there"], PlanOptions(max_new_tokens=8, repeats=1, steps=2,
                                                                limits=Limits.operator()))
    assert plan.check and plan.advice and plan.notes
    with speaking("ko"):
        html = "".join(f(plan) for f in (render.headline_html, render.plot_html, render.check_html,
                                          render.memory_html, render.cost_html, render.advice_html))
    left = [x for x in _texts(html) if _english(x)]
    assert not left, left[:10]
    assert isinstance(plan.memory, PairMemory)
