"""Lossless in distribution: sample many continuations plainly and with the method, and compare (docs/DESIGN.md §5.15).

:func:`sampling_check` loads the models once (:func:`~app.race.prepare.prepare`), samples both sides (plain: in
batches over one shared reading of the prompt; assisted: one generate() call per sample through the race's own
path), each call with its own seed, and compares every position's marginal distribution and the first two tokens'
joint one (:mod:`app.race.sampling_stats`); a sequence that ended before position i counts as "ended" there.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import random
import secrets
import time
from typing import Any, Sequence

import torch

from ..core.errors import StoppedError
from ..core.loader import MODEL_CACHE, ModelCache, Progress
from ..core.presets import Preset
from ..core.requests import Limits
from ..core.words import msg
from .sampling_check_result import (SAMPLES, TOKENS, TOP_K, CheckResult, CheckSettings,  # noqa: F401 - re-exported
                                  check_work_tokens)
from .drafting import calibrate, policy_factory
from .hooks import bind_tracer
from .prepare import RaceSetup, generate_call, prepare, uad_tokenizers
from .sampling_stats import compare_sequences
from .tracer import StopOnEvent

#: Plain continuations sampled per generate() call (one batch).
PLAIN_BATCH = 64
#: The category of a position after the sequence ended.
ENDED = -1
#: transformers' top-k when neither the request nor the model's generation config sets one.
TRANSFORMERS_TOP_K = 50


def sampling_preset(preset: Preset, settings: CheckSettings) -> Preset:
    """`preset` set to sample `settings.tokens` tokens at the settings' temperature and top-p."""
    return preset.with_overrides({"do_sample": True, "temperature": settings.temperature, "top_p": settings.top_p,
                                  "max_new_tokens": settings.tokens})


def categories(new_ids: Sequence[int], tokens: int, eos: frozenset[int]) -> tuple[int, ...]:
    """The first `tokens` new token ids; positions after an end-of-text token (or past the end) are ENDED."""
    out: list[int] = []
    for token in list(new_ids)[:tokens]:
        out.append(int(token))
        if int(token) in eos:
            break
    return tuple(out + [ENDED] * (tokens - len(out)))


def eos_ids(setup: RaceSetup) -> frozenset[int]:
    """The end-of-text ids generate() stops at (the target's generation config, else its tokenizer's)."""
    eos = setup.target.model.generation_config.eos_token_id
    if eos is None:
        eos = setup.tokenizer.eos_token_id
    return frozenset(eos if isinstance(eos, (list, tuple)) else [] if eos is None else [eos])


class _DraftCounter:
    """A draft sink (hooks.DraftSink) that only counts rounds (and those that drafted nothing), drafted and accepted
    tokens."""

    def __init__(self) -> None:
        self.rounds = self.drafted = self.accepted = self.undrafted = 0
        self._pending = 0

    def on_candidates(self, prompt_len: int, candidate_ids: list[int], draft_seconds: float, candidate_logits: Any):
        self._pending = len(candidate_ids)

    def on_verified(self, scores: Any, accepted: int, verify_seconds: float) -> None:
        self.rounds += 1
        self.undrafted += self._pending == 0
        self.drafted += self._pending
        self.accepted += min(int(accepted), self._pending)


