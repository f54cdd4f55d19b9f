"""Numbers a newcomer can trust (docs/DESIGN.md §5.16): a kept plain run recorded under load is not reused once the
load is gone, a speedup the race's rounds cannot explain is not a measurement, and a gap inside the noise (or a race
that drafted nothing) reads as level, in the same words on the page and the CLI."""

from __future__ import annotations

import dataclasses

from app.race import trust
from app.race.kept import KeptRuns
from app.race.lifecycle import RaceRun
from app.race.protocol import Round
from app.race.result import AssistedResult, RaceResult, SideResult
from app.race.trust import KeptCheck, check_kept, noise_band, steps, unexplained
from app.race.verdict import judge as verdict
from app.render.why_panel import speedup_words
from app.cli.race_text import stats_line
from app.core.requests import RaceRequest
from app.ui.race.handlers import finished_status

from tests.helpers import OPERATOR, make_preset

PROMPT = "The cat likes the dog and the dog likes the cat and the cat likes"


def clock(step: float, n: int = 20, first: float = 0.3) -> list[float]:
    """Token times of a plain run: the first token after `first` s, then one every `step` s."""
    return [first + step * i for i in range(n)]


def result(plain_step: float, verify: float, drafted: int = 3, assisted_seconds: float | None = None,
           mode: str = "sequential", jitter: float = 0.0) -> RaceResult:
    """A 20-token race: plain steps `plain_step` s (alternating ±jitter), 10 rounds that each verify in `verify` s."""
    times, t = [], 0.3
    for i in range(20):
        times.append(t)
        t += plain_step * (1 + (jitter if i % 2 else -jitter))
    rounds = [Round(drafted, min(1, drafted), "", 0.001, verify) for _ in range(10)]
    seconds = assisted_seconds if assisted_seconds is not None else 10 * verify
    return RaceResult("p", "prompt-lookup", "t", None, mode, False, "cpu",
                      SideResult("b", list(range(20)), times[-1], 0.3, times),
                      AssistedResult("a", list(range(20)), seconds, 0.3, [0.3 + verify * (i // 2) for i in range(20)],
                                     rounds=rounds))


def test_a_kept_run_is_reused_only_while_plain_steps_take_what_they_took():
    same = check_kept(clock(0.05), clock(0.051, 13), age=30)
    assert same.reused and "as when its run was kept" in same.reason
    loaded = check_kept(clock(0.59), clock(0.055, 13), age=30)  # kept at 1.7 tok/s under load, quiet now
    assert not loaded.reused and "times plain again" in loaded.reason and "-91%" in loaded.reason
    old = check_kept(clock(0.05), clock(0.05, 13), age=trust.MAX_KEPT_AGE + 1)
    assert not old.reused and "min old" in old.reason
    assert not check_kept(clock(0.05), [0.3, 0.35], age=1).reused  # too few steps to tell
    assert KeptCheck(True, "x", 0.05, 0.051).to_dict()["now_step_ms"] == 51.0


def test_a_noisy_probe_widens_what_counts_as_the_same_up_to_the_stated_limit():
    wobbly = [0.3 + sum(0.05 * (1.05 if i % 2 else 0.97) for i in range(k)) for k in range(13)]
    widened = check_kept(clock(0.06), wobbly, age=10)
    assert trust.MIN_STALE <= widened.noise <= trust.MAX_STALE == trust.MEASURE_LIMIT
    noisy = [0.3 + sum(0.05 * (1.5 if i % 2 else 0.6) for i in range(k)) for k in range(13)]  # +-76 % was seen
    busy = check_kept(clock(0.05), noisy, age=10)
    assert not busy.reused and "too busy" in busy.reason and busy.noise > trust.MEASURE_LIMIT


def test_a_speedup_its_rounds_cannot_explain_is_not_a_measurement():
    false = result(plain_step=0.59, verify=0.06)  # the 10.40x: plain under load, assisted quiet
    assert unexplained(false) and verdict(false).kind == "unmeasured"
    words, kind = speedup_words(false.verdict)
    assert kind == "unmeasured" and "not a measurement" in words
    assert "not a measurement" in stats_line(false) and "status-loss" in finished_status(false)
    assert false.to_dict()["verdict"]["kind"] == "unmeasured"
    fine = result(plain_step=0.05, verify=0.06)
    assert unexplained(fine) is None and verdict(fine).kind == "win"
    assert unexplained(dataclasses.replace(false, mode="concurrent")) is None  # a show claims no measurement anyway
    assert verdict(dataclasses.replace(false, mode="concurrent")).kind == "unmeasured"


def test_level_means_level():
    nothing = result(plain_step=0.05, verify=0.05, drafted=0, assisted_seconds=1.6)  # 0.78x, no draft at all
    assert nothing.speedup < 0.9 and verdict(nothing).kind == "level" and "nothing was drafted" in verdict(nothing).reason
    assert "level with plain" in finished_status(nothing) and "slower" not in finished_status(nothing)
    assert "(level: nothing was drafted" in stats_line(nothing)
    close = result(plain_step=0.05, verify=0.05, assisted_seconds=1.3, jitter=0.2)  # 0.96x
    band = noise_band(close)
    assert band > trust.EVEN_BAND and abs(close.speedup - 1) <= band and verdict(close).kind == "level"
    assert "within this race's noise" in verdict(close).reason
    assert noise_band(result(0.05, 0.05)) == trust.EVEN_BAND and steps([0.1, 0.1, 0.3]) == [pytest_approx(0.2)]


def pytest_approx(x):
    import pytest

    return pytest.approx(x)


def test_a_kept_run_recorded_under_load_is_not_reused_once_the_load_is_gone(tiny, cache):
    """The first fair race keeps its plain run; that run is then made to look as if the machine had been loaded (every
    step 10x slower); the next fair race races it, checks plain after its assisted side, finds the kept run stale:
    that race is no measurement and the kept run is dropped, so the race after it times plain again."""
    preset = make_preset("prompt-lookup", tiny["llama_target"], prompt_lookup_num_tokens=3, max_new_tokens=24)
    request = RaceRequest(preset, PROMPT, limits=OPERATOR)
    kept_runs = KeptRuns()
    first = RaceRun(request, True, cache=cache, kept_runs=kept_runs).run()
    assert first.baseline_kept_at is None and first.baseline_check is None
    ((key, kept),) = list(kept_runs._runs.items())
    slow = [kept.token_times[0] + 10 * (t - kept.token_times[0]) for t in kept.token_times]
    kept_runs.put(key, dataclasses.replace(kept, token_times=tuple(slow), seconds=kept.seconds * 10))
    second = RaceRun(request, True, cache=cache, kept_runs=kept_runs).run()
    assert second.baseline_check["reused"] is False
    assert "times plain again" in second.baseline_check["reason"]
    assert second.baseline.token_ids == first.baseline.token_ids and second.identical
    # raced against the stale run (the check comes after the race), so it is no measurement, and the run is dropped
    assert second.baseline_kept_at is not None and second.verdict.kind == "unmeasured"
    assert "not a measurement" in finished_status(second) and not kept_runs._runs
    third = RaceRun(request, True, cache=cache, kept_runs=kept_runs).run()  # times plain again, and keeps that run
    assert third.baseline_kept_at is None and third.baseline_check is None
    ((_, fresh),) = list(kept_runs._runs.items())
    assert fresh.token_times != tuple(slow)


# ----- the planner's one verdict -------------------------------------------------------------------------------------
def test_the_planner_says_one_verdict_the_measured_one():
    from app.core.theory import verdict as theory
    from app.planner.plan import final_verdict, plan_from_numbers, projection_note
    from app.planner.types import TheoryVerdict
    from app.render.plan import cost_html, headline_html

    plan = plan_from_numbers(0.55, 0.5)  # in theory alpha exceeds c: 1.01x
    assert plan.final.source == "predicted" and plan.final.pays == "yes"
    plan.final = final_verdict(plan.verdict, ("no", "Use neither: plain generate() was faster (a 0.83x, b 0.58x)."))
    html = headline_html(plan)
    assert html.count('class="plan-verdict ') == 1 and "plan-verdict-no" in html and "Keep it off" in html
    assert "measured on your prompts" in html and "The prediction from alpha and c said" in html
    close = theory(0.3, 0.32, c_spread=(0.2, 0.5))
    assert close["close"] and "too close to call" in close["text"]
    assert final_verdict(TheoryVerdict(**close)).pays == "close"
    assert not theory(0.8, 0.05, c_spread=(0.04, 0.06))["close"]
    assert projection_note("cuda:0") is None and "measured on cpu" in projection_note("cpu")
    plan.cost.projection = projection_note("cpu")
    assert "Projected cost" in cost_html(plan) and "a projection" in cost_html(plan)
