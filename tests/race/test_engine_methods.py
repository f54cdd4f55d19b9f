"""Every method through the engine on tiny random models: lossless output and traced statuses add up."""

from __future__ import annotations

import pytest
import torch

from app.core.loader import ModelCache
from app.core.requests import RaceRequest
from app.race.lifecycle import RaceRun
from app.race.prepare import generate_call, prepare
from app.race.protocol import Status

from tests.helpers import OPERATOR, make_preset

PROMPT = "The cat likes the dog and the dog likes"

# (case id, method, target folder, assistant folder, knobs)
LOSSLESS = [
    ("drafter", "drafter", "llama_target", "llama_drafter", {"num_assistant_tokens": 4}),
    ("drafter-heuristic", "drafter", "llama_target", "llama_drafter",
     {"num_assistant_tokens": 3, "num_assistant_tokens_schedule": "heuristic"}),
    ("drafter-same", "drafter", "llama_target", "llama_drafter_same", {"num_assistant_tokens": 5}),
    ("prompt-lookup", "prompt-lookup", "gemma4_target", None, {"prompt_lookup_num_tokens": 3}),
    ("prompt-lookup-llama", "prompt-lookup", "llama_target", None, {"prompt_lookup_num_tokens": 3}),
    ("layerskip", "layerskip", "llama_target", None, {"assistant_early_exit": 2, "num_assistant_tokens": 3}),
    ("glm-mtp", "glm-mtp", "glm_mtp", None, {}),
    ("gemma-drafter", "gemma-drafter", "gemma4_target", "gemma4_assistant", {}),
    ("uad", "uad", "llama_target", "llama_other_tokenizer", {"num_assistant_tokens": 3}),
    # the cost-aware schedule (this app's) chooses each round's length; the output must not change
    ("drafter-cost-aware", "drafter", "llama_target", "llama_drafter",
     {"num_assistant_tokens": 6, "num_assistant_tokens_schedule": "cost-aware"}),
    ("drafter-same-cost-aware", "drafter", "llama_target", "llama_drafter_same",
     {"num_assistant_tokens": 6, "num_assistant_tokens_schedule": "cost-aware"}),
    ("prompt-lookup-cost-aware", "prompt-lookup", "llama_target", None,
     {"prompt_lookup_num_tokens": 6, "num_assistant_tokens_schedule": "cost-aware"}),
    ("layerskip-cost-aware", "layerskip", "llama_target", None,
     {"assistant_early_exit": 2, "num_assistant_tokens": 4, "num_assistant_tokens_schedule": "cost-aware"}),
    ("uad-cost-aware", "uad", "llama_target", "llama_other_tokenizer",
     {"num_assistant_tokens": 4, "num_assistant_tokens_schedule": "cost-aware"}),
]


def race_of(preset, cache, sequential: bool = False, seed: int | None = None) -> RaceRun:
    return RaceRun(RaceRequest(preset, PROMPT, seed, OPERATOR), sequential, cache=cache)


def plain_greedy(setup) -> list[int]:
    """A plain generate() on the cached target, outside any race."""
    model, kwargs = generate_call(setup, assisted=False)
    with torch.inference_mode():
        out = model.generate(**kwargs)
    return out[0, setup.input_ids.shape[1]:].tolist()


def check_trace(assisted: dict) -> None:
    """The statuses, rounds, timings and acceptance by position of an assisted side add up (docs/DESIGN.md §3)."""
    tokens, rounds = assisted["tokens"], assisted["rounds"]
    assert len(tokens) == assisted["new_tokens"] == len(assisted["token_ids"]) == len(assisted["token_times"])
    assert [t["id"] for t in tokens] == assisted["token_ids"]
    assert sum(t["status"] == Status.ACCEPTED for t in tokens) == sum(r["accepted"] for r in rounds)
    assert all(r["draft_seconds"] >= 0 and r["verify_seconds"] > 0 for r in rounds)
    assert all(t["p_target"] is None or 0 <= t["p_target"] <= 1 for t in tokens)
    for k, share in enumerate(assisted["acceptance_by_position"]):
        drafted = sum(r["drafted"] > k for r in rounds)
        assert share == pytest.approx(sum(r["accepted"] > k for r in rounds) / drafted, abs=1e-4)
    pos = 0
    for i, r in enumerate(rounds):
        # the last round may be cut at the length limit with every kept token a verified draft
        cut = i == len(rounds) - 1 and r["accepted"] and pos + r["accepted"] == len(tokens)
        chunk = [t["status"] for t in tokens[pos:pos + r["accepted"] + (0 if cut else 1)]]
        if cut:
            assert chunk == [Status.ACCEPTED] * r["accepted"]
            pos += r["accepted"]
            continue
        assert chunk[:-1] == [Status.ACCEPTED] * r["accepted"]
        if r["drafted"] == 0:
            assert chunk[-1] == Status.TARGET and r["accepted"] == 0
        elif r["accepted"] == r["drafted"]:
            assert chunk[-1] == Status.BONUS and r["rejected_text"] == ""
        else:
            assert chunk[-1] == Status.RESAMPLED
            assert r["accepted"] < r["drafted"]
        pos += r["accepted"] + 1
    assert pos == len(tokens)


