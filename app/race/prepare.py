"""Turning a preset and a prompt into everything a race needs: models, tokenizers, inputs, generate() arguments."""

from __future__ import annotations

import copy
import os
import threading
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any, Iterator

import torch

from .hooks import private_view
from ..core.machine import device_name, peak_memory_bytes
from ..core.loader import MODEL_CACHE, LoadedModel, LoadOptions, ModelCache, Progress, check_weights_fit
from ..core.presets import Preset
from ..core.requests import Limits, check_single_prompt, check_token_cap
from ..core.tokenizers import TokenizerPool
from .methods import GenerateArgs, Method, get_method


@dataclass
class RaceSetup:
    """Loaded models, tokenizers and the encoded prompt for one race."""

    preset: Preset
    method: Method
    args: GenerateArgs
    target: LoadedModel
    assistant: LoadedModel | None
    tokenizers: TokenizerPool
    assistant_tokenizers: TokenizerPool | None
    input_ids: torch.Tensor
    attention_mask: torch.Tensor

    @property
    def tokenizer(self) -> Any:
        """The target tokenizer, for reading attributes; encode/decode with ``tokenizers.borrow()``."""
        return self.tokenizers.original

    @property
    def device(self) -> str:
        return self.target.device


def machine_facts(setup: RaceSetup | None = None) -> dict:
    """Device and model facts for the hardware panel (no model is loaded here): `setup`'s, or before a race this
    machine's."""
    device = setup.device if setup is not None else ("cuda" if torch.cuda.is_available() else "cpu")
    gpu = device_name(device) if str(device).startswith("cuda") and torch.cuda.is_available() else None
    loaded = [] if setup is None else [("target", setup.target), ("assistant", setup.assistant)]
    models = [{"role": role, "spec": m.spec, "n_params": m.n_params, "weight_bytes": m.weight_bytes, "dtype": m.dtype,
               "device": m.device, "load_seconds": m.load_seconds} for role, m in loaded if m is not None]
    return {"device": str(device), "gpu": gpu, "cpu_cores": os.cpu_count(), "torch_threads": torch.get_num_threads(),
            "models": models, "peak_bytes": peak_memory_bytes(str(device)) if models else None}


def encode_prompt(tokenizer: Any, prompt: str, chat_template: bool) -> dict[str, torch.Tensor]:
    """Token ids (batch of one) for `prompt`, through the chat template when asked and available."""
    if chat_template and getattr(tokenizer, "chat_template", None):
        enc = tokenizer.apply_chat_template(
            [{"role": "user", "content": prompt}], add_generation_prompt=True, return_tensors="pt", return_dict=True
        )
    else:
        enc = tokenizer(prompt, return_tensors="pt")
    return {"input_ids": enc["input_ids"], "attention_mask": enc.get("attention_mask", torch.ones_like(enc["input_ids"]))}


def prepare(preset: Preset, prompt: Any, limits: Limits, cache: ModelCache = MODEL_CACHE,
            progress: Progress | None = None, stop: threading.Event | None = None) -> RaceSetup:
    """Validate, load (cached) and encode everything for a race of `preset` on `prompt`.

    limits: the request's (:class:`~app.core.requests.RaceRequest` ``.limits``); required, so that no way in can
    reach the loader without the server's caps and local-folder rule. stop: ends a model download in progress.
    """
    prompt = check_single_prompt(prompt)
    check_token_cap(preset.max_new_tokens, limits)
    method = get_method(preset.method)
    method.check_preset(preset)
    check_weights_fit({"target": preset.target, "drafter": preset.assistant}, preset.dtype, limits.max_model_bytes)
    options = LoadOptions(preset.dtype, preset.quantization, preset.device_map, limits.allow_local, limits.trust_remote_code,
                          limits.max_model_bytes, preset.revision, preset.float32_logits)
    target = cache.get_model(preset.target, options, progress, stop)
    tokenizers = cache.tokenizer_pool(preset.tokenizer or preset.target, limits.allow_local, progress,
                                      limits.trust_remote_code, None if preset.tokenizer else preset.revision)
    assistant = assistant_tokenizers = None
    if preset.assistant:
        # only the target's logits decide which tokens stay: the drafter keeps its cheaper half-precision head
        drafter_options = replace(options, revision=preset.assistant_revision, float32_logits=False)
        assistant = cache.get_model(preset.assistant, drafter_options, progress, stop)
        assistant_tokenizers = cache.tokenizer_pool(preset.assistant_tokenizer or preset.assistant, limits.allow_local,
                                                    progress, limits.trust_remote_code,
                                                    None if preset.assistant_tokenizer else preset.assistant_revision)
    method.check_models(preset, target.model, assistant.model if assistant else None, tokenizers.original,
                        assistant_tokenizers.original if assistant_tokenizers else None)
    with tokenizers.borrow() as tok:
        enc = encode_prompt(tok, prompt, preset.chat_template)
    limits.check_prompt_tokens(enc["input_ids"].shape[1])
    device = target.model.device
    return RaceSetup(preset, method, method.generate_args(preset), target, assistant, tokenizers, assistant_tokenizers,
                     enc["input_ids"].to(device), enc["attention_mask"].to(device))


def generate_call(setup: RaceSetup, assisted: bool, max_new_tokens: int | None = None,
                  tokenizers: tuple[Any, Any] | None = None) -> tuple[Any, dict[str, Any]]:
    """The model to call and the generate() kwargs (without streamer/stopping) for one side.

    The assisted side runs on private views (hooks.private_view) so that run state transformers
    writes into configs never reaches the cached models or a concurrent baseline.
    tokenizers: (target, assistant) copies this call may use exclusively (UAD); without them the
    pools' originals are used, which only a single-threaded caller (a script) may do.
    """
    p, tok = setup.preset, setup.tokenizer
    kwargs: dict[str, Any] = {"input_ids": setup.input_ids, "attention_mask": setup.attention_mask,
                              "max_new_tokens": max_new_tokens or p.max_new_tokens, "do_sample": p.do_sample,
                              "pad_token_id": tok.eos_token_id if tok.pad_token_id is None else tok.pad_token_id}
    if p.do_sample:
        kwargs.update(temperature=p.temperature, top_p=p.top_p)
    if not assisted:
        return setup.target.model, kwargs
    target = private_view(setup.target.model)
    args = setup.args
    kwargs.update(args.kwargs)
    drafting_model = target
    if args.uses_assistant_model:
        drafting_model = private_view(setup.assistant.model)
        kwargs["assistant_model"] = drafting_model
    for key, value in args.drafter_config.items():
        setattr(drafting_model.generation_config, key, value)
    if args.uses_tokenizers:
        target_tok, assistant_tok = tokenizers or (setup.tokenizers.original, setup.assistant_tokenizers.original)
        # Fresh identities (shallow copies): transformers caches its vocabulary translator per tokenizer
        # pair and prunes the assistant only when it builds one, so each run's assistant view needs its own.
        kwargs["tokenizer"] = copy.copy(target_tok)
        kwargs["assistant_tokenizer"] = copy.copy(assistant_tok)
    return target, kwargs


@contextmanager
def uad_tokenizers(setup: RaceSetup, assisted: bool) -> Iterator[tuple[Any, Any] | None]:
    """Exclusive (target, assistant) tokenizer copies for an assisted UAD generate() call (None for other calls)."""
    if not (assisted and setup.args.uses_tokenizers):
        yield None
        return
    with setup.tokenizers.borrow() as target_tok, setup.assistant_tokenizers.borrow() as assistant_tok:
        yield target_tok, assistant_tok
