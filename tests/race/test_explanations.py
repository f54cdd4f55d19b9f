"""The why panel's claims agree with the race's own figures, and its words are whole in every language
(docs/DESIGN.md §5.13, §5.16, §4.10): the offline presets race their own example prompts (short answers, the models
loaded once for the session), and every claim the explanation makes (it paid, it copies the prompt or not, where the
time went, what ate the gain, ...) is checked against the figures of that race; then the verdict and the explanation,
drawn in Korean and Indonesian, hold no English sentence."""

from __future__ import annotations

import re

import pytest

from app.core.presets import get_preset
from app.core.requests import RaceRequest
from app.core.words import speaking
from app.race import trust, verdict as verdict_module
from app.race.lifecycle import run_race
from app.race.methods import METHODS
from app.race.why import AGREE, CLAIMS, COPY_SHARE
from app.render.figures import race_stats_html
from app.render.why_panel import why_panel_html
from app.ui.race.handlers import finished_status
from tests.helpers import OPERATOR

pytestmark = pytest.mark.slow

PRESETS = ("offline-prompt-lookup", "offline-early-exit", "offline-uad")
#: Short answers keep the races quick; the claims hold at any length.
TOKENS = 16


def claim_holds(claim: str, result) -> bool:
    """Whether `claim` (app/race/why.py CLAIMS) is true of `result`'s own figures."""
    a, why, v = result.assisted, result.why, result.verdict
    drafted, accepted = sum(r.drafted for r in a.rounds), sum(r.accepted for r in a.rounds)
    plain, draft, verify = result.baseline.seconds, why.draft_seconds, why.verify_seconds
    be = why.break_even_acceptance
    lookup = METHODS[result.method].drafts_from_prompt
    return {
        "win": v.kind == "win" and result.speedup > 1, "loss": v.kind == "loss" and result.speedup < 1,
        "level": v.kind == "level", "unmeasured": v.kind == "unmeasured",
        "nothing-drafted": drafted == 0, "accepted": drafted > 0,
        "skipped-all": a.draft_policy == "cost-aware" and a.skipped_rounds >= len(a.rounds),
        "decoded-plainly": a.skipped_rounds >= len(a.rounds),
        "free": be is not None and be < 0.005, "pays-above": be is not None and be >= 0.005,
        "cannot-pay": be is None and why.cost_ratio is not None,
        "costs-full-step": v.drafting == "cannot-pay" and why.cost_ratio > (why.verify_slope or 0) and not lookup,
        "verify-costs": v.drafting == "cannot-pay" and (why.verify_slope or 0) >= why.cost_ratio,
        "verify-over-plain": verify >= plain,
        "draft-verify-over-plain": draft + verify >= plain > verify,
        "other-ate-gain": draft + verify < plain and v.drafting == "paid",
        "copies": lookup and accepted / a.new_tokens >= COPY_SHARE,
        "copies-little": lookup and accepted / a.new_tokens < COPY_SHARE,
        "drafter-disagrees": not lookup and (why.acceptance_rate or 0) < AGREE,
        "drafter-agrees": not lookup and (why.acceptance_rate or 0) >= AGREE,
        "best-gamma": bool(why.best_constant_gamma and why.gamma and why.best_constant_gamma < why.gamma),
        "cost-aware-few": a.draft_policy == "cost-aware" and sum(1 for r in a.rounds if r.drafted) < len(a.rounds),
    }[claim]


def wrong_claims(result) -> list[str]:
    """The explanation's claims that the race's figures contradict (with the sentence making each)."""
    why = result.why
    assert why.sentences and " ".join(why.sentences) == why.verdict and set(why.claims) <= set(CLAIMS)
    assert why.kind == result.verdict.kind
    return [f"{claim}: {why.verdict}" for claim in why.claims if not claim_holds(claim, result)]


