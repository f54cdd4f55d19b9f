"""Measuring alpha and c on real prompts, and checking a prediction with real assisted runs.

alpha, seed style (greedy): the share of the target's own greedy tokens that the drafter also
ranks first when it reads the target's text (teacher forcing). Per method:

* drafter / ensemble: the drafter's top-1 on prompt + target tokens, compared with the target's tokens.
* layerskip (early exit): the same with the target cut to its first ``assistant_early_exit`` layers.
* prompt-lookup: at each position, the first token the n-gram lookup proposes from the text so far;
  a position where nothing matches counts as a miss (that round drafts nothing).
* uad: the tokenizers differ, so there is no per-target-token top-1 to compare. We re-tokenize the
  target's text with the drafter's tokenizer and measure the drafter's top-1 agreement *in drafter
  tokens*, labelled as such; the planner predicts UAD from alpha observed in a constant-gamma run.

alpha, observed: from the rounds of real assisted runs. ``acceptance_rate`` is DESIGN section 3's
accepted/drafted; ``value`` is the per-token acceptance the formula assumes: a round of k drafts
with n accepted tested n+1 tokens (n if all k passed), so alpha = sum(n) / sum(n + [n < k]).

c: one-token decode step with a KV cache (prefill excluded), drafter vs target, after a warm-up;
each repetition times `steps` steps of both (order alternating), c is the median ratio and the
spread is min..max over repetitions. Times are seconds unless a key says ms. The verification slope
(:func:`verify_slope`) is what Theorem 3.8 leaves out: the extra cost per token of the target's
multi-token verification pass (near 0 on a GPU, large on a CPU); c + slope is the effective c.
"""

from __future__ import annotations

import inspect
import statistics
import time
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Sequence

import torch

from .errors import ArenaError
from .hooks import private_view
from .presets import Preset
from .setup import RaceSetup, generate_call, prepare

KIND_BY_METHOD = {"drafter": "drafter", "ensemble": "drafter", "uad": "uad", "layerskip": "early-exit",
                  "prompt-lookup": "lookup"}
DYNAMIC_DEFAULT = {"num_assistant_tokens": 20, "num_assistant_tokens_schedule": "constant",
                   "assistant_confidence_threshold": 0.4}
Progress = Callable[[str], None]


def method_kind(method: str) -> str:
    """'drafter' | 'uad' | 'early-exit' | 'lookup' for a method id; ArenaError for methods not measurable here."""
    if method not in KIND_BY_METHOD:
        raise ArenaError(f"The planner measures drafter, ensemble, uad, layerskip and prompt-lookup presets; "
                         f"'{method}' drafts from the target's own hidden states, so use the calculator "
                         "(--alpha A --c C) with alpha from a race.")
    return KIND_BY_METHOD[method]


@contextmanager
def borrowed_tokenizers(setup: RaceSetup) -> Iterator[tuple[Any, Any]]:
    """(target, assistant or None) tokenizer copies this thread may use exclusively (see engine/tokenizers.py)."""
    with setup.tokenizers.borrow() as tok:
        if setup.assistant_tokenizers is None:
            yield tok, None
        else:
            with setup.assistant_tokenizers.borrow() as atok:
                yield tok, atok


# ----- reference output and seed-style alpha ---------------------------------------------------------
@torch.inference_mode()
def reference_tokens(setup: RaceSetup) -> list[int]:
    """The target's plain greedy new tokens for the setup's prompt."""
    model, kwargs = generate_call(setup, assisted=False)
    kwargs["do_sample"] = False
    kwargs.pop("temperature", None), kwargs.pop("top_p", None)
    return model.generate(**kwargs)[0, setup.input_ids.shape[1]:].tolist()


@torch.inference_mode()
def _top1(model: Any, ids: torch.Tensor) -> torch.Tensor:
    """Greedy next-token prediction at every position of `ids` (1, T) -> (T,)."""
    return model(input_ids=ids.to(model.device), use_cache=False).logits[0].argmax(-1).cpu()


def _teacher_forced(model: Any, setup: RaceSetup, ref: list[int]) -> tuple[int, int]:
    n = setup.input_ids.shape[1]
    seq = torch.cat([setup.input_ids.cpu(), torch.tensor([ref])], dim=1)
    pred = _top1(model, seq)[n - 1:-1]
    return int((pred == torch.tensor(ref)).sum()), len(ref)


