"""The benchmark runner on fakes and a fake clock (medians, spread, stop, errors, sweep) and on tiny real models
(every cell filled, identical flags, acceptance by position adding up to the traced rounds)."""

from __future__ import annotations

import statistics
import threading

import pytest

from app.bench.runner import Bench, BenchPlan, PresetRacer
from app.bench.stats import cells, geometric_mean, overall
from app.race.stats import accepted_histogram, position_counts
from app.bench.suite import SuitePrompt
from app.bench.sweep import parse_sweep
from app.core.errors import ArenaError
from app.core.loader import ModelCache
from app.core.theory import predicted_speedup
from tests.fakes import PROMPTS, ROUNDS, FakeClock, fake_result, lookup_preset  # noqa: F401 (shared)
from tests.helpers import make_preset

def test_medians_and_spread_on_a_fake_clock():
    clock, seen = FakeClock(), []
    seconds = {("s1", 1): 0.5, ("s1", 2): 0.25, ("s1", 3): 0.4, ("s2", 1): 2.0, ("s2", 2): 0.8, ("s2", 3): 1.0,
               ("q1", 1): 1.25, ("q1", 2): 1.6, ("q1", 3): 2.0}
    calls = {}

    def race_fn(preset, prompt, stop):
        pid = next(p.id for p in PROMPTS if p.prompt == prompt)
        calls[pid] = calls.get(pid, 0) + 1
        clock.now += 3.0  # every race takes 3 s of the fake clock
        return fake_result(preset, seconds[(pid, calls[pid])], ROUNDS)

    bench = Bench(BenchPlan([lookup_preset()], PROMPTS, repeats=3, warm_up=False), race_fn, clock, seen.append)
    rows = bench.run()
    assert len(rows) == 9 and all(r["wall_seconds"] == 3.0 for r in rows)
    by_cat = {c["category"]: c for c in cells(rows)}
    summ = [8 / 0.5 / 8, 8 / 0.25 / 8, 8 / 0.4 / 8, 8 / 2.0 / 8, 8 / 0.8 / 8, 8 / 1.0 / 8]  # speedup = 1 s / assisted s
    assert by_cat["summarisation"]["speedup_median"] == pytest.approx(statistics.median(summ), abs=1e-3)
    assert by_cat["summarisation"]["speedup_min"] == pytest.approx(0.5) and by_cat["summarisation"]["speedup_max"] == 4.0
    assert by_cat["qa"]["speedup_median"] == pytest.approx(0.625, abs=1e-3) and by_cat["qa"]["loss"]
    assert (by_cat["summarisation"]["runs"], by_cat["summarisation"]["prompts"]) == (6, 2)
    geo = overall(rows)[0]["speedup_geomean"]
    assert geo == pytest.approx(geometric_mean([by_cat["summarisation"]["speedup_median"], 0.625]), abs=1e-3)
    runs = [p for p in seen if p.phase == "run"]
    assert [p.done for p in runs] == list(range(9)) and runs[0].eta is None
    assert runs[3].elapsed == 9.0 and runs[3].eta == pytest.approx(9.0 / 3 * 6)
    assert seen[-1].phase == "done" and seen[-1].done == 9


def test_best_is_marked_per_category_and_losses_flagged():
    clock = FakeClock()
    fast, slow = lookup_preset(), lookup_preset().with_overrides({"id": "slow"})
    speed = {fast.id: {"summarisation": 0.5, "qa": 2.0}, "slow": {"summarisation": 0.8, "qa": 1.0}}

    def race_fn(preset, prompt, stop):
        category = next(p.category for p in PROMPTS if p.prompt == prompt)
        return fake_result(preset, speed[preset.id][category], ROUNDS)

    rows = Bench(BenchPlan([fast, slow], PROMPTS, warm_up=False), race_fn, clock).run()
    table = {(c["preset"], c["category"]): c for c in cells(rows)}
    assert table[(fast.id, "summarisation")]["best"] and not table[("slow", "summarisation")]["best"]
    assert table[("slow", "qa")]["best"] and table[(fast.id, "qa")]["loss"]
    assert not table[("slow", "qa")]["loss"]  # exactly 1x is not a loss