def race_examples(quiet: bool) -> list:
    """Every offline preset's example prompts raced fairly (sequentially). quiet: judge them as on a quiet machine
    (the CPU shares injected equal, any noise band accepted), so every explanation shows its reasoning; else as this
    machine measured them."""
    results = []
    with pytest.MonkeyPatch.context() as mp:
        if quiet:
            mp.setattr(verdict_module, "MEASURE_LIMIT", 1e9)
            mp.setattr(trust, "MEASURE_LIMIT", 1e9)
            mp.setattr(trust, "MIN_VERIFY_SHARE", 0.0)
            mp.setattr("app.race._sides.CpuShare", _Quiet)
        for preset_id in PRESETS:
            preset = get_preset(preset_id).with_overrides({"max_new_tokens": TOKENS})
            for prompt in preset.example_prompts:
                result = run_race(RaceRequest(preset, prompt, limits=OPERATOR), sequential=True)
                assert not result.errors, result.errors
                results.append(result)
    return results


class _Quiet:
    """app/race/_sides.py ``CpuShare`` on a quiet machine: every side got all the CPU it asked for."""

    def __init__(self, threads: int):
        pass

    def share(self) -> float:
        return 1.0


@pytest.fixture(scope="module")
def quiet_races() -> list:
    return race_examples(quiet=True)


@pytest.fixture(scope="module")
def measured_races() -> list:
    return race_examples(quiet=False)


def test_each_explanation_agrees_with_its_race_judged_as_on_a_quiet_machine(quiet_races):
    assert len(quiet_races) == sum(len(get_preset(p).example_prompts) for p in PRESETS)
    wrong = [w for r in quiet_races for w in wrong_claims(r)]
    assert not wrong, wrong
    assert all(r.verdict.measured for r in quiet_races)
    copying = [r for r in quiet_races if r.method == "prompt-lookup" and
               sum(x.accepted for x in r.assisted.rounds) / r.assisted.new_tokens >= COPY_SHARE]
    assert all("copies little" not in r.why.verdict for r in copying)  # "does not copy" never said of a copy


def test_each_explanation_agrees_with_its_race_as_this_machine_measured_it(measured_races):
    wrong = [w for r in measured_races for w in wrong_claims(r)]
    assert not wrong, wrong


#: English words no Korean or Indonesian sentence of the verdict or the explanation holds: the browser language test's
#: list (tests/ui/test_languages_browser.py) and the verdict's own words; the method titles, model names and figures
#: are left aside. Indonesian prose borrows "token" and "per".
ENGLISH = {"the", "and", "of", "to", "is", "was", "were", "are", "with", "this", "that", "for", "from", "on", "after",
           "when", "each", "its", "it", "runs", "run", "plain", "than", "which", "what", "here", "there", "be", "by",
           "or", "an", "as", "at", "one", "per", "not", "no", "only", "until", "before", "draft", "drafts", "drafted",
           "drafter", "tokens", "token", "round", "rounds", "target", "measured", "measurement", "faster", "slower",
           "accepted", "paid", "pays", "copies", "race", "noise", "level", "machine", "side", "sides", "step"}
LOANS = {"id": {"token", "per"}, "ko": set()}
TITLES = [m.title.lower() for m in METHODS.values()] + [m.title for m in METHODS.values()]


def english_left(html: str, lang: str) -> list[str]:
    """The visible texts and tooltips of `html` that read as English sentences in a page of `lang` (method titles and
    generate()'s argument names taken out)."""
    english = ENGLISH - LOANS[lang]
    pieces = re.split(r"<[^>]+>", html) + re.findall(r'(?:title|aria-label)="([^"]*)"', html)
    out = []
    for piece in pieces:
        for title in TITLES:
            piece = piece.replace(title, "")
        words = re.findall(r"[A-Za-z]+", re.sub(r"\w+_\w+", " ", piece.lower()))
        if len(words) >= 3 and sum(w in english for w in words) >= 2:
            out.append(piece.strip())
    return out


@pytest.mark.parametrize("lang", ["ko", "id"])
def test_the_verdict_and_its_explanation_hold_no_english_sentence(lang, measured_races, quiet_races):
    """After real races (as this machine measured them, and as a quiet one would), every surface of the verdict in
    the visitor's language: the status line, the speedup card and the why panel."""
    left = []
    for result in measured_races + quiet_races:
        with speaking(lang):
            html = finished_status(result) + race_stats_html(result, None, result) + why_panel_html(result)
        left += english_left(html, lang)
    assert not left, (lang, left[:8])