def exit_view(model: Any, exit_layer: int) -> Any:
    """A private view of `model` that runs only its first `exit_layer` layers (as early exit drafts)."""
    view = private_view(model)
    view.config.num_hidden_layers = exit_layer
    base = view._modules.get(getattr(view, "base_model_prefix", ""))
    if base is not None:
        base.config.num_hidden_layers = exit_layer
    return view


def _lookup_agreement(setup: RaceSetup, ref: list[int], num_tokens: int, ngram: int) -> tuple[int, int, int]:
    from transformers.generation.candidate_generator import PromptLookupCandidateGenerator

    gen = PromptLookupCandidateGenerator(num_output_tokens=num_tokens, max_matching_ngram_size=ngram, max_length=10 ** 9)
    seq = torch.cat([setup.input_ids.cpu(), torch.tensor([ref])], dim=1)
    n, matches, proposed = setup.input_ids.shape[1], 0, 0
    for t, token in enumerate(ref):
        cand, _ = gen.get_candidates(seq[:, :n + t])
        if cand.shape[1] > n + t:
            proposed += 1
            matches += int(cand[0, n + t]) == token
    return matches, len(ref), proposed


def _uad_agreement(setup: RaceSetup, ref: list[int]) -> tuple[int, int]:
    """Drafter top-1 agreement on the target's text re-tokenized by the drafter (counted in drafter tokens)."""
    prompt_ids = setup.input_ids[0].tolist()
    with borrowed_tokenizers(setup) as (tok, atok):
        prompt_text = tok.decode(prompt_ids, skip_special_tokens=True)
        full = tok.decode(prompt_ids + ref, skip_special_tokens=True)
        new_text = tok.decode(ref, skip_special_tokens=True)
        boundary = len(prompt_text) if full.startswith(prompt_text) else len(full) - len(new_text)
        if getattr(atok, "is_fast", False):
            enc = atok(full, return_tensors="pt", return_offsets_mapping=True)
            spans = enc["offset_mapping"][0].tolist()
            scored = [j for j in range(1, len(spans)) if spans[j][0] >= boundary and spans[j][1] > spans[j][0]]
        else:
            enc = atok(full, return_tensors="pt")
            first = len(atok(prompt_text)["input_ids"])
            scored = list(range(max(first, 1), enc["input_ids"].shape[1]))
    ids = enc["input_ids"]
    if not scored:
        return 0, 0
    pred = _top1(setup.assistant.model, ids)
    idx = torch.tensor(scored)
    return int((pred[idx - 1] == ids[0, idx]).sum()), len(scored)


def seed_alpha(setups: Sequence[RaceSetup], refs: Sequence[list[int]]) -> dict[str, Any]:
    """Seed-style greedy alpha over prompts: mean of per-prompt agreement (as the seed averages), plus pooled."""
    preset = setups[0].preset
    kind = method_kind(preset.method)
    per_prompt, proposed_total = [], 0
    for setup, ref in zip(setups, refs):
        proposed = None
        if kind == "drafter":
            m, p = _teacher_forced(setup.assistant.model, setup, ref)
        elif kind == "early-exit":
            m, p = _teacher_forced(exit_view(setup.target.model, preset.assistant_early_exit), setup, ref)
        elif kind == "lookup":
            m, p, proposed = _lookup_agreement(setup, ref, preset.prompt_lookup_num_tokens,
                                               preset.max_matching_ngram_size or 2)
            proposed_total += proposed
        else:
            m, p = _uad_agreement(setup, ref)
        per_prompt.append({"matches": m, "positions": p, "alpha": m / p if p else None, "proposed": proposed})
    valid = [x["alpha"] for x in per_prompt if x["alpha"] is not None]
    positions = sum(x["positions"] for x in per_prompt)
    out = {
        "value": statistics.mean(valid) if valid else None,
        "pooled": sum(x["matches"] for x in per_prompt) / positions if positions else None,
        "space": "drafter tokens" if kind == "uad" else "target tokens",
        "how": {"drafter": "drafter top-1 on the target's greedy text (teacher forcing)",
                "early-exit": f"top-1 of the first {preset.assistant_early_exit} layers on the target's greedy text",
                "lookup": "first n-gram lookup proposal at each position of the target's greedy text (no match = miss)",
                "uad": "drafter top-1 on the target's greedy text re-tokenized by the drafter; counted in drafter "
                       "tokens, so not the per-target-token acceptance the formula uses"}[kind],
        "per_prompt": per_prompt,
    }
    if kind == "lookup":
        out["proposal_rate"] = proposed_total / positions if positions else None
    return out


