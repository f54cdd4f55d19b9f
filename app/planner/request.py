"""What a plan asks for, checked once for every way in: the Planner tab, its /plan API and ``python -m app plan``.

The numbers have one set of bounds (:data:`PLAN_NUMBERS`, knobs outside the race's table); an error names the field
the way its way in does (the page's label, or the command line's flag; :class:`app.core.knobs.Origin`).
"""

from __future__ import annotations

import re
from typing import Any

from ..core.errors import ArenaError
from ..core.knobs import FORM, Knob, Origin, blank, shown
from ..core.presets import Preset
from ..core.requests import Limits, check_new_tokens, check_prompt_text, split_prompts
from ..core.theory import MAX_C
from .cost import DEFAULT_GPUS, HOURS_PER_MONTH, GpuPrice, parse_gpu_price
from .memory import DTYPE_BYTES
from .plan import PlanOptions

#: The most GPU prices one plan compares, the highest price (dollars per hour), the longest GPU name (characters).
MAX_GPUS, MAX_PRICE, MAX_GPU_NAME = 20, 1_000_000, 60

#: The planner's inputs, named as the command line's flags, labelled as the page's fields.
PLAN_NUMBERS = {k.name: k for k in (
    Knob("alpha", "float", "alpha", "acceptance rate: skip measuring (calculator)", 0.0, 1.0),
    Knob("c", "float", "c", "cost ratio, draft step / target step: skip measuring", 0.0, MAX_C),
    Knob("speedup", "float", "Speedup", "calculator: also price this measured speedup", 0.0, low_open=True),
    Knob("dtype", "choice", "dtype", "weight dtype for the memory maths", choices=tuple(DTYPE_BYTES)),
    Knob("context", "int", "Context length", "cached tokens for the memory maths", 1, 100_000_000),
    Knob("gpu_memory", "float", "GPU memory (GB)", "GPU memory in GB for the fit check", 0.0, 1e6, low_open=True),
    Knob("hours_per_month", "float", "Hours per month", "GPU hours a month, for the cost", 0.0, 744, low_open=True),
    Knob("repeats", "int", "Repeats", "repetitions of the c timing (median, spread)", 1),
    Knob("steps", "int", "Steps", "one-token steps per repetition", 1),
    Knob("threads", "int", "Threads", "torch CPU threads (1 is steadiest on a busy machine)", 1),
)}


def parse_prices(prices: Any) -> tuple[GpuPrice, ...]:
    """GPU prices: text with one 'NAME=DOLLARS_PER_HOUR' a line (or ';'-separated), or a list of such items; none:
    the article's defaults. At most MAX_GPUS prices, each at most MAX_PRICE with a name of at most MAX_GPU_NAME."""
    if prices is not None and not isinstance(prices, (str, list, tuple)):
        raise ArenaError(f"GPU prices must be text, one NAME=DOLLARS_PER_HOUR a line; got {shown(prices)}.")
    items = list(prices) if isinstance(prices, (list, tuple)) else \
        [x.strip() for x in re.split(r"[\n;]", prices or "") if x.strip()]
    if len(items) > MAX_GPUS:
        raise ArenaError(f"{len(items)} GPU prices: give at most {MAX_GPUS}.")
    out = tuple(parse_gpu_price(x) for x in items)
    for gpu in out:
        if gpu.dollars_per_hour > MAX_PRICE or len(gpu.name) > MAX_GPU_NAME:
            raise ArenaError(f"A GPU price must be at most ${MAX_PRICE:,}/h with a name of at most {MAX_GPU_NAME} "
                             f"characters; got {shown(gpu.name)}={gpu.dollars_per_hour:g}.")
    return out or DEFAULT_GPUS


def plan_options(gpu_memory: Any = 24.0, context: Any = 4096, dtype: Any = "bfloat16", prices: Any = None,
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
        raise ArenaError(f"Give both {names[0]} and {names[1]} for the calculator"
                         f"{'' if needed else ' (or neither, to measure them)'}.")
    return PLAN_NUMBERS["alpha"].check(alpha, origin), PLAN_NUMBERS["c"].check(c, origin)


def plan_prompts(prompts: Any, preset: Preset, limits: Limits, origin: Origin = FORM) -> list[str]:
    """The prompts to measure on: a list, or text with one a line (or blocks between '---' lines); none given: the
    preset's examples. At most `limits.plan_prompts`."""
    prompts = check_prompt_text(prompts, origin)
    out = list(prompts) if isinstance(prompts, (list, tuple)) else split_prompts(prompts)
    out = out or list(preset.example_prompts)
    if not out:
        raise ArenaError("Give at least one prompt (one per line): this preset has no example prompts.")
    if limits.plan_prompts is not None and len(out) > limits.plan_prompts:
        raise ArenaError(f"{len(out)} prompts: the planner measures at most {limits.plan_prompts} (each is run "
                         "several times).")
    return out
