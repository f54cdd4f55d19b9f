"""Reliability: memory budget, out-of-memory, limits, untrusted ids, and a fuzz test of the settings space."""

from __future__ import annotations

import threading

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.core.errors import ArenaError
from app.core.loader import ModelCache
from app.core.presets import KNOBS, METHOD_IDS
from app.core.requests import RaceRequest
from app.race.lifecycle import RaceRun
from app.race.prepare import Limits, prepare
from app.core.sources import resolve

from tests.helpers import LOCAL, OPERATOR, make_preset

PROMPT = "The cat likes the dog"


def test_memory_budget_evicts_least_recently_used(tiny):
    small = ModelCache()
    one = small.get_model(tiny["llama_target"], LOCAL).weight_bytes
    budgeted = ModelCache(budget_bytes=int(one * 1.5))
    budgeted.get_model(tiny["llama_target"], LOCAL)
    budgeted.get_model(tiny["llama_drafter"], LOCAL)  # over budget: the target (least recently used) goes
    assert [m.spec for m in budgeted.loaded()] == [tiny["llama_drafter"]]
    budgeted.get_model(tiny["llama_drafter"], LOCAL)
    assert budgeted.load_count == 2


def test_concurrent_requests_load_a_model_once(tiny):
    fresh = ModelCache()
    barrier = threading.Barrier(4)
    results = []

    def load():
        barrier.wait()
        results.append(fresh.get_model(tiny["llama_target"], LOCAL).model)

    threads = [threading.Thread(target=load) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert fresh.load_count == 1 and len({id(m) for m in results}) == 1


def test_out_of_memory_during_generation_is_clean_and_the_next_run_works(tiny, cache, monkeypatch):
    preset = make_preset("drafter", tiny["llama_target"], tiny["llama_drafter"], num_assistant_tokens=2)
    setup = prepare(preset, PROMPT, OPERATOR, cache=cache)
    real = type(setup.target.model).generate
    calls = {"n": 0}

    def oom_once(self, *args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 1:
            raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 20.00 GiB")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(type(setup.target.model), "generate", oom_once)
    result = RaceRun(RaceRequest(preset, PROMPT, None, OPERATOR), True, cache=cache).run().to_dict()
    assert "Out of GPU memory" in " ".join(result["errors"].values())
    monkeypatch.setattr(type(setup.target.model), "generate", real)
    again = RaceRun(RaceRequest(preset, PROMPT, None, OPERATOR), True, cache=cache).run().to_dict()
    assert "errors" not in again and again["identical"]


def test_out_of_memory_during_load_is_clean(tiny, monkeypatch):
    from transformers import AutoModelForCausalLM

    def oom(*args, **kwargs):
        raise torch.cuda.OutOfMemoryError("CUDA out of memory")

    monkeypatch.setattr(AutoModelForCausalLM, "from_pretrained", oom)
    with pytest.raises(ArenaError, match="Out of GPU memory while loading"):
        ModelCache().get_model(tiny["llama_target"], LOCAL)


def test_limits_on_prompt_and_new_tokens(tiny, cache):
    preset = make_preset("prompt-lookup", tiny["llama_target"], prompt_lookup_num_tokens=3)
    with pytest.raises(ArenaError, match="at most 8"):
        prepare(preset, "word " * 50, limits=Limits(max_prompt_tokens=8, allow_local=True), cache=cache)
    with pytest.raises(ArenaError, match="max_new_tokens must be between 1 and 16; got 17"):
        prepare(preset.with_overrides(dict(max_new_tokens=17)), PROMPT, limits=Limits(max_new_tokens=16, allow_local=True),
                cache=cache)


def test_local_paths_only_when_allowed(tiny):
    with pytest.raises(ArenaError, match="--allow-local-models"):
        resolve(tiny["llama_target"], allow_local=False)
    for sneaky in ("../secrets", "/etc/passwd", "~/model", "./x"):
        with pytest.raises(ArenaError):
            resolve(sneaky, allow_local=False)
    assert resolve("HuggingFaceTB/SmolLM-135M", allow_local=False).kind == "hub"


def test_trust_remote_code_stays_off_by_default():
    assert Limits().trust_remote_code is False


# ---- fuzz -----------------------------------------------------------------------------------
MODELS = ["llama_target", "llama_drafter", "llama_other_tokenizer", "gemma4_target", "gemma4_assistant", None]
ANY_VALUE = st.one_of(st.none(), st.integers(-5, 70), st.floats(-2, 3), st.just(float("nan")), st.text(max_size=6),
                      st.booleans())
KNOB_VALUES = {
    "num_assistant_tokens": st.one_of(st.none(), st.integers(-2, 70), st.text(max_size=3)),
    "num_assistant_tokens_schedule": st.one_of(st.none(), st.sampled_from(["constant", "heuristic", "bogus"])),
    "assistant_confidence_threshold": st.one_of(st.none(), st.floats(-1, 2), st.just(float("nan"))),
    "prompt_lookup_num_tokens": st.one_of(st.none(), st.integers(-1, 12)),
    "max_matching_ngram_size": st.one_of(st.none(), st.integers(-1, 20)),
    "assistant_early_exit": st.one_of(st.none(), st.integers(-1, 6)),
    "assistant_ensemble_weight": st.one_of(st.none(), st.floats(-0.5, 1.5), st.just(float("inf"))),
}
VALID_KNOBS = {
    "num_assistant_tokens": st.integers(1, 8),
    "num_assistant_tokens_schedule": st.sampled_from(["constant", "heuristic", "heuristic_transient"]),
    "assistant_confidence_threshold": st.floats(0, 0.99),
    "prompt_lookup_num_tokens": st.integers(1, 8),
    "max_matching_ngram_size": st.integers(1, 4),
    "assistant_early_exit": st.integers(1, 5),
    "assistant_ensemble_weight": st.floats(0.01, 0.99),
}
#: Model pairs each method can run with, so that plausible settings reach generation.
PAIRS = {
    "drafter": ("llama_target", "llama_drafter"), "ensemble": ("llama_target", "llama_drafter"),
    "prompt-lookup": ("llama_target", None), "layerskip": ("llama_target", None), "glm-mtp": ("glm_mtp", None),
    "gemma-drafter": ("gemma4_target", "gemma4_assistant"), "uad": ("llama_target", "llama_other_tokenizer"),
}


def fuzz_one(tiny, cache, changes: dict, prompt, counts: dict) -> None:
    """Run one setting: it must end in a clean ArenaError or a finished race whose threads end."""
    counts["tried"] += 1
    try:
        preset = make_preset("drafter", tiny["llama_target"], tiny["llama_drafter"]).with_overrides(changes)
        race = RaceRun(RaceRequest(preset, prompt, 0, Limits(max_new_tokens=6, max_prompt_tokens=64, allow_local=True)),
                       cache=cache)
        result = race.run().to_dict()
    except ArenaError as exc:
        counts["clean_errors"] += 1
        assert "\n" not in str(exc) and "Traceback" not in str(exc)
        return
    assert race.join(10), "a worker thread hung"
    counts["results"] += 1
    for message in result.get("errors", {}).values():
        assert "\n" not in message


FUZZ = dict(max_examples=50, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))


def test_fuzz_hostile_settings(tiny, cache):
    counts = {"tried": 0, "clean_errors": 0, "results": 0}

    @settings(**FUZZ)
    @given(method=st.sampled_from(METHOD_IDS + ("nope",)), target=st.sampled_from(MODELS[:-1] + ["bad id!", ""]),
           assistant=st.sampled_from(MODELS), knobs=st.fixed_dictionaries({}, optional=KNOB_VALUES),
           max_new_tokens=st.one_of(st.integers(-3, 6), st.floats(0, 5), st.text(max_size=3)),
           do_sample=st.booleans(), temperature=ANY_VALUE, prompt=st.one_of(st.text(max_size=40), st.lists(st.text())))
    def one(method, target, assistant, knobs, max_new_tokens, do_sample, temperature, prompt):
        fuzz_one(tiny, cache, dict(method=method, target=tiny.get(target, target),
                                   assistant=tiny.get(assistant) if assistant else None, max_new_tokens=max_new_tokens,
                                   do_sample=do_sample, temperature=temperature if temperature is not None else 1.0,
                                   **knobs), prompt, counts)

    one()
    print(f"\nhostile fuzz: {counts}")
    assert counts["tried"] >= 50 and counts["clean_errors"] >= 20, counts


def test_fuzz_plausible_settings(tiny, cache):
    from app.race.methods import METHODS

    counts = {"tried": 0, "clean_errors": 0, "results": 0}

    @settings(**FUZZ)
    @given(method=st.sampled_from(METHOD_IDS), data=st.data(), do_sample=st.booleans(),
           max_new_tokens=st.integers(1, 8), prompt=st.text(min_size=1, max_size=30))
    def one(method, data, do_sample, max_new_tokens, prompt):
        target, assistant = PAIRS[method]
        knobs = data.draw(st.fixed_dictionaries({}, optional={k: VALID_KNOBS[k] for k in METHODS[method].knobs}))
        for required in METHODS[method].required_knobs:
            knobs.setdefault(required, data.draw(VALID_KNOBS[required]))
        fuzz_one(tiny, cache, dict(method=method, target=tiny[target], assistant=tiny[assistant] if assistant else None,
                                   max_new_tokens=max_new_tokens, do_sample=do_sample, **knobs), prompt, counts)

    one()
    print(f"\nplausible fuzz: {counts}")
    assert counts["tried"] >= 50 and counts["results"] >= 30, counts


def test_fuzz_strategies_cover_every_knob():
    assert set(KNOB_VALUES) == set(KNOBS) == set(VALID_KNOBS)