def lookup_alpha(setups: Sequence[RaceSetup], refs: Sequence[list[int]], num_tokens: int = 5, ngram: int = 2) -> dict:
    """What prompt lookup would get on these prompts (costs no model call): agreement and proposal rate."""
    m = p = q = 0
    for setup, ref in zip(setups, refs):
        a, b, c = _lookup_agreement(setup, ref, num_tokens, ngram)
        m, p, q = m + a, p + b, q + c
    return {"value": m / p if p else None, "proposal_rate": q / p if p else None, "positions": p,
            "prompt_lookup_num_tokens": num_tokens, "max_matching_ngram_size": ngram}


def observed_alpha(rounds: Sequence[dict]) -> dict[str, Any]:
    """Alpha from assisted rounds: per-token estimate (value), accepted/drafted, and round counts."""
    drafting = [r for r in rounds if r["drafted"] > 0]
    drafted = sum(r["drafted"] for r in drafting)
    accepted = sum(r["accepted"] for r in drafting)
    tested = sum(r["accepted"] + (r["accepted"] < r["drafted"]) for r in drafting)
    return {"value": accepted / tested if tested else None, "acceptance_rate": accepted / drafted if drafted else None,
            "rounds": len(rounds), "drafting_rounds": len(drafting), "drafted": drafted, "accepted": accepted,
            "mean_drafted": drafted / len(drafting) if drafting else 0.0,
            "mean_accepted_length": (accepted + len(rounds)) / len(rounds) if rounds else 0.0}


# ----- c: one-token step times ------------------------------------------------------------------------
def _sync(device: str) -> None:
    if str(device).startswith("cuda"):
        torch.cuda.synchronize()


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
    _sync(device)
    t0 = time.perf_counter()
    for _ in range(steps):
        stepper.step()
    _sync(device)
    return (time.perf_counter() - t0) / steps


def step_ratio(draft: Any, target: Any, repeats: int = 5, steps: int = 8, device: str = "cpu",
               warmup_steps: int = 2) -> dict[str, Any]:
    """c = draft step / target step: median over `repeats` repetitions, with min..max spread (times in ms)."""
    if repeats < 1 or steps < 1:
        raise ArenaError(f"Need at least one repetition and one step to measure c; got {repeats} x {steps}.")
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
    return {"value": statistics.median(ratios), "low": min(ratios), "high": max(ratios), "samples": ratios,
            "repeats": repeats, "steps": steps, "draft_step_ms": statistics.median(d_ms),
            "target_step_ms": statistics.median(t_ms), "draft_step_ms_range": [min(d_ms), max(d_ms)],
            "target_step_ms_range": [min(t_ms), max(t_ms)]}


@torch.inference_mode()
def verify_slope(setup: RaceSetup, ref: list[int], k: int = 9, repeats: int = 5) -> dict[str, Any]:
    """Extra cost per verified token: (t(k-token pass) / t(1-token pass) - 1) / (k - 1), both with the prompt
    in the KV cache (a fresh copy each time; prefill not timed). Theorem 3.8 takes it as 0 (true on a
    memory-bound GPU); on a CPU the pass is compute-bound, and c + slope is the effective cost ratio."""
    import copy

    stepper = ModelStepper(setup.target.model, setup.input_ids)
    stepper.start()
    cache0, device = stepper.cache, setup.device
    tokens = (ref + setup.input_ids[0].tolist() * k)[:k]
    ids = torch.tensor([tokens], device=setup.target.model.device)

    def once(n: int) -> float:
        cache = copy.deepcopy(cache0)
        _sync(device)
        t0 = time.perf_counter()
        stepper._forward(ids[:, :n], cache)
        _sync(device)
        return time.perf_counter() - t0

    once(1), once(k)
    samples = []
    for _ in range(repeats):
        one, many = once(1), once(k)
        samples.append((many / one - 1.0) / (k - 1))
    return {"value": max(0.0, statistics.median(samples)), "low": min(samples), "high": max(samples),
            "tokens": k, "repeats": repeats}


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


