"""Memory of a target + drafter pair from the configs alone, no weights loaded (formulas and units: docs/DESIGN.md
§5.11): weights in decimal GB, KV cache in binary KiB/MiB as the article's table writes them, every figure also in
plain bytes."""

from __future__ import annotations

import json
import math
import struct
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..core.errors import ArenaError
from ..core.jsonfields import omitted_when_none
from ..core.words import msg

#: Bytes per weight at each dtype name. "int8"/"4bit" are bitsandbytes weight formats; their KV
#: cache stays at the compute dtype (bf16), see :func:`kv_dtype`.
DTYPE_BYTES = {"float32": 4.0, "bfloat16": 2.0, "float16": 2.0, "int8": 1.0, "4bit": 0.5}
GB, KIB, MIB, GIB = 1e9, 1024, 1024 ** 2, 1024 ** 3
#: The memory maths' defaults everywhere a plan is asked for (page, API, command line): weights at bfloat16, a
#: 4,096-token context, a 24 GB GPU (the drafter-choice article's "24 GB-class GPU").
DEFAULT_DTYPE, DEFAULT_CONTEXT_TOKENS, DEFAULT_GPU_MEMORY_GB = "bfloat16", 4096, 24.0

#: Numbers of the published config.json files of the drafter-choice article's reference models, used when the
#: hub cannot be reached (every machine here). Values checked against the article's memory table
#: in tests/core/test_memory.py.
REFERENCE_CONFIGS: dict[str, dict[str, Any]] = {
    "HuggingFaceTB/SmolLM-1.7B": dict(hidden_size=2048, intermediate_size=8192, num_hidden_layers=24,
                                      num_attention_heads=32, num_key_value_heads=32, vocab_size=49152,
                                      tie_word_embeddings=True),
    "HuggingFaceTB/SmolLM-135M": dict(hidden_size=576, intermediate_size=1536, num_hidden_layers=30,
                                      num_attention_heads=9, num_key_value_heads=3, vocab_size=49152,
                                      tie_word_embeddings=True),
    "meta-llama/Llama-3.1-8B": dict(hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
                                    num_attention_heads=32, num_key_value_heads=8, head_dim=128,
                                    vocab_size=128256, tie_word_embeddings=False),
    "meta-llama/Llama-3.2-1B": dict(hidden_size=2048, intermediate_size=8192, num_hidden_layers=16,
                                    num_attention_heads=32, num_key_value_heads=8, head_dim=64,
                                    vocab_size=128256, tie_word_embeddings=True),
}
REFERENCE_CONFIGS["HuggingFaceTB/SmolLM-1.7B-Instruct"] = REFERENCE_CONFIGS["HuggingFaceTB/SmolLM-1.7B"]
REFERENCE_CONFIGS["HuggingFaceTB/SmolLM-135M-Instruct"] = REFERENCE_CONFIGS["HuggingFaceTB/SmolLM-135M"]


@dataclass(frozen=True)
class ArchFacts:
    """What the memory maths needs from one config.

    layers/kv_heads/head_dim: attention shape; sliding_layers: how many layers keep only the
    last `sliding_window` tokens; n_params: parameter count; params_from: how it was counted.
    """

    model_type: str
    layers: int
    kv_heads: int
    head_dim: int
    vocab_size: int
    sliding_layers: int
    sliding_window: int | None
    n_params: int
    params_from: str


def weight_bytes_per_param(dtype: str) -> float:
    """Bytes per parameter at `dtype` (one of DTYPE_BYTES)."""
    if dtype not in DTYPE_BYTES:
        raise ArenaError(msg("Unknown dtype '{dtype}' for the memory maths; use one of {DTYPE_BYTES}.", dtype=dtype,
                             DTYPE_BYTES=', '.join(DTYPE_BYTES)))
    return DTYPE_BYTES[dtype]


def kv_dtype(dtype: str) -> str:
    """The dtype the KV cache is stored in: the weight dtype, or bf16 for quantized weights."""
    return "bfloat16" if dtype in ("int8", "4bit") else dtype


