"""The Planner tab in Korean and Indonesian (docs/DESIGN.md §4.10): every sentence the planner writes in English
(app/planner's advice, notes, verdicts, labels and progress lines, the theorem's verdict, the page's calculator note)
is a msg(...) of the catalogs (tests/core/test_words_messages.py holds their translations), so a plan drawn in Korean or
Indonesian holds no English sentence."""

from __future__ import annotations

import re

import pytest

from app.core.words import msg, speaking
from app.planner.memory import PairMemory
from app.planner.plan import PlanOptions, plan_from_numbers
from app.planner.types import MeasuredPoint
from app.render import plan as render
from app.ui.planner.handlers import calculator

LANGS = ("ko", "id")
HANGUL = re.compile("[\uac00-\ud7a3]")
#: English words no Korean or Indonesian sentence of the planner holds (tests/ui/test_languages_browser.py's idea).
ENGLISH = {"the", "and", "of", "to", "is", "are", "with", "this", "that", "for", "from", "on", "when", "its", "than",
           "which", "what", "be", "by", "or", "an", "as", "at", "not", "only", "draft", "drafter", "target", "plain",
           "measured", "predicted", "faster", "slower", "rounds", "round"}


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
        plan.measured_points = [
            MeasuredPoint(8, 2.5, msg("measured, {detail}", detail=msg("constant gamma {gamma}", gamma=8))),
            MeasuredPoint(20, 1.9, msg("measured, {detail}", detail=msg("dynamic default (confidence 0.4, at most 20)")))]
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


@pytest.mark.parametrize("lang", LANGS)
def test_a_prediction_whose_races_were_no_measurement_reads_in_the_language(lang):
    """The plan's verdict when its check races were not a measurement: the prediction's sentence and the one saying
    why the races did not count, joined as messages (an f-string joining them left both English)."""
    from app.core.theory import verdict
    from app.core.words import translate
    from app.planner.plan import final_verdict
    from app.planner.types import TheoryVerdict

    theory = TheoryVerdict(**verdict(0.38, 0.0001))
    races = msg("No setting's races were a measurement: {reason}.", reason=msg("the race failed"))
    final = final_verdict(theory, ("unmeasured", races))
    assert final.source == "predicted" and final.text == f"{theory.text} {races}"
    with speaking(lang):
        text = translate(final.text)
    assert "exceeds" not in text and "measurement" not in text and "race failed" not in text, text
