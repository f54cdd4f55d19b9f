"""Measuring alpha and c: invariants on tiny models, then the real offline models end to end."""

from __future__ import annotations

import json
import math

import pytest

from app.core.presets import get_preset
from app.planner import measure, timing
from app.planner.kinds import draft_kind
from app.planner.check import modelled_speedup
from app.planner.plan import PlanOptions, plan_for_preset
from app.race.prepare import prepare
from app.race.protocol import Round

from tests.helpers import OPERATOR, make_preset

PROMPT = "The cat likes the dog and the dog likes"
SUMMARY = ("Summarise this text, reusing its words: The city council approved the new park plan on Monday. "
           "The park will have a playground, a small lake and a path for bicycles.")


pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module", autouse=True)
def leave_global_cache_as_found():
    """The real-model tests load through the process-wide cache; empty it again if it was empty before."""
    from app.core.loader import MODEL_CACHE

    was_empty = not MODEL_CACHE.loaded()
    yield
    if was_empty:
        MODEL_CACHE.clear()


def setup_for(cache, method, target, assistant=None, prompt=PROMPT, **knobs):
    return prepare(make_preset(method, target, assistant, max_new_tokens=16, **knobs), prompt, OPERATOR, cache=cache)


def agreement(setup, ref):
    """alpha by agreement on one prompt, counted the way the setup's method's kind counts it."""
    return draft_kind(setup.preset.method).agreement_alpha([setup], [ref])


def test_observed_alpha_counts_only_tested_tokens():
    rounds = [Round(4, 4), Round(4, 1), Round(0, 0), Round(3, 0)]
    obs = measure.observed_alpha(rounds)
    # tested: 4 (all passed, the 5th token is the bonus) + 2 (1 passed, 1 failed) + 1 (failed) = 7
    assert obs.value == pytest.approx(5 / 7) and obs.acceptance_rate == pytest.approx(5 / 11)
    assert (obs.rounds, obs.drafting_rounds, obs.mean_drafted) == (4, 3, 11 / 3)
    assert obs.mean_accepted_length == pytest.approx((5 + 4) / 4)
    assert measure.observed_alpha([]).value is None
    assert modelled_speedup([Round(4, 4)], 0.1) == pytest.approx(5 / 1.4)


def test_agreement_alpha_invariants_on_tiny_models(cache, tiny):
    same = setup_for(cache, "drafter", tiny["llama_target"], tiny["llama_drafter_same"])
    ref = measure.reference_tokens(same)
    assert len(ref) == 16
    assert agreement(same, ref).value == 1.0  # a copy of the target agrees everywhere
    drafter = setup_for(cache, "drafter", tiny["llama_target"], tiny["llama_drafter"])
    a = agreement(drafter, ref)
    assert 0.0 <= a.value <= 1.0 and a.space == "target tokens" and a.per_prompt[0]["positions"] == 16
    early = setup_for(cache, "layerskip", tiny["llama_target"], assistant_early_exit=2)
    e = agreement(early, ref)
    assert 0.0 < e.value < 1.0
    full = measure.teacher_forced(measure.exit_view(early.target.model, 4), early, ref)
    assert full == (16, 16)  # exiting after every layer is the target itself
    assert early.target.model.config.num_hidden_layers == 4  # the view left the cached model alone


def test_uad_agreement_alpha_is_counted_in_drafter_tokens(cache, tiny):
    uad = setup_for(cache, "uad", tiny["llama_target"], tiny["llama_other_tokenizer"], num_assistant_tokens=3)
    ref = measure.reference_tokens(uad)
    a = agreement(uad, ref)
    assert a.space == "drafter tokens" and 0.0 <= a.value <= 1.0 and a.per_prompt[0]["positions"] > 0


def test_lookup_agreement_on_copied_text(cache, tiny):
    setup = setup_for(cache, "prompt-lookup", tiny["llama_target"], prompt_lookup_num_tokens=4)
    copied = setup.input_ids[0].tolist()  # an output that repeats the prompt
    out = agreement(setup, copied)
    assert out.value > 0.8 and out.proposal_rate >= out.value  # repeated words make a few wrong guesses
    own = measure.lookup_alpha([setup], [measure.reference_tokens(setup)])
    assert 0.0 <= own.value <= own.proposal_rate <= 1.0


def test_c_and_verify_slope_on_tiny_models(cache, tiny):
    drafter = setup_for(cache, "drafter", tiny["llama_target"], tiny["llama_drafter"])
    ref = measure.reference_tokens(drafter)
    c = draft_kind(drafter.preset.method).measure_c(drafter, ref, repeats=3, steps=4)
    assert 0 < c.low <= c.value <= c.high < math.inf and len(c.samples) == 3
    assert c.draft_step_ms > 0 and c.target_step_ms > 0 and c.what == "drafter step / target step"
    lookup = setup_for(cache, "prompt-lookup", tiny["llama_target"], prompt_lookup_num_tokens=4)
    assert draft_kind(lookup.preset.method).measure_c(lookup, ref, repeats=3, steps=4).value > 0
    v = timing.timed_verify_slope(drafter, ref, repeats=3)
    assert v.value >= 0 and v.low <= v.high and v.tokens == 9