def test_identical_flags_and_first_divergence():
    def race_fn(preset, prompt, stop):
        return fake_result(preset, 0.5, ROUNDS, diverge_at=5 if "sky" in prompt else None)

    rows = Bench(BenchPlan([lookup_preset()], PROMPTS, warm_up=False), race_fn, FakeClock()).run()
    flags = {r["prompt_id"]: (r["identical"], r["first_divergence"]) for r in rows}
    assert flags == {"s1": (True, None), "s2": (True, None), "q1": (False, 5)}
    assert {c["category"]: c["identical_runs"] for c in cells(rows)} == {"summarisation": 2, "qa": 0}


def test_stop_keeps_finished_races_and_drops_the_stopped_one():
    holder: dict = {}

    def race_fn(preset, prompt, stop):
        holder["n"] = holder.get("n", 0) + 1
        if holder["n"] == 3:
            holder["bench"].stop()
            return fake_result(preset, 0.5, ROUNDS[:1], stopped=True)
        return fake_result(preset, 0.5, ROUNDS)

    bench = holder["bench"] = Bench(BenchPlan([lookup_preset()], PROMPTS, repeats=2, warm_up=False), race_fn,
                                    FakeClock())
    rows = bench.run()
    assert bench.stopped and len(rows) == 2 and holder["n"] == 3
    assert [r["prompt_id"] for r in rows] == ["s1", "s2"]


def test_a_failed_race_is_an_error_naming_preset_and_prompt_not_a_row():
    def race_fn(preset, prompt, stop):
        if "sky" in prompt:
            return fake_result(preset, 0.5, ROUNDS, errors={"assisted": "Out of memory"})
        return fake_result(preset, 0.5, ROUNDS)

    bench = Bench(BenchPlan([lookup_preset()], PROMPTS, warm_up=False), race_fn, FakeClock())
    with pytest.raises(ArenaError, match="test-prompt-lookup on prompt q1: the assisted run failed: Out of memory"):
        bench.run()
    assert [r["prompt_id"] for r in bench.rows] == ["s1", "s2"]


def test_warm_up_runs_once_per_preset_with_few_tokens():
    seen = []

    def race_fn(preset, prompt, stop):
        seen.append((preset.id, preset.max_new_tokens))
        return fake_result(preset, 0.5, ROUNDS)

    other = lookup_preset().with_overrides({"id": "other"})
    rows = Bench(BenchPlan([lookup_preset(), other], PROMPTS[:2], max_new_tokens=20), race_fn, FakeClock()).run()
    assert len(rows) == 4
    assert seen == [("test-prompt-lookup", 8), ("test-prompt-lookup", 20), ("test-prompt-lookup", 20),
                    ("other", 8), ("other", 20), ("other", 20)]


def test_sweep_rows_carry_the_value_and_theorem_3_8_at_that_gamma():
    values = []

    def race_fn(preset, prompt, stop):
        values.append(preset.prompt_lookup_num_tokens)
        return fake_result(preset, 0.5, ROUNDS)

    plan = BenchPlan([lookup_preset()], PROMPTS[:1], sweep=parse_sweep("prompt-lookup-num-tokens=2..4"), warm_up=False)
    rows = Bench(plan, race_fn, FakeClock()).run()
    assert values == [2, 3, 4] and [r["sweep_value"] for r in rows] == [2, 3, 4]
    why = fake_result(lookup_preset(), 0.5, ROUNDS).why
    for row in rows:
        expected = predicted_speedup(why.alpha, why.cost_ratio + why.verify_slope, row["sweep_value"])
        assert row["sweep_knob"] == "prompt_lookup_num_tokens"
        assert row["predicted_speedup"] == pytest.approx(expected, abs=1e-4)


@pytest.mark.parametrize("text, needle", [
    ("num_assistant_tokens", "must look like KNOB=LO..HI"),
    ("temperature=1..2", "cannot vary 'temperature'"),
    ("prompt_lookup_num_tokens=0..3", "--prompt-lookup-num-tokens must be between 1 and 64"),
    ("prompt_lookup_num_tokens=5..2", "the range must go up"),
    ("assistant_early_exit=1..100", "at most 32"),
])
def test_bad_sweeps_are_one_line(text, needle):
    with pytest.raises(ArenaError, match=needle):
        parse_sweep(text)


