"""Memory from configs alone: the drafter-choice article's memory table, parameter counts, sliding windows, GPU fit."""

from __future__ import annotations

import pytest
import torch

from app.core.errors import ArenaError
from app.planner.memory import (GB, KIB, MIB, REFERENCE_CONFIGS, arch_facts, count_params, facts_for, kv_bytes_per_token,
                               kv_cache_bytes, memory_for_specs, pair_memory, params_from_safetensors)

# The relevant numbers of each published config.json (written out here, independently of memory.py).
CONFIGS = {
    "meta-llama/Llama-3.1-8B": dict(hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
                                    num_attention_heads=32, num_key_value_heads=8, head_dim=128, vocab_size=128256,
                                    tie_word_embeddings=False),
    "meta-llama/Llama-3.2-1B": dict(hidden_size=2048, intermediate_size=8192, num_hidden_layers=16,
                                    num_attention_heads=32, num_key_value_heads=8, head_dim=64, vocab_size=128256,
                                    tie_word_embeddings=True),
    "HuggingFaceTB/SmolLM-1.7B": dict(hidden_size=2048, intermediate_size=8192, num_hidden_layers=24,
                                      num_attention_heads=32, num_key_value_heads=32, vocab_size=49152,
                                      tie_word_embeddings=True),
    "HuggingFaceTB/SmolLM-135M": dict(hidden_size=576, intermediate_size=1536, num_hidden_layers=30,
                                      num_attention_heads=9, num_key_value_heads=3, vocab_size=49152,
                                      tie_word_embeddings=True),
}
# The article's memory table: params (billions, "약"), bf16 weights (GB), KV per token (KB = KiB), KV at 4,096 (MiB).
SEED_MEMORY = {
    "meta-llama/Llama-3.1-8B": (8.03, 16.06, 128, 512),
    "meta-llama/Llama-3.2-1B": (1.24, 2.47, 32, 128),
    "HuggingFaceTB/SmolLM-1.7B": (1.71, 3.42, 192, 768),
    "HuggingFaceTB/SmolLM-135M": (0.135, 0.27, 22.5, 90),
}


def facts(name: str):
    from transformers import LlamaConfig

    return arch_facts(LlamaConfig(**CONFIGS[name]))


@pytest.mark.parametrize("name", SEED_MEMORY)
def test_article_memory_table(name):
    params_b, weights_gb, kv_kib, kv_mib_4096 = SEED_MEMORY[name]
    f = facts(name)
    assert kv_bytes_per_token(f, "bfloat16") / KIB == kv_kib
    assert kv_cache_bytes(f, 4096, "bfloat16") / MIB == kv_mib_4096
    digits = 3 if params_b < 1 else 2
    assert round(f.n_params / 1e9, digits) == params_b
    weight_digits = 2
    assert round(f.n_params * 2 / GB, weight_digits) == weights_gb


def test_article_pair_shares_and_fit():
    # "Llama 짝은 초안이 가중치로 15%, KV 캐시로 25%를 더 써요 ... 24GB GPU에 ... 약 18.5GB"
    pair = pair_memory(facts("meta-llama/Llama-3.1-8B"), facts("meta-llama/Llama-3.2-1B"), "bfloat16", 4096, 24)
    assert round(pair.drafter_weight_share, 2) == 0.15 and pair.drafter_kv_share == 0.25
    weights_gb = (pair.target.weight_bytes + pair.drafter.weight_bytes) / GB
    assert round(weights_gb, 1) == 18.5
    assert pair.fits and pair.total_bytes == pair.target.weight_bytes + pair.drafter.weight_bytes + 640 * MIB
    assert pair.max_context_tokens_that_fit == int((24 * GB - weights_gb * GB) // (160 * KIB))
    assert not pair_memory(facts("meta-llama/Llama-3.1-8B"), facts("meta-llama/Llama-3.2-1B"), "bfloat16", 4096, 16).fits
    # 4-bit weights keep a bf16 cache
    q = pair_memory(facts("meta-llama/Llama-3.1-8B"), None, "4bit", 4096, 24)
    assert q.target.kv_kib_per_token == 128 and q.target.weight_gb == pytest.approx(4.015, abs=1e-3)
    assert q.drafter is None and q.drafter_weight_share == 0.0


def test_reference_configs_match_the_fixtures_and_work_offline():
    for name, cfg in CONFIGS.items():
        assert {k: REFERENCE_CONFIGS[name][k] for k in cfg} == cfg
    mem = memory_for_specs("HuggingFaceTB/SmolLM-1.7B", "HuggingFaceTB/SmolLM-135M")
    assert mem.target.kv_kib_per_token == 192 and mem.drafter.kv_kib_per_token == 22.5
    assert mem.drafter.layers > mem.target.layers  # the drafter-choice article's deep, narrow drafter remark


def test_params_from_safetensors_match_the_loaded_model(tiny):
    from transformers import AutoConfig, AutoModelForCausalLM

    for name in ("llama_target", "llama_drafter", "gemma4_target"):
        model = AutoModelForCausalLM.from_pretrained(tiny[name])
        n_loaded = sum(p.numel() for p in model.parameters())
        assert count_params(AutoConfig.from_pretrained(tiny[name])) == n_loaded
        f, origin = facts_for(tiny[name], allow_local=True)
        assert f.n_params == n_loaded and "meta" in f.params_from and "local" in origin
        # the headers also count buffers a checkpoint stores (Gemma 4 keeps a few scalars)
        n_buffers = sum(b.numel() for name_, b in model.named_buffers() if name_ in model.state_dict())
        assert n_loaded <= params_from_safetensors(tiny[name]) <= n_loaded + n_buffers
    assert params_from_safetensors(tiny["tokenizer_a"]) is None


def test_sliding_window_layers_stop_growing():
    from transformers import Gemma3TextConfig

    cfg = Gemma3TextConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=6, num_attention_heads=2,
                           num_key_value_heads=1, head_dim=32, vocab_size=100, sliding_window=16,
                           layer_types=["sliding_attention"] * 5 + ["full_attention"])
    with torch.device("meta"):
        f = arch_facts(cfg)
    assert (f.sliding_layers, f.sliding_window) == (5, 16)
    per_layer_token = 2 * 1 * 32 * 2
    assert kv_bytes_per_token(f) == 6 * per_layer_token
    assert kv_cache_bytes(f, 10) == 6 * 10 * per_layer_token
    assert kv_cache_bytes(f, 1000) == (1000 + 5 * 16) * per_layer_token


def test_bad_inputs():
    f = facts("HuggingFaceTB/SmolLM-135M")
    with pytest.raises(ArenaError):
        kv_bytes_per_token(f, "int3")
    with pytest.raises(ArenaError):
        pair_memory(f, None, context=0)
    with pytest.raises(ArenaError):
        pair_memory(f, None, gpu_memory_gb=0)
    with pytest.raises(ArenaError):
        memory_for_specs("/no/such/folder", None, allow_local=True)