def test_methods_without_a_measurable_drafter_are_refused():
    with pytest.raises(Exception, match="calculator"):
        draft_kind("glm-mtp")


@pytest.mark.slow
@pytest.mark.parametrize("preset_id", ["offline-early-exit", "offline-prompt-lookup"])
def test_real_smollm2_measures_are_well_formed(preset_id):
    """alpha in [0, 1] and deterministic (identical twice); c positive and finite with its spread
    (how c compares between runs and methods is a timing: benchmarks/plan_offline.py prints it)."""
    preset = get_preset(preset_id).with_overrides(dict(max_new_tokens=16))
    setup = prepare(preset, SUMMARY, OPERATOR)
    ref = measure.reference_tokens(setup)
    alphas = [agreement(setup, ref).value for _ in range(2)]
    assert 0.0 <= alphas[0] <= 1.0 and alphas[0] == alphas[1]
    c = draft_kind(setup.preset.method).measure_c(setup, ref, repeats=3, steps=4)
    assert 0 < c.low <= c.value <= c.high < math.inf and len(c.samples) == 3


@pytest.mark.slow
def test_real_uad_plan_end_to_end(any_load):
    """Gemma-3-270M + SmolLM2-135M (different tokenizers): the whole measured plan on one short prompt."""
    preset = get_preset("offline-uad")
    plan = plan_for_preset(preset, [preset.example_prompts[0]], PlanOptions(max_new_tokens=12, repeats=3, steps=4,
                                                                                    limits=OPERATOR))
    plan = json.loads(json.dumps(plan.to_dict()))
    m = plan["measurement"]
    assert m["alpha_seed"]["space"] == "drafter tokens" and 0 <= m["alpha_seed"]["value"] <= 1
    assert 0 <= plan["alpha"] <= 1 and plan["alpha_source"].startswith("observed")
    assert 0 < m["c"]["low"] <= m["c"]["value"] <= m["c"]["high"] and m["c"]["c_retokenize"] >= 0
    assert 1 <= plan["best_gamma"] <= 20 and len(plan["speedup_by_gamma"]) == 20
    check = plan["check"]
    assert check["constant"]["gamma"] == plan["best_gamma"] and check["constant"]["identical"]
    assert check["default"]["identical"] and check["default"]["measured_speedup"] > 0
    assert check["recommendation"] and m["alpha_observed"]["drafted"] > 0
    assert plan["vocabulary"]["identical"] is False
    assert plan["memory"]["target"]["kv_kib_per_token"] == 18 and plan["memory"]["drafter"]["kv_kib_per_token"] == 22.5
    assert plan["memory"]["target"]["sliding_layers"] == 15
    assert any("uad" in line for line in plan["advice"])
    adjusted_differs = plan["hardware_adjusted"]["best_gamma"] != plan["best_gamma"]  # depends on this machine's slope
    assert len(plan["measured_points"]) == (3 if adjusted_differs else 2)
    assert plan["hardware_adjusted"]["c_effective"] >= plan["c"]


def test_each_method_is_measured_by_the_kind_its_class_says():
    """The method classes' attributes pick the kind (app/planner/kinds.py), not the method ids."""
    from app.planner.kinds import EarlyExitDrafts, LookupDrafts, ModelDrafts, TranslatedDrafts
    from app.race.methods import METHODS

    expected = {"drafter": ModelDrafts, "ensemble": ModelDrafts, "prompt-lookup": LookupDrafts,
                "layerskip": EarlyExitDrafts, "uad": TranslatedDrafts}
    for method_id in METHODS:
        if method_id in expected:
            assert type(draft_kind(method_id)) is expected[method_id], method_id
        else:  # glm-mtp, gemma-drafter: drafts from the target's hidden states
            with pytest.raises(Exception, match="The planner measures drafter, prompt-lookup, layerskip, uad, ensemble"):
                draft_kind(method_id)
    assert draft_kind("prompt-lookup").constant_knobs(4) == {"prompt_lookup_num_tokens": 4}
    assert draft_kind("layerskip").constant_knobs(3) == {"num_assistant_tokens": 3, "num_assistant_tokens_schedule":
                                                         "constant", "assistant_confidence_threshold": 0.0}
    label, knobs, gamma = draft_kind("prompt-lookup").default_setting(make_preset("prompt-lookup", "x",
                                                                                  prompt_lookup_num_tokens=7))
    assert (label, knobs, gamma) == ("preset setting (prompt_lookup_num_tokens=7)", {}, 7)
    assert draft_kind("uad").observes_alpha and not draft_kind("drafter").observes_alpha
