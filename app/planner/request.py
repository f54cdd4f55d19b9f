"""What a plan asks for, checked once for every way in: the Planner tab, its /plan API and ``python -m app plan``
build it with these functions (docs/DESIGN.md §4.5): the options (:func:`plan_options`), the calculator's numbers
(:func:`calculator_numbers`), the preset to measure (:func:`plan_preset`), the prompts (:func:`plan_prompts`) or the
races on an operator's serving engine (:func:`engine_requests`).

The numbers have one set of bounds (:data:`PLAN_NUMBERS`, knobs outside the race's table); an error names the field
the way its way in does (the page's label, or the command line's flag; :class:`app.core.knobs.Origin`). The defaults
of the memory maths are memory.py's, the hours a month cost.py's.
"""

from __future__ import annotations

import re
from typing import Any

from ..core.errors import ArenaError
from ..core.knobs import FLAG, FORM, REQUEST, Knob, Origin, blank, shown
from ..core.presets import Preset, get_preset
from ..core.requests import (Limits, apply_overrides, build_preset, check_model_id, check_new_tokens, check_prompt_text,
                             split_prompts, within_limits)
from ..core.sources import refuse_local_path
from ..core.theory import MAX_C
from ..core.words import msg
from ..engine.request import EngineRequest, build_engine_request
from ..engine.target import EngineTarget
from ..race.methods import get_method
from .cost import DEFAULT_GPUS, HOURS_PER_MONTH, GpuPrice, parse_gpu_price
from .memory import DEFAULT_CONTEXT_TOKENS, DEFAULT_DTYPE, DEFAULT_GPU_MEMORY_GB, DTYPE_BYTES
from .plan import PlanOptions

#: The most GPU prices one plan compares, the highest price (dollars per hour), the longest GPU name (characters).
MAX_GPUS, MAX_PRICE, MAX_GPU_NAME = 20, 1_000_000, 60

#: The planner's inputs, named as the command line's flags, labelled as the page's fields.
PLAN_NUMBERS = {k.name: k for k in (
    Knob("alpha", "float", "alpha", "acceptance rate: skip measuring (calculator)", 0.0, 1.0),
    Knob("c", "float", "c", "cost ratio, draft step / target step: skip measuring", 0.0, MAX_C),
    Knob("speedup", "float", "Speedup", "calculator: also price this measured speedup", 0.0, low_open=True),
    Knob("dtype", "choice", "Weights dtype", "weight dtype for the memory maths", choices=tuple(DTYPE_BYTES)),
    Knob("context", "int", "Context (tokens)", "cached tokens for the memory maths", 1, 100_000_000),
    Knob("gpu_memory", "float", "GPU memory (GB)", "GPU memory in GB for the fit check", 0.0, 1e6, low_open=True),
    Knob("hours_per_month", "float", "GPU hours per month", "GPU hours a month, for the cost (744: 31 days)", 0.0, 744,
         low_open=True),
    Knob("repeats", "int", "Repeats", "repetitions of the c timing (median, spread)", 1),
    Knob("steps", "int", "Steps", "one-token steps per repetition", 1),
    Knob("threads", "int", "Threads", "torch CPU threads (1 is steadiest on a busy machine)", 1),
)}


def parse_prices(prices: Any) -> tuple[GpuPrice, ...]:
    """GPU prices: text with one 'NAME=DOLLARS_PER_HOUR' a line (or ';'-separated), or a list of such items; none:
    the article's defaults. At most MAX_GPUS prices, each at most MAX_PRICE with a name of at most MAX_GPU_NAME."""
    if prices is not None and not isinstance(prices, (str, list, tuple)):
        raise ArenaError(msg("GPU prices must be text, one NAME=DOLLARS_PER_HOUR a line; got {shown}.", shown=shown(prices)))
    items = list(prices) if isinstance(prices, (list, tuple)) else \
        [x.strip() for x in re.split(r"[\n;]", prices or "") if x.strip()]
    if len(items) > MAX_GPUS:
        raise ArenaError(msg("{items} GPU prices: give at most {MAX_GPUS}.", items=len(items), MAX_GPUS=MAX_GPUS))
    out = tuple(parse_gpu_price(x) for x in items)
    for gpu in out:
        if gpu.dollars_per_hour > MAX_PRICE or len(gpu.name) > MAX_GPU_NAME:
            raise ArenaError(msg("A GPU price must be at most ${MAX_PRICE}/h with a name of at most {MAX_GPU_NAME} "
                                 "characters; got {shown}={dollars_per_hour}.", MAX_PRICE=f"{MAX_PRICE:,}",
                                 MAX_GPU_NAME=MAX_GPU_NAME, shown=shown(gpu.name),
                                 dollars_per_hour=f"{gpu.dollars_per_hour:g}"))
    return out or DEFAULT_GPUS


def plan_options(gpu_memory: Any = DEFAULT_GPU_MEMORY_GB, context: Any = DEFAULT_CONTEXT_TOKENS,
                 dtype: Any = DEFAULT_DTYPE, prices: Any = None,
                 hours: Any = HOURS_PER_MONTH, max_new_tokens: Any = None, limits: Limits = Limits(),
                 origin: Origin = FORM, **timing: Any) -> PlanOptions:
    """PlanOptions from a request's values under `limits`; ArenaError naming the field as `origin` does.
    timing: repeats, steps (checked) and check, as the command line gives them."""
    n = PLAN_NUMBERS
    return PlanOptions(dtype=n["dtype"].require(dtype, origin), context_tokens=n["context"].require(context, origin),
                       gpu_memory_gb=n["gpu_memory"].require(gpu_memory, origin), gpus=parse_prices(prices),
                       hours_per_month=n["hours_per_month"].require(hours, origin),
                       max_new_tokens=check_new_tokens(max_new_tokens, limits, origin), limits=limits,
                       **{k: n[k].require(v, origin) if k in n else v for k, v in timing.items()})


