"""One verdict, true under load, on every surface (docs/DESIGN.md §5.16): each race is judged once, from its own
measurements, and every surface (status line, speedup card, why panel, replay page, gallery, benchmark row and
leaderboard, planner, command line, JSON) shows that verdict and nothing else; a race run while other work loaded one
side of it (injected here as measured conditions, never by loading the machine) is not a measurement anywhere."""

from __future__ import annotations

import dataclasses

import pytest

from app.bench.stats import cells, left_out, make_row, overall
from app.bench.suite import SuitePrompt
from app.cli.race_text import stats_line
from app.race.protocol import Round, Token
from app.race.result import AssistedResult, RaceResult, SideResult
from app.race.trust import CPU_SHARE, MEASURE_LIMIT, PLAIN_STEP, Conditions
from app.race.verdict import MEASURED, Verdict, pooled
from app.race.why import explain_race
from app.render.figures import race_stats_html
from app.render.why_panel import speedup_words, why_panel_html
from app.replay.gallery import outcome_of
from app.ui.race.handlers import finished_status
from tests.helpers import make_preset


def race(plain_step: float = 0.05, assisted_seconds: float = 0.5, drafted: int = 3, accepted: int = 2,
         conditions: Conditions | None = None, jitter: float = 0.0, **changes) -> RaceResult:
    """A sequential 20-token race: plain steps `plain_step` s (alternating +-jitter; 1.25 s in all at 0.05 s); the
    assisted side `assisted_seconds` over 6 rounds that verify in one plain step each; explained (and so judged)
    once."""
    times, t = [], 0.3
    for i in range(20):
        times.append(t)
        t += plain_step * (1 + (jitter if i % 2 else -jitter))
    rounds = [Round(drafted, min(accepted, drafted), "", 0.001, plain_step) for _ in range(6)]
    tokens = [Token(i, f"t{i}", "accepted" if i % 3 else "bonus") for i in range(20)]
    result = RaceResult("p", "prompt-lookup", "t", None, "sequential", False, "cpu",
                        SideResult("b", list(range(20)), times[-1], 0.3, times),
                        AssistedResult("a", list(range(20)), assisted_seconds, 0.3,
                                       [0.3 + assisted_seconds * i / 20 for i in range(20)], tokens=tokens,
                                       rounds=rounds),
                        knobs={"prompt_lookup_num_tokens": 3}, conditions=conditions)
    result = dataclasses.replace(result, **changes)
    result.why = explain_race(result, result.knobs)
    return result


QUIET = Conditions(CPU_SHARE, 0.93, 0.95)
LOADED = Conditions(CPU_SHARE, 0.35, 0.95)  # other work took most of the CPU while plain ran


def surfaces(result: RaceResult) -> dict[str, str]:
    """What each surface of the race says, as text."""
    return {"status": finished_status(result), "card": race_stats_html(result, None, result),
            "why": why_panel_html(result), "cli": stats_line(result)}