def test_sweep_of_a_knob_the_method_does_not_take_fails_before_any_race():
    plan = BenchPlan([lookup_preset()], PROMPTS, sweep=parse_sweep("num_assistant_tokens=1..3"))
    with pytest.raises(ArenaError, match="prompt-lookup method, which does not take it; it belongs to drafter"):
        Bench(plan, lambda *a: pytest.fail("no race may start"), FakeClock())


def test_histogram_and_positions_of_known_rounds():
    drafted, accepted = position_counts(ROUNDS)
    assert (drafted, accepted) == ([3, 3, 2, 1], [2, 1, 0, 0])
    assert accepted_histogram(ROUNDS) == [1, 1, 1]  # one round accepted 0, one 1, one 2; the undrafted one is left out


# ----- tiny real models --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def tiny_racer():
    from app.core.requests import Limits

    return PresetRacer(Limits.operator(), cache=ModelCache())


def test_tiny_models_every_cell_identical_and_positions_add_up(tiny, tiny_racer, one_torch_thread):
    results = []

    def race_fn(preset, prompt, stop):
        results.append(tiny_racer(preset, prompt, stop))
        return results[-1]

    drafter = make_preset("drafter", tiny["llama_target"], tiny["llama_drafter"], num_assistant_tokens=3)
    lookup = make_preset("prompt-lookup", tiny["llama_target"], prompt_lookup_num_tokens=3)
    prompts = [SuitePrompt("a", "The cat likes the dog and the dog likes the cat", "copy"),
               SuitePrompt("b", "One two three one two three one two", "copy"),
               SuitePrompt("c", "Why is the sky blue", "open")]
    bench = Bench(BenchPlan([drafter, lookup], prompts, repeats=2, max_new_tokens=12), race_fn)
    rows = bench.run()
    assert len(rows) == 2 * 3 * 2 and len(results) == len(rows) + 2  # plus one warm-up per preset
    assert {(c["preset"], c["category"]) for c in cells(rows)} == {(p, c) for p in ("test-drafter", "test-prompt-lookup")
                                                                    for c in ("copy", "open")}
    assert all(r["identical"] and r["first_divergence"] is None for r in rows)
    for preset in ("test-drafter", "test-prompt-lookup"):  # both methods really drafted, so the sums below mean something
        assert sum(sum(r["drafted_by_position"]) for r in rows if r["preset"] == preset) > 0
    timed = results[1:7] + results[8:]  # without the two warm-ups
    for row, result in zip(rows, timed):
        rounds = result.assisted.rounds
        assert sum(row["drafted_by_position"]) == sum(r.drafted for r in rounds)
        assert sum(row["accepted_by_position"]) == sum(r.accepted for r in rounds)
        assert row["acceptance_by_position"] == [round(x, 4) for x in result.assisted.acceptance_by_position]
        hist = row["accepted_histogram"]
        assert sum(hist) + row["undrafted_rounds"] == row["rounds"] == len(rounds)
        assert sum(n * count for n, count in enumerate(hist)) == sum(r.accepted for r in rounds)
    assert tiny_racer.dtypes["test-drafter"] == "float32"


def test_tiny_models_stop_event_reaches_the_race(tiny, tiny_racer, one_torch_thread):
    holder: dict = {}

    def race_fn(preset, prompt, stop):
        if holder.get("started"):
            holder["bench"].stop()  # set before the second race starts: it must end at once and be dropped
        holder["started"] = True
        return tiny_racer(preset, prompt, stop)

    preset = make_preset("drafter", tiny["llama_target"], tiny["llama_drafter"], num_assistant_tokens=3)
    prompts = [SuitePrompt("a", "The cat likes the dog", "x"), SuitePrompt("b", "The dog likes the cat", "x")]
    bench = holder["bench"] = Bench(BenchPlan([preset], prompts, max_new_tokens=200, warm_up=False), race_fn)
    rows = bench.run()
    assert bench.stopped and [r["prompt_id"] for r in rows] == ["a"]
    assert isinstance(bench.stop_event, threading.Event) and bench.stop_event.is_set()