def calculator_numbers(alpha: Any, c: Any, origin: Origin = FORM, needed: bool = True) -> tuple[float, float] | None:
    """(alpha, c) for the calculator, checked; None when neither is given and not `needed` (measure them instead)."""
    given = [not blank(x) for x in (alpha, c)]
    if not any(given) and not needed:
        return None
    if not all(given):
        names = ("--alpha", "--c") if origin.kind == "flag" else ("alpha (acceptance rate, 0-1)", "c (draft step / "
                                                                   "target step)")
        raise ArenaError((msg("Give both {first} and {second} for the calculator.", first=names[0], second=names[1])
                          if needed else msg("Give both {first} and {second} for the calculator (or neither, to measure "
                                             "them).", first=names[0], second=names[1])))
    return PLAN_NUMBERS["alpha"].check(alpha, origin), PLAN_NUMBERS["c"].check(c, origin)


def plan_prompts(prompts: Any, preset: Preset | None, limits: Limits, origin: Origin = FORM) -> list[str]:
    """The prompts to measure on: a list, or text with one a line (or blocks between '---' lines); none given: the
    preset's examples (an engine, `preset` None, has none). At most `limits.plan_prompts`."""
    prompts = check_prompt_text(prompts, origin)
    out = list(prompts) if isinstance(prompts, (list, tuple)) else split_prompts(prompts)
    out = out or (list(preset.example_prompts) if preset is not None else [])
    if not out:
        raise ArenaError((msg("Give at least one prompt (one per line): this preset has no example prompts.")
                          if preset else msg("Give at least one prompt (one per line) to race on the engine.")))
    if limits.plan_prompts is not None and len(out) > limits.plan_prompts:
        raise ArenaError(msg("{out} prompts: the planner measures at most {plan_prompts} (each is run several times).",
                             out=len(out), plan_prompts=limits.plan_prompts))
    return out


# ----- what is measured: a preset (or models), or a serving engine ------------------------------------------------
def plan_preset(preset_id: Any, changes: dict[str, Any], limits: Limits, origin: Origin = REQUEST) -> Preset:
    """The preset a plan measures, within `limits`: `preset_id` with `changes` (models, method knobs, max_new_tokens;
    :func:`app.core.requests.build_preset`). Only the command line (`origin` FLAG) may name models instead of a
    preset: then `changes` has the target and the assistant, and the method is changes' "method", else drafter when
    the two tokenizers' vocabularies match and uad when they differ (both tokenizers are loaded to tell); a method
    whose draft length it requires is not given takes its own preset's (presets/<method>.yaml). The method's checks
    that need no model run here, before anything loads."""
    if not blank(preset_id) or origin.kind != "flag":
        preset = build_preset(preset_id, changes, limits, origin)
        get_method(preset.method).check_preset(preset)  # before anything loads: a drafter where none is taken, ...
        return preset
    changes = dict(changes)
    target, assistant = changes.get("target"), changes.get("assistant")
    if blank(target):
        raise ArenaError(msg("Say what to plan: --preset ID, --target SPEC --assistant SPEC, or --alpha A --c C."))
    method = changes.get("method")
    if method is None:
        if blank(assistant):
            raise ArenaError(msg("--target alone needs --assistant SPEC, or --method prompt-lookup, or --method layerskip "
                                 "--assistant-early-exit N."))
        method = guess_method(target, assistant, limits, origin)
    changes["method"] = method
    length = get_method(method).length_knob
    if length in get_method(method).required_knobs and changes.get(length) is None:
        changes[length] = getattr(get_preset(method), length)
    base = Preset(id="plan", method=method, title="command line plan", description="built from plan arguments",
                  target=check_model_id(target, "target", origin))
    preset = within_limits(apply_overrides(base, changes, origin), limits, origin)
    get_method(method).check_preset(preset)
    return preset


def guess_method(target: str, assistant: str, limits: Limits, origin: Origin = FLAG) -> str:
    """The method for a target and a drafter named without one: drafter when their tokenizers' vocabularies are
    identical, else uad (which translates between them). Loads both tokenizers."""
    from ..core.loader import MODEL_CACHE

    for spec, name in ((target, "target"), (assistant, "assistant")):
        check_model_id(spec, name, origin)
        if not limits.allow_local:
            refuse_local_path(spec)
    vocabularies = [MODEL_CACHE.get_tokenizer(spec, allow_local=limits.allow_local).get_vocab()
                    for spec in (target, assistant)]
    return "drafter" if vocabularies[0] == vocabularies[1] else "uad"


def engine_requests(target: EngineTarget, prompts: Any, max_new_tokens: Any, limits: Limits,
                    origin: Origin = FORM) -> list[EngineRequest]:
    """One engine race per prompt on the operator's `target` (app/engine/request.py: each prompt, the token cap and
    the race's budget checked as any engine race is), the whole plan's work within `limits` checked before any
    request: 2 x max_new_tokens a prompt (None: the engine race's default)."""
    prompt_list = plan_prompts(prompts, None, limits, origin)
    requests = [build_engine_request(target, prompt, max_new_tokens, True, limits, origin=origin)
                for prompt in prompt_list]
    limits.check_work(sum(r.work_tokens for r in requests), "engine plan", "fewer prompts or new tokens")
    return requests