@pytest.mark.parametrize("case,method,target,assistant,knobs", LOSSLESS, ids=[c[0] for c in LOSSLESS])
@pytest.mark.parametrize("sequential", [False, True], ids=["concurrent", "sequential"])
def test_greedy_assisted_equals_baseline(tiny, cache, case, method, target, assistant, knobs, sequential):
    preset = make_preset(method, tiny[target], tiny[assistant] if assistant else None, **knobs)
    run = race_of(preset, cache, sequential)
    result = run.run().to_dict()
    assert "errors" not in result, result.get("errors")
    base, asst = result["baseline"], result["assisted"]
    assert base["new_tokens"] == 24
    assert asst["token_ids"] == base["token_ids"], f"{case}: assisted output differs from baseline"
    assert result["identical"] is True and result["first_divergence"] is None
    # The baseline of a race is exactly a plain greedy run (early exit must not truncate it).
    assert base["token_ids"] == plain_greedy(run.setup)
    check_trace(asst)
    assert all(t["status"] == Status.TARGET for t in result["baseline"].get("tokens", [])), "baseline has no drafts"
    assert result["mode"] == ("sequential" if sequential else "concurrent")


def test_drafter_same_weights_accepts_everything(tiny, cache):
    preset = make_preset("drafter", tiny["llama_target"], tiny["llama_drafter_same"], num_assistant_tokens=5,
                         assistant_confidence_threshold=0.0)  # 0 disables the early stop of drafting
    result = race_of(preset, cache).run().to_dict()
    asst = result["assisted"]
    statuses = {t["status"] for t in asst["tokens"]}
    assert Status.RESAMPLED not in statuses and Status.BONUS in statuses
    assert asst["acceptance_rate"] == 1.0
    assert asst["mean_accepted_length"] > 4


def test_real_drafter_has_rejections_with_text(tiny, cache):
    preset = make_preset("drafter", tiny["llama_target"], tiny["llama_drafter"], num_assistant_tokens=4)
    asst = race_of(preset, cache).run().to_dict()["assisted"]
    rejected = [r for r in asst["rounds"] if r["accepted"] < r["drafted"]]
    assert rejected and all(r["rejected_text"] for r in rejected)
    assert 0.0 < asst["acceptance_rate"] < 1.0


def test_ensemble_runs_and_is_allowed_to_diverge(tiny, cache):
    preset = make_preset("ensemble", tiny["llama_target"], tiny["llama_drafter"], assistant_ensemble_weight=0.5,
                         num_assistant_tokens=4)
    result = race_of(preset, cache, True).run().to_dict()
    assert "errors" not in result
    check_trace(result["assisted"])
    assert result["assisted"]["new_tokens"] == 24


SAMPLING = [c for c in LOSSLESS if c[0] in ("drafter", "prompt-lookup", "uad", "glm-mtp")]


@pytest.mark.parametrize("case,method,target,assistant,knobs", SAMPLING, ids=[c[0] for c in SAMPLING])
def test_sampling_trace_adds_up(tiny, cache, case, method, target, assistant, knobs):
    preset = make_preset(method, tiny[target], tiny[assistant] if assistant else None, do_sample=True,
                         temperature=0.8, top_p=0.95, **knobs)
    result = race_of(preset, cache, True, seed=3).run().to_dict()
    assert "errors" not in result, result.get("errors")
    assert result["do_sample"] is True
    check_trace(result["assisted"])


def test_sequential_sampling_is_reproducible_with_seed(tiny, cache):
    preset = make_preset("drafter", tiny["llama_target"], tiny["llama_drafter"], do_sample=True,
                         num_assistant_tokens=4)
    first = race_of(preset, cache, True, seed=11).run().to_dict()
    second = race_of(preset, cache, True, seed=11).run().to_dict()
    assert first["assisted"]["token_ids"] == second["assisted"]["token_ids"]
    assert first["baseline"]["token_ids"] == second["baseline"]["token_ids"]


def test_models_are_loaded_once(tiny):
    cache = ModelCache()
    preset = make_preset("drafter", tiny["llama_target"], tiny["llama_drafter"], num_assistant_tokens=2)
    prepare(preset, PROMPT, OPERATOR, cache=cache)
    prepare(preset, "another prompt", OPERATOR, cache=cache)
    assert cache.load_count == 2  # target + drafter, each once


@pytest.mark.parametrize("sequential", [False, True], ids=["concurrent", "sequential"])
@pytest.mark.parametrize("method,assistant,knobs", [
    ("layerskip", None, {"assistant_early_exit": 2, "num_assistant_tokens": 4}),
    ("uad", "llama_other_tokenizer", {"num_assistant_tokens": 4}),
], ids=["layerskip", "uad"])
def test_a_schedule_that_knows_drafting_cannot_pay_decodes_plainly(tiny, cache, monkeypatch, method, assistant, knobs,
                                                                   sequential):
    """Drafting nothing costs nothing: no assisted loop runs, every token is a round that drafted nothing."""
    from app.race import _sides, drafting

    def hopeless_policies(setup, cost, threads=None):  # a drafter as slow as the target: no draft can pay
        return lambda: drafting.CostAwarePolicy(4, 0.05, 0.1, draft_per_token=0.05)

    built = []
    original = drafting.CostAwarePolicy.draft_length
    monkeypatch.setattr(_sides, "policy_factory", hopeless_policies)
    monkeypatch.setattr(drafting.CostAwarePolicy, "draft_length", lambda *a, **k: built.append(1) or original(*a, **k))
    preset = make_preset(method, tiny["llama_target"], tiny[assistant] if assistant else None,
                         num_assistant_tokens_schedule="cost-aware", **knobs)
    result = race_of(preset, cache, sequential).run().to_dict()
    asst = result["assisted"]
    assert result["identical"] is True and asst["new_tokens"] == 24
    assert not built, "no round may ask the schedule for a length: the assisted loop must not run"
    assert len(asst["rounds"]) == 24 and all(r["drafted"] == 0 for r in asst["rounds"])
    assert asst["skipped_rounds"] == 24 and asst["draft_policy"] == "cost-aware"
    check_trace(asst)
    assert "decoded plainly" in result["why"]["verdict"]