def count_params(config: Any) -> int:
    """Parameter count of an empty-weights (meta device) instantiation of `config` (tied weights once)."""
    import torch
    from transformers import AutoModelForCausalLM

    try:
        with torch.device("meta"):
            model = AutoModelForCausalLM.from_config(config)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ArenaError(msg("Cannot build a {type} to count its parameters: {exc}", type=type(config).__name__,
                             exc=exc)) from None
    return sum(p.numel() for p in model.parameters())


def params_from_safetensors(folder: str | Path) -> int | None:
    """Parameter count read from the headers of the *.safetensors files in `folder` (None if there are none)."""
    files = sorted(Path(folder).glob("*.safetensors"))
    if not files:
        return None
    total = 0
    for f in files:
        with open(f, "rb") as fh:
            (n,) = struct.unpack("<Q", fh.read(8))
            header = json.loads(fh.read(n))
        total += sum(math.prod(v["shape"]) for k, v in header.items() if k != "__metadata__")
    return total


def arch_facts(config: Any, n_params: int | None = None, params_from: str = "") -> ArchFacts:
    """ArchFacts of a transformers config (its text config for multimodal models)."""
    text = config.get_text_config() if hasattr(config, "get_text_config") else config
    layers = int(text.num_hidden_layers)
    heads = int(text.num_attention_heads)
    kv_heads = int(getattr(text, "num_key_value_heads", None) or heads)
    head_dim = int(getattr(text, "head_dim", None) or text.hidden_size // heads)
    layer_types = list(getattr(text, "layer_types", None) or [])
    window = getattr(text, "sliding_window", None)
    sliding = sum(t == "sliding_attention" for t in layer_types) if window else 0
    if n_params is None:
        n_params, params_from = count_params(config), "meta-device instantiation of the config"
    return ArchFacts(getattr(text, "model_type", type(text).__name__), layers, kv_heads, head_dim,
                     int(text.vocab_size), sliding, int(window) if sliding else None, int(n_params), params_from)


def kv_bytes_per_token(facts: ArchFacts, dtype: str = DEFAULT_DTYPE) -> float:
    """2 x layers x KV heads x head dim x bytes: KV-cache bytes one token adds (all layers, no window)."""
    return 2 * facts.layers * facts.kv_heads * facts.head_dim * weight_bytes_per_param(kv_dtype(dtype))


def kv_cache_bytes(facts: ArchFacts, context: int, dtype: str = DEFAULT_DTYPE) -> float:
    """KV-cache bytes at `context` tokens; sliding-window layers hold at most `sliding_window` tokens."""
    per_layer_token = 2 * facts.kv_heads * facts.head_dim * weight_bytes_per_param(kv_dtype(dtype))
    full = facts.layers - facts.sliding_layers
    windowed = facts.sliding_layers * min(context, facts.sliding_window or context)
    return per_layer_token * (full * context + windowed)


def load_config(spec: str, allow_local: bool = False) -> tuple[Any, int | None, str]:
    """(config, parameter count if the checkpoint states it, where the config came from) for a model spec.

    GGUF package models use their converted folder when present, else the GGUF metadata; the
    article's reference hub models use :data:`REFERENCE_CONFIGS`; other hub ids need the hub.
    """
    from transformers import AutoConfig, LlamaConfig

    from ..core.sources import converted_folder, hub_reachable, resolve

    source = resolve(spec, allow_local=allow_local)
    try:
        if source.kind == "gguf":
            for dtype in ("float32", "bfloat16", "float16"):  # any converted copy holds the config
                folder = converted_folder(source, dtype)
                if (folder / "config.json").is_file():
                    return (AutoConfig.from_pretrained(folder), params_from_safetensors(folder),
                            f"converted {source.gguf_file}")
            config = AutoConfig.from_pretrained(source.path, gguf_file=source.gguf_file)
            return config, None, f"GGUF metadata of {source.gguf_file}"
        if source.kind == "local":
            return AutoConfig.from_pretrained(source.path), params_from_safetensors(source.path), f"local folder {spec}"
        if spec in REFERENCE_CONFIGS:
            return LlamaConfig(**REFERENCE_CONFIGS[spec]), None, "built-in copy of the published config.json"
        return AutoConfig.from_pretrained(spec, local_files_only=not hub_reachable()), None, "hub config.json"
    except (OSError, ValueError) as exc:
        raise ArenaError(msg("Cannot read the config of '{spec}' ({type}): the hub is unreachable here; known offline "
                             "configs: {REFERENCE_CONFIGS}.", spec=spec, type=type(exc).__name__,
                             REFERENCE_CONFIGS=', '.join(REFERENCE_CONFIGS))) from None


def facts_for(spec: str, allow_local: bool = False) -> tuple[ArchFacts, str]:
    """(ArchFacts, config origin) for a model spec. Parameters from a meta-device instantiation of the
    config; if that class cannot be built here, from the safetensors headers (which also count any
    buffers the checkpoint stores)."""
    config, n_file, origin = load_config(spec, allow_local)
    try:
        return arch_facts(config), origin
    except ArenaError:
        if n_file is None:
            raise
        return arch_facts(config, n_file, "safetensors headers"), origin


@dataclass(frozen=True)
class ModelMemory(ArchFacts):
    """One model's weights and KV cache: its ArchFacts plus bytes and the article's display units (weights in GB,
    KV cache in KiB per token and MiB at the context). config_from: where its config was read (None: not said)."""

    params_billion: float = 0.0
    weight_bytes: int = 0
    weight_gb: float = 0.0
    kv_bytes_per_token: int = 0
    kv_kib_per_token: float = 0.0
    kv_bytes_at_context: int = 0
    kv_mib_at_context: float = 0.0
    config_from: str | None = omitted_when_none(default=None)


@dataclass(frozen=True)
class PairMemory:
    """Target + drafter at `dtype` with `context_tokens` cached, against a GPU of `gpu_memory_gb` (docs/DESIGN.md
    §5.11). drafter None: the method drafts without a second model; shares: the drafter's part of the target's
    weights and cache; param_ratio: drafter / target parameters (None without a drafter); total in bytes and GB;
    fits: total <= GPU memory, headroom_gb the rest; max_context_tokens_that_fit: the longest context the pair
    fits with; measured: the loaded models' own figures when a measured plan loaded them (else None)."""

    dtype: str
    kv_dtype: str
    context_tokens: int
    gpu_memory_gb: float
    target: ModelMemory
    drafter: ModelMemory | None
    drafter_note: str
    drafter_weight_share: float
    drafter_kv_share: float
    param_ratio: float | None
    total_bytes: int
    total_gb: float
    fits: bool
    headroom_gb: float
    max_context_tokens_that_fit: int
    target_alone_fits: bool
    measured: "MeasuredMemory | None" = omitted_when_none(default=None)


@dataclass(frozen=True)
class MeasuredMemory:
    """What the models a measured plan loaded actually hold, beside the prediction from their configs: their weights
    (GB) in the dtype they loaded in, and the process's peak memory (GB, app/core/machine.py) after measuring."""

    dtype: str
    target_weight_gb: float
    drafter_weight_gb: float | None
    peak_gb: float | None


@dataclass(frozen=True)
class MemoryUnavailable:
    """Why a plan has no memory figures (a config that cannot be read here), one line."""

    error: str


def model_memory(facts: ArchFacts, dtype: str, context: int) -> ModelMemory:
    """Weights and KV cache of one model: bytes plus the article's display units (GB, KiB, MiB)."""
    w = facts.n_params * weight_bytes_per_param(dtype)
    per_token = kv_bytes_per_token(facts, dtype)
    at_ctx = kv_cache_bytes(facts, context, dtype)
    return ModelMemory(**{f: getattr(facts, f) for f in ArchFacts.__dataclass_fields__},
                       params_billion=round(facts.n_params / 1e9, 4), weight_bytes=int(w), weight_gb=round(w / GB, 3),
                       kv_bytes_per_token=int(per_token), kv_kib_per_token=round(per_token / KIB, 3),
                       kv_bytes_at_context=int(at_ctx), kv_mib_at_context=round(at_ctx / MIB, 2))


def pair_memory(target: ArchFacts, drafter: ArchFacts | None, dtype: str = DEFAULT_DTYPE,
                context: int = DEFAULT_CONTEXT_TOKENS, gpu_memory_gb: float = DEFAULT_GPU_MEMORY_GB,
                drafter_note: str = "") -> PairMemory:
    """Memory of target + drafter at `dtype` with `context` cached tokens, against a GPU of `gpu_memory_gb`
    (docs/DESIGN.md §5.11), with the drafter's share of weights and cache. drafter None: the method drafts without
    a second model (prompt lookup, early exit), so it adds no weights and no cache."""
    if context < 1:
        raise ArenaError(msg("The context length must be at least 1 token; got {context}.", context=context))
    if not gpu_memory_gb > 0:
        raise ArenaError(msg("The GPU memory size must be a positive number of GB; got {gpu_memory_gb}.",
                             gpu_memory_gb=gpu_memory_gb))
    t = model_memory(target, dtype, context)
    d = model_memory(drafter, dtype, context) if drafter is not None else None
    weights = t.weight_bytes + (d.weight_bytes if d else 0)
    kv = t.kv_bytes_at_context + (d.kv_bytes_at_context if d else 0)
    per_token = t.kv_bytes_per_token + (d.kv_bytes_per_token if d else 0)
    capacity = gpu_memory_gb * GB
    total = weights + kv
    max_tokens = max(0, int((capacity - weights) // per_token)) if per_token else 0
    return PairMemory(
        dtype=dtype, kv_dtype=kv_dtype(dtype), context_tokens=context, gpu_memory_gb=gpu_memory_gb,
        target=t, drafter=d, drafter_note=drafter_note,
        drafter_weight_share=round(d.weight_bytes / t.weight_bytes, 4) if d else 0.0,
        drafter_kv_share=round(d.kv_bytes_at_context / t.kv_bytes_at_context, 4) if d else 0.0,
        param_ratio=round(drafter.n_params / target.n_params, 5) if drafter else None,
        total_bytes=int(total), total_gb=round(total / GB, 3),
        fits=total <= capacity, headroom_gb=round((capacity - total) / GB, 3),
        max_context_tokens_that_fit=max_tokens,
        target_alone_fits=t.weight_bytes + t.kv_bytes_at_context <= capacity)


def memory_for_specs(target: str, assistant: str | None, dtype: str = DEFAULT_DTYPE,
                     context: int = DEFAULT_CONTEXT_TOKENS, gpu_memory_gb: float = DEFAULT_GPU_MEMORY_GB,
                     drafter_note: str = "", allow_local: bool = False) -> PairMemory:
    """:func:`pair_memory` for model specs (configs read with :func:`load_config`), each model saying where its
    config came from."""
    t_facts, t_origin = facts_for(target, allow_local)
    d_facts, d_origin = facts_for(assistant, allow_local) if assistant else (None, None)
    out = pair_memory(t_facts, d_facts, dtype, context, gpu_memory_gb, drafter_note)
    return replace(out, target=replace(out.target, config_from=t_origin),
                   drafter=replace(out.drafter, config_from=d_origin) if out.drafter is not None else None)


def memory_or_reason(target: str, assistant: str | None, dtype: str, context: int, gpu_memory_gb: float,
                     drafter_note: str = "", allow_local: bool = False) -> PairMemory | MemoryUnavailable:
    """:func:`memory_for_specs`, or the one line why it cannot be computed here (a plan still has its other parts)."""
    try:
        return memory_for_specs(target, assistant, dtype, context, gpu_memory_gb, drafter_note, allow_local)
    except ArenaError as exc:
        return MemoryUnavailable(str(exc))