@pytest.mark.parametrize("name, result, kind", [
    ("win", race(assisted_seconds=0.4, conditions=QUIET), "win"),
    ("loss", race(assisted_seconds=1.6, conditions=QUIET), "loss"),
    ("level", race(assisted_seconds=1.26, conditions=QUIET), "level"),
    ("loaded", race(assisted_seconds=0.4, conditions=LOADED), "unmeasured"),
    ("too busy", race(assisted_seconds=0.4, jitter=0.6, conditions=QUIET), "unmeasured"),
    ("stopped", race(assisted_seconds=0.4, conditions=QUIET, stopped=True), "unmeasured"),
])
def test_every_surface_says_the_race_s_one_verdict(name, result, kind):
    verdict = result.verdict
    assert verdict.kind == kind, (name, verdict)
    assert result.verdict is verdict and result.why.kind == kind  # judged once; the explanation repeats it
    data = result.to_dict()
    assert data["verdict"]["kind"] == kind and data["verdict"]["measured"] == (kind in MEASURED)
    assert data["why"]["kind"] == kind and data["verdict"]["limit"] == MEASURE_LIMIT
    words, _ = speedup_words(verdict)
    said = surfaces(result)
    assert words in said["status"] and f"why-{kind}" in said["why"] and words in said["why"]
    assert f"speed-{kind}" in said["card"]
    assert RaceResult.from_dict(data).verdict == verdict  # a replay shows the verdict the race showed
    assert outcome_of(verdict) == {"win": "faster", "loss": "slower", "level": "level with plain",
                                   "unmeasured": "not a measurement"}[kind]
    if kind == "unmeasured":
        reason = verdict.reason
        assert reason and reason in said["status"].replace("&#x27;", "'") and "not a measurement" in said["cli"]
        assert "Not a measurement" in result.why.verdict and "It paid" not in result.why.verdict
        assert "measured in a fair race" not in said["why"]  # a race that is no measurement is not labelled measured
        assert "measured speedup" not in said["card"]
    else:
        assert "not a measurement" not in said["status"] + said["cli"] + said["why"] + said["card"]
    if kind == "loss":
        assert "slower" in said["status"] and "slower" in said["cli"] and "It paid" not in result.why.verdict
    if kind == "level":
        assert "level" in said["cli"] and "Level with plain" in result.why.verdict


def test_a_load_on_one_side_is_named_with_its_figures_and_the_stated_limit():
    verdict = race(conditions=LOADED).verdict
    assert "plain got 35% of the CPU it asked for, assisted 95%" in verdict.reason and "\u00b125%" in verdict.reason
    assert verdict.to_dict()["conditions"] == {"what": CPU_SHARE, "baseline": 0.35, "assisted": 0.95,
                                               "gap": pytest.approx(1.7143, abs=1e-3), "judged": True, "failure": None}
    within = Conditions(CPU_SHARE, 0.80, 0.95)  # 19 % apart: within the limit
    assert race(assisted_seconds=0.4, conditions=within).verdict.kind == "win"
    on_gpu = dataclasses.replace(LOADED, judged=False)  # a GPU side's CPU share is recorded, not judged
    assert race(assisted_seconds=0.4, conditions=on_gpu).verdict.kind == "win"
    busy = race(assisted_seconds=0.4, jitter=0.6, conditions=QUIET).verdict
    assert "too busy to measure this now" in busy.reason and busy.band > MEASURE_LIMIT
    engine = race(assisted_seconds=0.4, conditions=Conditions(PLAIN_STEP, 107.5, 34.4)).verdict  # 0.93 tok/s vs 29
    assert engine.kind == "unmeasured" and "changed between the sides" in engine.reason
    assert "107.5 ms during the race and in 34.4 ms right after the assisted side" in engine.reason


def test_a_race_of_both_at_once_is_a_show_not_a_measurement():
    show = race(assisted_seconds=0.4, mode="concurrent")
    assert show.verdict.kind == "unmeasured" and "a show" in show.verdict.reason
    card = race_stats_html(show, show, None)
    assert "speed-show" in card and "line-through" not in card


def test_the_why_panel_and_the_card_cannot_disagree():
    """The 0.92x seen as 'level' on the card and 'slower than plain' in the why panel: both now read the verdict."""
    result = race(assisted_seconds=1.36, jitter=0.2, conditions=QUIET)  # 0.92x inside a +-20 % band
    assert result.verdict.kind == "level" and 0.9 < result.speedup < 1
    said = surfaces(result)
    assert "slower" not in said["why"] and "slower" not in said["status"] and "level with plain" in said["why"]