class Sampler:
    """Draws the two samples of one check from a prepared setup (models loaded once)."""

    def __init__(self, setup: RaceSetup, settings: CheckSettings, progress: Progress | None = None,
                 stop: Any = None):
        self.setup, self.settings = setup, settings
        self.progress = progress or (lambda message: None)
        self.stop = stop
        self.eos = eos_ids(setup)
        self.counter = _DraftCounter()
        self.prompt_len = setup.input_ids.shape[1]

    def _kwargs(self, kwargs: dict) -> dict:
        if self.settings.top_k is not None:
            kwargs["top_k"] = self.settings.top_k
        if self.stop is not None:
            kwargs["stopping_criteria"] = [StopOnEvent(self.stop)]
        return kwargs

    def _check_stop(self, side: str, done: int) -> None:
        if self.stop is not None and self.stop.is_set():
            raise StoppedError(msg("Stopped after {done} of {samples} {side} samples: no verdict.", done=done,
                                   samples=self.settings.samples, side=side))

    def prompt_cache(self, model: Any) -> Any:
        """The target's KV cache of the prompt without its last token, read once for every plain batch (None for
        a one-token prompt or a model that takes no ``cache``: then each batch reads the prompt itself)."""
        ids, mask = self.setup.input_ids, self.setup.attention_mask
        if ids.shape[1] < 2 or "cache" not in inspect.signature(model.forward).parameters:
            return None
        return model(input_ids=ids[:, :-1], attention_mask=mask[:, :-1], use_cache=True).get("cache")

    @staticmethod
    def _batch(kwargs: dict, size: int, prefix: Any) -> dict:
        """generate() kwargs for `size` plain continuations: the prompt `size` times over a copy of the shared cache."""
        if prefix is None:
            return {**kwargs, "num_return_sequences": size}
        cache = copy.deepcopy(prefix)
        cache.batch_repeat_interleave(size)
        return {**kwargs, "input_ids": kwargs["input_ids"].repeat(size, 1),
                "attention_mask": kwargs["attention_mask"].repeat(size, 1), "cache": cache}

    def plain(self, seeds: Sequence[int]) -> list[tuple[int, ...]]:
        """`samples` plain continuations, up to PLAIN_BATCH per generate() call (one seed per call), all from one
        reading of the prompt (the reference side: how it reads the prompt does not change its distribution, §5.15)."""
        out: list[tuple[int, ...]] = []
        model, kwargs = generate_call(self.setup, False, max_new_tokens=self.settings.tokens)
        kwargs, prefix = self._kwargs(kwargs), self.prompt_cache(model)
        for seed in seeds:
            self._check_stop("plain", len(out))
            size = min(PLAIN_BATCH, self.settings.samples - len(out))
            torch.manual_seed(seed)
            ids = model.generate(**self._batch(kwargs, size, prefix))
            self._check_stop("plain", len(out))
            out += [categories(row[self.prompt_len:].tolist(), self.settings.tokens, self.eos) for row in ids]
            self.progress(msg("plain samples {out}/{samples}", out=len(out), samples=self.settings.samples))
        return out

    def assisted(self, seeds: Sequence[int]) -> list[tuple[int, ...]]:
        """One assisted continuation per seed, each a fresh generate() call as in a race (batch size 1)."""
        setup, out = self.setup, []
        threads = None if str(setup.device).startswith("cuda") else torch.get_num_threads()  # the caller's threads
        policies = policy_factory(setup, calibrate(setup, threads), threads)
        with uad_tokenizers(setup, True) as toks:
            for seed in seeds:
                self._check_stop("assisted", len(out))
                model, kwargs = generate_call(setup, True, max_new_tokens=self.settings.tokens, tokenizers=toks)
                torch.manual_seed(seed)
                with bind_tracer(self.counter, policies() if policies else None):
                    ids = model.generate(**self._kwargs(kwargs))
                self._check_stop("assisted", len(out))
                out.append(categories(ids[0, self.prompt_len:].tolist(), self.settings.tokens, self.eos))
                if len(out) % 10 == 0 or len(out) == len(seeds):
                    self.progress(msg("assisted samples {out}/{samples}", out=len(out), samples=self.settings.samples))
        return out


def call_seeds(seed: int, plain_calls: int, assisted_calls: int) -> tuple[list[int], list[int]]:
    """Distinct seeds for every generate() call, derived from the check's seed (reproducible)."""
    rng, drawn = random.Random(seed), {}  # a dict keeps the distinct draws in order
    while len(drawn) < plain_calls + assisted_calls:
        drawn[rng.getrandbits(63)] = None
    seeds = list(drawn)
    return seeds[:plain_calls], seeds[plain_calls:]


def effective_top_k(setup: RaceSetup, asked: int | None) -> int:
    """The top-k generate() applies: the request's, else the model's generation config, else transformers' 50."""
    if asked is not None:
        return asked
    configured = getattr(setup.target.model.generation_config, "top_k", None)
    return TRANSFORMERS_TOP_K if configured is None else int(configured)


def run_check(setup: RaceSetup, settings: CheckSettings, progress: Progress | None = None,
              stop: Any = None) -> CheckResult:
    """Sample both sides from a prepared (sampling) setup and compare them; see :func:`sampling_check`."""
    seed = settings.seed if settings.seed is not None else secrets.randbits(62)
    settings = dataclasses.replace(settings, seed=seed)
    sampler = Sampler(setup, settings, progress, stop)
    plain_seeds, assisted_seeds = call_seeds(seed, -(-settings.samples // PLAIN_BATCH), settings.samples)
    with torch.inference_mode():
        start = time.perf_counter()
        plain = sampler.plain(plain_seeds)
        middle = time.perf_counter()
        assisted = sampler.assisted(assisted_seeds)
        end = time.perf_counter()
    comparisons = compare_sequences(plain, assisted, settings.tokens, seed)
    return CheckResult.build(setup, settings, comparisons, sampler.counter, effective_top_k(setup, settings.top_k),
                             (middle - start, end - middle))


def sampling_check(preset: Preset, prompt: Any, limits: Limits, settings: CheckSettings,
                   cache: ModelCache = MODEL_CACHE, progress: Progress | None = None, stop: Any = None) -> CheckResult:
    """Is `preset`'s method lossless in distribution on `prompt`? Load once, sample both sides, compare.

    limits: the operator's limits (local folders, token caps) that ``prepare`` applies. progress: called with a
    short message as loading and sampling advance. stop: a ``threading.Event``; once set the check ends after
    the current generate() call with :class:`~app.core.errors.StoppedError`. Costs
    :func:`check_work_tokens` generated tokens.
    """
    limits.check_work(check_work_tokens(settings.samples, settings.tokens), "sampling check", "fewer samples or tokens")
    setup = prepare(sampling_preset(preset, settings), prompt, limits, cache, progress=progress)
    return run_check(setup, settings, progress, stop)
