"""The sampling check (docs/DESIGN.md §5.15) on tiny small-vocabulary models: every method that samples matches
plain sampling in distribution, and the check catches the lossy ensemble and a wrong acceptance rule.

Derandomised: every check has a fixed seed, so its samples and its p-values are the same on every run."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
import transformers.generation.utils as generation_utils
from transformers import PreTrainedTokenizerFast

from app.race import costs, drafting, hooks, sampling_check as check_module
from app.race.costs import VerifyCost
from app.race.sampling_check import (CheckSettings, Sampler, call_seeds, check_work_tokens, sampling_check,
                                   sampling_preset)
from app.race.prepare import prepare
from app.race.sampling_stats import compare
from tests import tiny_vocab
from tests.helpers import OPERATOR, make_preset

SETTINGS = CheckSettings(samples=400, tokens=3, seed=11)

# (case id, method, assistant, knobs): every sampling path of every lossless method, each schedule
LOSSLESS = [
    ("drafter", "drafter", "drafter", {"num_assistant_tokens": 3}),
    ("drafter-heuristic", "drafter", "drafter", {"num_assistant_tokens": 2, "num_assistant_tokens_schedule": "heuristic"}),
    ("drafter-heuristic-transient", "drafter", "drafter",
     {"num_assistant_tokens": 2, "num_assistant_tokens_schedule": "heuristic_transient"}),
    ("confidence-threshold", "drafter", "drafter", {"num_assistant_tokens": 4, "assistant_confidence_threshold": 0.5}),
    ("early-exit", "layerskip", None, {"assistant_early_exit": 2, "num_assistant_tokens": 3}),
    ("prompt-lookup", "prompt-lookup", None, {"prompt_lookup_num_tokens": 3, "max_matching_ngram_size": 1}),
    ("uad", "uad", "other_drafter", {"num_assistant_tokens": 3}),
    ("drafter-cost-aware", "drafter", "drafter", {"num_assistant_tokens": 3, "num_assistant_tokens_schedule": "cost-aware"}),
    ("early-exit-cost-aware", "layerskip", None,
     {"assistant_early_exit": 2, "num_assistant_tokens": 3, "num_assistant_tokens_schedule": "cost-aware"}),
    ("prompt-lookup-cost-aware", "prompt-lookup", None,
     {"prompt_lookup_num_tokens": 3, "max_matching_ngram_size": 1, "num_assistant_tokens_schedule": "cost-aware"}),
    ("uad-cost-aware", "uad", "other_drafter", {"num_assistant_tokens": 3, "num_assistant_tokens_schedule": "cost-aware"}),
]


@pytest.fixture(autouse=True)
def stable_vocab_order(monkeypatch):
    """A fast tokenizer's get_vocab() comes from a Rust hash map, in an order that changes with every process, and
    UAD's drafter samples over its vocabulary in that order: sort it by token text, so that UAD checks, too, draw the
    same samples on every run (the order stays unlike the ids', as in real use)."""
    original = PreTrainedTokenizerFast.get_vocab
    monkeypatch.setattr(PreTrainedTokenizerFast, "get_vocab", lambda self: dict(sorted(original(self).items())))


@pytest.fixture
def drafting_pays(monkeypatch):
    """Costs on which drafting pays when drafts are likely to be kept and not otherwise (a verification slope of 0.3
    steps a token, a draft 0.05 steps), so the cost-aware schedule both drafts and skips rounds on tiny models, whose
    measured costs say drafting never pays. The clock ticks 1 ms a reading, so the rounds' timings, and with them
    the schedule's choices and the check's samples, are the same on every run."""
    ticks = itertools.count()
    monkeypatch.setattr(costs, "CLOCK", lambda: next(ticks) * 0.001)
    real = check_module.calibrate
    monkeypatch.setattr(check_module, "calibrate",
                        lambda setup, threads: real(setup, threads) and VerifyCost(1.0, 0.3, 8))
    monkeypatch.setattr(drafting, "_draft_share_prior", lambda setup, cost, threads: 0.05)


def check(small, cache, method, assistant, knobs, settings=SETTINGS) -> dict:
    preset = make_preset(method, small["target"], small[assistant] if assistant else None, **knobs)
    return sampling_check(preset, tiny_vocab.PROMPT, OPERATOR, settings, cache).to_dict()


@pytest.mark.parametrize("case,method,assistant,knobs", LOSSLESS, ids=[c[0] for c in LOSSLESS])
def test_lossless_methods_sample_the_targets_distribution(small, cache, one_torch_thread, drafting_pays, case, method,
                                                          assistant, knobs):
    out = check(small, cache, method, assistant, knobs)
    assert out["verdict"] == "same", (case, out["tv_distance"], out["p_value"], out["joint"]["p_value"])
    assert out["verdict_text"] == "no difference found at 400 samples"
    # not vacuous: drafts were made, some accepted and some rejected, and the check could see a modest difference
    assert 0 < out["assisted_accepted"] < out["assisted_drafted"], out
    assert out["min_detectable_tv"] < 0.25
    if knobs.get("num_assistant_tokens_schedule") == "cost-aware":
        assert 0 < out["assisted_undrafted_rounds"] < out["assisted_rounds"]  # the schedule chose lengths, 0 too


# (case id, method, target, assistant, settings): methods whose drafter is built into the target's family, on the
# 320-token tiny models of tests/tiny_models.py (less power than the 16-word models; GLM's 46 layers are slow)
BUILT_IN = [
    ("gemma-drafter", "gemma-drafter", "gemma4_target", "gemma4_assistant", CheckSettings(400, 3, seed=11)),
    ("glm-mtp", "glm-mtp", "glm_mtp", None, CheckSettings(120, 3, seed=11)),
]


@pytest.mark.parametrize("case,method,target,assistant,settings", BUILT_IN, ids=[c[0] for c in BUILT_IN])
def test_built_in_drafters_sample_the_targets_distribution(tiny, cache, one_torch_thread, case, method, target,
                                                           assistant, settings):
    preset = make_preset(method, tiny[target], tiny[assistant] if assistant else None)
    out = sampling_check(preset, "The cat likes the dog and the dog likes", OPERATOR, settings, cache).to_dict()
    assert out["verdict"] == "same", (case, out["tv_distance"], out["p_value"])
    assert 0 < out["assisted_accepted"] < out["assisted_drafted"], out


def test_gemma4_greedy_drafts_tested_as_samples_are_caught_without_the_fix(tiny, cache, one_torch_thread, monkeypatch):
    """transformers 5.24.0 tests the Gemma 4 drafter's greedy drafts as if sampled (docs/DESIGN.md §7); hooks
    gives them no logits. Without that the check finds gemma-drafter lossy."""
    monkeypatch.setattr(hooks, "drop_greedy_draft_logits", lambda generator: None)
    preset = make_preset("gemma-drafter", tiny["gemma4_target"], tiny["gemma4_assistant"])
    out = sampling_check(preset, "The cat likes the dog and the dog likes", OPERATOR, BUILT_IN[0][4], cache).to_dict()
    assert out["verdict"] == "different"


def test_the_lossy_ensemble_is_caught(small, cache, one_torch_thread):
    out = check(small, cache, "ensemble", "drafter", {"num_assistant_tokens": 3, "assistant_ensemble_weight": 0.5})
    assert out["verdict"] == "different" and out["verdict_text"] == "different: this method is lossy"
    assert min(out["p_value"]) <= out["positions"][0]["level"]
    assert out["declared_lossless"] is False


def accept_every_draft(candidate_input_ids, candidate_logits, candidate_length, new_logits, **kwargs):
    """A wrong acceptance rule: keep every draft, then sample the bonus token from the target."""
    bonus = torch.multinomial(new_logits[0, candidate_length].softmax(-1), 1)[None, :]
    return torch.cat([candidate_input_ids[:, -candidate_length:], bonus], dim=-1), candidate_length


def test_a_wrong_acceptance_rule_is_caught(small, cache, one_torch_thread, monkeypatch):
    monkeypatch.setattr(generation_utils, "_speculative_sampling", accept_every_draft)
    out = check(small, cache, "drafter", "drafter", {"num_assistant_tokens": 3})
    assert out["assisted_accepted"] > 0.95 * out["assisted_drafted"] > 0  # accepted everything (but a cut last round)
    assert out["verdict"] == "different"
    assert out["p_value"][0] < 0.001 and out["tv_distance"][0] > out["min_detectable_tv_by_position"][0]


def test_transformers_uad_logit_order_is_caught_without_the_fix(small, cache, one_torch_thread, monkeypatch):
    """transformers 5.24.0 maps UAD's pruned drafter logits in the wrong order (docs/DESIGN.md §7); hooks fixes it.
    Without the fix the check finds UAD lossy."""
    monkeypatch.setattr(hooks, "fix_uad_logit_order", lambda generator: None)
    out = check(small, cache, "uad", "other_drafter", {"num_assistant_tokens": 3})
    assert out["verdict"] == "different"


def test_same_seed_same_result_and_work_estimate(small, cache, one_torch_thread):
    settings = CheckSettings(samples=60, tokens=2, seed=5, top_k=4)
    first = check(small, cache, "drafter", "drafter", {"num_assistant_tokens": 2}, settings)
    again = check(small, cache, "drafter", "drafter", {"num_assistant_tokens": 2}, settings)
    keys = ("tv_distance", "p_value", "min_detectable_tv", "joint", "positions", "verdict", "assisted_accepted")
    assert {k: first[k] for k in keys} == {k: again[k] for k in keys}
    assert first["top_k"] == 4 and first["samples"] == 60 and len(first["tv_distance"]) == 2
    assert len(first["positions"][0]["top"]) <= 4  # top-k 4: at most 4 words for the first token
    assert check_work_tokens(60, 2) == 240


def test_the_plain_side_samples_the_targets_exact_distribution(small, cache, one_torch_thread):
    """The reference side (batches over one shared reading of the prompt) draws the first token from the target's
    softmax, compared with draws from that softmax itself."""
    setup = prepare(sampling_preset(make_preset("drafter", small["target"], small["drafter"]), SETTINGS),
                    tiny_vocab.PROMPT, OPERATOR, cache)
    sampler = Sampler(setup, SETTINGS)
    with torch.inference_mode():
        probs = setup.target.model(setup.input_ids).logits[0, -1].double().softmax(-1).numpy()
        assert sampler.prompt_cache(setup.target.model) is not None
        plain = sampler.plain(call_seeds(3, 7, 0)[0])
    exact = np.random.default_rng(0).choice(len(probs), size=len(plain), p=probs / probs.sum()).tolist()
    assert len(plain) == SETTINGS.samples
    assert not compare("token 1", [s[0] for s in plain], exact, 0.01, (0, 0)).different