# ----- the benchmark: a loaded row is no measurement, and the leaderboard says so ---------------------------------
def test_a_loaded_benchmark_row_is_left_out_of_the_leaderboard_and_named():
    from app.bench.results import BenchResult
    from app.bench.summary import summary_markdown
    from app.render.bench_tab import leaderboard_html

    preset = make_preset("prompt-lookup", "t", prompt_lookup_num_tokens=3)
    rows = []
    for i, (category, seconds, conditions) in enumerate([("summarisation", 0.2, LOADED), ("qa", 0.8, QUIET),
                                                          ("code", 0.6, QUIET)]):
        prompt = SuitePrompt(f"p{i}", "x", category, "test")
        rows.append(make_row(race(assisted_seconds=seconds, conditions=conditions), preset, prompt, 1))
    assert [r["verdict"] for r in rows] == ["unmeasured", "win", "win"] and rows[0]["speedup"] > 4
    assert left_out(rows) == [rows[0]]
    by = {c["category"]: c for c in cells(rows)}
    assert by["summarisation"]["speedup_median"] is None and by["summarisation"]["left_out"] == 1
    geo = overall(rows)[0]
    assert geo["speedup_geomean"] == pytest.approx((by["qa"]["speedup_median"] * by["code"]["speedup_median"]) ** 0.5,
                                                   abs=1e-3)
    assert geo["left_out"] == 1 and geo["categories_left_out"] == ["summarisation"]
    result = BenchResult(rows, {"suite": "s"}, {})
    summary = summary_markdown(result)
    assert "not a measurement (1 left out)" in summary and "Left out: 1 race(s)" in summary
    assert "plain got 35% of the CPU" in summary
    board = leaderboard_html(result)
    assert "not measured" in board and "1 race(s) that were not a measurement" in board


# ----- the planner: its check races are pooled into one verdict ---------------------------------------------------
def test_the_planner_pools_its_races_and_never_recommends_a_non_measurement():
    from app.planner.check import CheckRun
    from app.planner.measure import ObservedAlpha
    from app.planner.plan import _recommend

    win, loaded = race(assisted_seconds=0.4, conditions=QUIET).verdict, race(conditions=LOADED).verdict
    assert pooled([win, win], 2.4).kind == "win" and pooled([win, loaded], 2.4).kind == "unmeasured"
    assert pooled([win, win], 1.01).kind == "level"
    observed = ObservedAlpha(None, None, 0, 0, 0, 0, 0.0, 1.0)

    def run(label: str, speedup: float, verdict: Verdict) -> CheckRun:
        return CheckRun({}, speedup, [speedup], 10.0, 10.0 * speedup, True, observed, None, label=label,
                        verdict=pooled([verdict], speedup))

    fast_but_loaded, default = run("constant gamma 8", 4.4, loaded), run("dynamic default", 1.6, win)
    text, pays = _recommend([fast_but_loaded, default], default)
    assert pays == "yes" and text.startswith("Use the dynamic default (dynamic default 1.60x)")
    assert "The constant gamma 8 races were not a measurement" in text
    text, pays = _recommend([fast_but_loaded], fast_but_loaded)
    assert pays == "unmeasured" and "No setting's races were a measurement" in text


# ----- measured, not assumed: the conditions come from the race itself -------------------------------------------
PROMPT = "The cat likes the dog and the dog likes the cat and the cat likes"


class FakeShares:
    """Stands in for app/race/_sides.py ``CpuShare``: each side measured gets the next share of `shares` (a busy
    machine injected as a measurement, the machine itself left alone)."""

    def __init__(self, shares: list[float]):
        self.shares = list(shares)

    def __call__(self, threads: int) -> "FakeShares":
        return self

    def share(self) -> float:
        return self.shares.pop(0)


def test_a_race_whose_plain_side_ran_under_load_is_not_a_measurement(tiny, cache, monkeypatch):
    from app.core.requests import RaceRequest
    from app.race import _sides
    from app.race.lifecycle import RaceRun
    from tests.helpers import OPERATOR

    preset = make_preset("prompt-lookup", tiny["llama_target"], prompt_lookup_num_tokens=3, max_new_tokens=16)
    request = RaceRequest(preset, PROMPT, limits=OPERATOR)
    monkeypatch.setattr(_sides, "CpuShare", FakeShares([0.3, 0.9]))  # plain, then assisted
    loaded = RaceRun(request, True, cache=cache).run()
    assert loaded.conditions == Conditions(CPU_SHARE, 0.3, 0.9)
    assert loaded.verdict.kind == "unmeasured" and "plain got 30% of the CPU it asked for" in loaded.verdict.reason
    assert loaded.to_dict()["verdict"]["conditions"]["baseline"] == 0.3
    assert "not a measurement" in finished_status(loaded) and "Not a measurement" in loaded.why.verdict
    monkeypatch.setattr(_sides, "CpuShare", FakeShares([0.9, 0.88]))
    even = RaceRun(request, True, cache=cache).run()
    assert "of the CPU it asked for" not in even.verdict.reason  # whatever else this busy test machine shows


