"""Timing the two costs Theorem 3.8 needs on this hardware (docs/DESIGN.md §5.6, §5.7): c, one-token decode steps
drafter vs target (which step drafts is the kind's, app/planner/kinds.py), and the verification slope the theorem
leaves out (c + slope is the effective c)."""

from __future__ import annotations

import inspect
import statistics
import time
from dataclasses import asdict, dataclass, field
from typing import Any

import torch

from ..core.errors import ArenaError
from ..core.words import msg
from ..race.costs import sync, verification_samples
from ..race.prepare import RaceSetup
from .measure import borrowed_tokenizers


@dataclass
class StepRatio:
    """c = draft step / target step: median over repetitions with its spread; step times in ms.
    what: which two steps; c_model / c_retokenize / retokenize_gamma: UAD's split of c (None otherwise)."""

    value: float
    low: float
    high: float
    samples: list[float]
    repeats: int
    steps: int
    draft_step_ms: float
    target_step_ms: float
    draft_step_ms_range: list[float]
    target_step_ms_range: list[float]
    what: str = ""
    c_model: float | None = None
    c_retokenize: float | None = None
    retokenize_gamma: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}


@dataclass
class VerifySlope:
    """Extra cost per verified token, in target steps: median (value, floored at 0) and spread of `repeats`."""

    value: float
    low: float
    high: float
    tokens: int
    repeats: int
    samples: list[float] = field(default_factory=list, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "low": self.low, "high": self.high, "tokens": self.tokens, "repeats": self.repeats}


class ModelStepper:
    """Prefill `ids` once (start), then decode one greedy token per step() with the KV cache."""

    def __init__(self, model: Any, ids: torch.Tensor):
        self.model, self.ids = model, ids.to(model.device)
        params = inspect.signature(model.forward).parameters
        self.cache_kwarg = "cache" if "cache" in params else "past_key_values"
        self.cache = self.next = None

    def _forward(self, ids: torch.Tensor, cache: Any) -> None:
        kwargs = {"use_cache": True} if cache is None else {"use_cache": True, self.cache_kwarg: cache}
        out = self.model(input_ids=ids, **kwargs)
        self.cache = out.get("cache") if out.get("cache") is not None else out.get("past_key_values")
        self.next = out.logits[:, -1:].argmax(-1)

    @torch.inference_mode()
    def start(self) -> None:
        self._forward(self.ids, None)

    @torch.inference_mode()
    def step(self) -> None:
        self._forward(self.next, self.cache)


class LookupStepper:
    """One prompt-lookup proposal per step() over `ids` (the n-gram search transformers runs each round)."""

    def __init__(self, ids: torch.Tensor, num_tokens: int, ngram: int):
        from transformers.generation.candidate_generator import PromptLookupCandidateGenerator

        self.ids = ids.cpu()
        self.gen = PromptLookupCandidateGenerator(num_output_tokens=num_tokens, max_matching_ngram_size=ngram,
                                                  max_length=10 ** 9)

    def start(self) -> None:
        pass

    def step(self) -> None:
        self.gen.get_candidates(self.ids)


def time_steps(stepper: Any, steps: int, device: str = "cpu") -> float:
    """Mean seconds per step() over `steps` steps after a fresh start() (the prefill is not timed)."""
    stepper.start()
    sync(device)
    t0 = time.perf_counter()
    for _ in range(steps):
        stepper.step()
    sync(device)
    return (time.perf_counter() - t0) / steps


def step_ratio(draft: Any, target: Any, repeats: int = 5, steps: int = 8, device: str = "cpu",
               warmup_steps: int = 2) -> StepRatio:
    """c = draft step / target step: median over `repeats` repetitions, with min..max spread (times in ms)."""
    if repeats < 1 or steps < 1:
        raise ArenaError(msg("Need at least one repetition and one step to measure c; got {repeats} x {steps}.",
                             repeats=repeats, steps=steps))
    for s in (draft, target):
        time_steps(s, warmup_steps, device)
    ratios, d_ms, t_ms = [], [], []
    for r in range(repeats):
        if r % 2 == 0:
            d, t = time_steps(draft, steps, device), time_steps(target, steps, device)
        else:
            t, d = time_steps(target, steps, device), time_steps(draft, steps, device)
        ratios.append(d / t)
        d_ms.append(d * 1e3)
        t_ms.append(t * 1e3)
    return StepRatio(statistics.median(ratios), min(ratios), max(ratios), ratios, repeats, steps,
                     statistics.median(d_ms), statistics.median(t_ms), [min(d_ms), max(d_ms)], [min(t_ms), max(t_ms)])


#: The longest verification timed for the slope (tokens).
VERIFY_K = 9


def timed_verify_slope(setup: RaceSetup, ref: list[int], k: int = VERIFY_K, repeats: int = 5) -> VerifySlope:
    """Extra cost per verified token, (t(k) / t(1) - 1) / (k - 1) in target steps (docs/DESIGN.md §5.7), timed by the
    race's own verification timer (app.race.costs)."""
    tokens = (ref + setup.input_ids[0].tolist() * k)[:k]
    _, samples = verification_samples(setup.target.model, setup.input_ids, torch.tensor([tokens]), repeats)
    return VerifySlope(max(0.0, statistics.median(samples)), min(samples), max(samples), k, repeats, samples)


def retokenize_seconds(setup: RaceSetup, ref: list[int], gamma: int, repeats: int = 20) -> float:
    """Median seconds of one UAD round's two text round trips (target->drafter and drafter->target
    tokens over a window of lookbehind 10 + gamma tokens, as transformers converts them)."""
    window = (setup.input_ids[0].tolist() + ref)[-(10 + gamma):]
    times = []
    with borrowed_tokenizers(setup) as (tok, atok):
        for _ in range(repeats):
            t0 = time.perf_counter()
            text = tok.decode(window, skip_special_tokens=True, clean_up_tokenization_spaces=True)
            a_ids = atok(text, add_special_tokens=True)["input_ids"]
            back = atok.decode(a_ids, skip_special_tokens=True, clean_up_tokenization_spaces=True)
            tok(back, add_special_tokens=True)
            times.append(time.perf_counter() - t0)
    return statistics.median(times)