def measure_c(setup: RaceSetup, ref: list[int], repeats: int = 5, steps: int = 8) -> dict[str, Any]:
    """c for the setup's method (see module docstring); UAD adds the re-tokenization cost per drafted token."""
    p, kind, device = setup.preset, method_kind(setup.preset.method), setup.device
    target = ModelStepper(setup.target.model, setup.input_ids)
    if kind == "drafter":
        draft, what = ModelStepper(setup.assistant.model, setup.input_ids), "drafter step / target step"
    elif kind == "early-exit":
        draft = ModelStepper(exit_view(setup.target.model, p.assistant_early_exit), setup.input_ids)
        what = f"first-{p.assistant_early_exit}-layer step / full step"
    elif kind == "lookup":
        ids = torch.cat([setup.input_ids.cpu(), torch.tensor([ref])], dim=1)
        draft = LookupStepper(ids, p.prompt_lookup_num_tokens, p.max_matching_ngram_size or 2)
        what = "n-gram lookup / target step"
    else:
        with borrowed_tokenizers(setup) as (tok, atok):
            prompt_text = tok.decode(setup.input_ids[0], skip_special_tokens=True)
            draft = ModelStepper(setup.assistant.model, atok(prompt_text, return_tensors="pt")["input_ids"])
        what = "drafter step / target step + re-tokenization per drafted token"
    out = step_ratio(draft, target, repeats, steps, device)
    out["what"] = what
    if kind == "uad":
        gamma = p.num_assistant_tokens or 5
        extra = retokenize_seconds(setup, ref, gamma) / gamma / (out["target_step_ms"] / 1e3)
        out.update(c_model=out["value"], c_retokenize=extra, retokenize_gamma=gamma)
        for key in ("value", "low", "high"):
            out[key] += extra
    return out


# ----- checking a prediction with real races ----------------------------------------------------------
def constant_knobs(kind: str, gamma: int) -> dict[str, Any]:
    """Knobs that make the method draft exactly `gamma` tokens a round (constant schedule, no confidence stop)."""
    if kind == "lookup":
        return {"prompt_lookup_num_tokens": gamma}
    return {"num_assistant_tokens": gamma, "num_assistant_tokens_schedule": "constant",
            "assistant_confidence_threshold": 0.0}


def default_knobs(kind: str, preset: Preset) -> tuple[str, dict[str, Any]]:
    """(label, knobs) of the setting the best constant gamma is checked against."""
    if kind == "lookup":
        return f"preset setting (prompt_lookup_num_tokens={preset.prompt_lookup_num_tokens})", {}
    return "dynamic default (confidence 0.4, at most 20)", dict(DYNAMIC_DEFAULT)


def modelled_speedup(rounds: Sequence[dict], c: float) -> float | None:
    """Speedup the cost model gives for these very rounds: sum(n + 1) / sum(1 + k c) (the planner passes c + slope)."""
    if not rounds:
        return None
    return sum(r["accepted"] + 1 for r in rounds) / sum(1 + r["drafted"] * c for r in rounds)


def race_prompts(preset: Preset, prompts: Sequence[str], knobs: dict[str, Any], c: float,
                 progress: Progress | None = None) -> dict[str, Any]:
    """Sequential races of `preset` with `knobs` on every prompt: measured speedup (total tokens over total
    seconds, assisted vs baseline), per-prompt speedups, observed alpha and the cost model's speedup."""
    from .runner import Race

    p = preset.with_overrides(**knobs)
    runs = []
    for i, prompt in enumerate(prompts):
        if progress:
            progress(f"Racing {knobs or 'preset setting'} on prompt {i + 1}/{len(prompts)}")
        result = Race(prepare(p, prompt, progress=progress), sequential=True).run()
        if result.get("errors"):
            raise ArenaError("; ".join(f"{side}: {msg}" for side, msg in result["errors"].items()))
        runs.append(result)
    tps = {side: sum(r[side]["new_tokens"] for r in runs) / max(sum(r[side]["seconds"] for r in runs), 1e-9)
           for side in ("baseline", "assisted")}
    rounds = [x for r in runs for x in r["assisted"]["rounds"]]
    return {"knobs": knobs, "measured_speedup": tps["assisted"] / tps["baseline"] if tps["baseline"] else 0.0,
            "per_prompt_speedup": [r["speedup"] for r in runs], "baseline_tokens_per_second": tps["baseline"],
            "assisted_tokens_per_second": tps["assisted"], "identical": all(r["identical"] for r in runs),
            "observed": observed_alpha(rounds), "modelled_speedup": modelled_speedup(rounds, c)}


def prepare_all(preset: Preset, prompts: Sequence[str], progress: Progress | None = None) -> list[RaceSetup]:
    """One RaceSetup per prompt (models load once, from the cache)."""
    if not prompts:
        raise ArenaError("No prompts to measure on: give --prompts FILE or use a preset with example prompts.")
    return [prepare(preset, prompt, progress=progress) for prompt in prompts]