def test_a_kept_plain_run_is_checked_after_the_race_never_before_the_first_assisted_token(tiny, cache, monkeypatch):
    """Page = command line: racing a kept plain run warms up the assisted side only, and times the plain probe
    after the assisted side, so nothing plain runs between the click and the first assisted token."""
    from app.core.requests import RaceRequest, WARMUP_TOKENS
    from app.race import _sides, trust
    from app.race.kept import KeptRuns
    from app.race.lifecycle import RaceRun
    from tests.helpers import OPERATOR

    monkeypatch.setattr(trust, "MIN_STALE", 1e6)  # any probe passes: the order is what is tested here
    monkeypatch.setattr(trust, "MAX_STALE", 1e6)
    preset = make_preset("prompt-lookup", tiny["llama_target"], prompt_lookup_num_tokens=3, max_new_tokens=16)
    request, kept_runs = RaceRequest(preset, PROMPT, limits=OPERATOR), KeptRuns()
    RaceRun(request, True, cache=cache, kept_runs=kept_runs).run()  # keeps its plain run
    calls, generate_call = [], _sides.generate_call  # what each generate() call of the workers is given

    def noted(setup, assisted, max_new_tokens=None, tokenizers=None):
        calls.append(("assisted" if assisted else "plain", max_new_tokens))
        return generate_call(setup, assisted, max_new_tokens, tokenizers)

    monkeypatch.setattr(_sides, "generate_call", noted)
    second = RaceRun(request, True, cache=cache, kept_runs=kept_runs).run()
    assert second.baseline_kept_at is not None and second.baseline_check["reused"]
    assert calls == [("assisted", WARMUP_TOKENS), ("assisted", None), ("plain", trust.PROBE_TOKENS + 1)]


def test_an_engine_race_loaded_during_its_plain_side_is_not_a_measurement(engine_pair):
    """llama.cpp's 7.61x 'win': plain timed while the machine was loaded, assisted once it was quiet. The plain probe
    after the assisted side shows it; the same race with no load is a measurement."""
    from app.engine.race import race_llamacpp
    from app.render.engine_panel import engine_why_html
    from tests.engine_fake import IDS

    assisted, plain = engine_pair
    quiet = race_llamacpp(assisted.url, plain.url, "hello", len(IDS))
    assert quiet.result.conditions.what == PLAIN_STEP and quiet.result.conditions.gap == 0
    assert quiet.result.verdict.measured
    assert [r for r in plain.requests if r == "POST /completion"] == ["POST /completion"] * 3  # warm-up, race, probe
    assert [r for r in assisted.requests if r == "POST /completion"] == ["POST /completion"] * 2  # warm-up, race
    serve = plain.llamacpp

    def loaded_once(out, body):  # the race's own plain request (the second since this race began) ran under load
        plain.predicted_ms = 300.0 if plain.streamed == 5 else 100.0
        serve(out, body)

    plain.llamacpp = loaded_once
    race = race_llamacpp(assisted.url, plain.url, "hello", len(IDS))
    verdict = race.result.verdict
    assert race.result.conditions == Conditions(PLAIN_STEP, 30.0, 10.0)
    assert verdict.kind == "unmeasured" and "changed between the sides" in verdict.reason
    assert "Not a measurement" in engine_why_html(race) and "not a measurement" in finished_status(race.result)
    assert race.to_dict()["verdict"]["kind"] == "unmeasured"
